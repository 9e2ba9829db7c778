// The world the pull request tests share: the real app listening, real MariaDB and Temporal, users,
// alice/widget made through the API, a fork bob/widget, and branches pushed with the git binary.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startTestServices, type TestOptions, type TestServices } from '../helper.js';
import { call, cloneUrl, fixtureToken, gitSandbox, makeUser, PASSWORD, tokenAuthHeader, type Call } from '../repos/fixtures.js';
import type { UserRow } from '../../db/users.js';

interface Tap {
  teardown(fn: () => unknown): void;
  equal(a: unknown, b: unknown, msg: string): unknown;
}

export interface PullWorld extends TestServices {
  users: Record<'alice' | 'bob' | 'carol' | 'dave', UserRow>;
  api: (c: Call) => ReturnType<typeof call>;
  /** Makes `name` from `from` in the clone of owner/repo, commits `files` and pushes; returns the sha. */
  pushBranch: (name: string, files: Record<string, string | Buffer | null>, opts?: { from?: string; repo?: 'alice' | 'bob'; message?: string }) => Promise<string>;
  git: ReturnType<typeof gitSandbox>['git'];
  home: string;
  clones: Record<'alice' | 'bob', string>;
  tokenHeader: (user: string) => Promise<Record<string, string>>;
}

export async function pullWorld(
  t: Tap,
  opts: { env?: Record<string, string>; worker?: boolean; dbType?: 'mysql' | 'sqlite3'; temporal?: boolean; temporalAddress?: string; webhookResolve?: TestOptions['webhookResolve'] } = {},
): Promise<PullWorld> {
  const services = await startTestServices(t, { temporal: opts.temporal ?? true, listen: true, env: opts.env, worker: opts.worker, dbType: opts.dbType, temporalAddress: opts.temporalAddress, webhookResolve: opts.webhookResolve });
  const { app, db, baseUrl } = services;
  const { home, git } = gitSandbox(t);
  const users = {
    alice: await makeUser(db, 'alice'), bob: await makeUser(db, 'bob'), carol: await makeUser(db, 'carol'), dave: await makeUser(db, 'dave'),
  };
  const api = (c: Call) => call(app, c);
  const created = await api({ method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'widget', auto_init: true } });
  t.equal(created.statusCode, 201, `the repository is created${created.statusCode === 201 ? '' : `: ${created.body}`}`);
  const collab = await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/collaborators/dave', as: 'alice', body: { permission: 'write' } });
  t.equal(collab.statusCode, 204, `dave becomes a collaborator${collab.statusCode === 204 ? '' : `: ${collab.body}`}`);
  const fork = await api({ method: 'POST', url: '/api/v1/repos/alice/widget/forks', as: 'bob', body: {} });
  t.equal(fork.statusCode, 202, `bob forks the repository${fork.statusCode === 202 ? '' : `: ${fork.body}`}`);

  const clones = { alice: join(home, 'alice-widget'), bob: join(home, 'bob-widget') };
  for (const who of ['alice', 'bob'] as const) {
    // A token as the password: git's fetches and pushes then cost no argon2 verify each.
    const r = await git(['clone', '-q', cloneUrl(baseUrl, `/${who}/widget.git`, who, (await fixtureToken(app, who)) ?? PASSWORD), clones[who]]);
    t.equal(r.code, 0, r.stderr);
  }

  async function pushBranch(name: string, files: Record<string, string | Buffer | null>, o: { from?: string; repo?: 'alice' | 'bob'; message?: string } = {}): Promise<string> {
    const dir = clones[o.repo ?? 'alice'];
    const run = async (args: string[]) => {
      const r = await git(args, dir);
      if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    await run(['fetch', '-q', 'origin']);
    const from = o.from ?? 'main';
    // Build on the server's tip of the branch when it exists (merges happen server-side), else on `from`.
    const onServer = (await git(['rev-parse', '--verify', '-q', `refs/remotes/origin/${name}`], dir)).code === 0;
    await run(['checkout', '-q', '-B', name, onServer ? `origin/${name}` : `origin/${from}`]);
    for (const [path, content] of Object.entries(files)) {
      if (content === null) {
        await run(['rm', '-q', path]);
        continue;
      }
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
      await run(['add', path]);
    }
    await run(['commit', '-q', '--allow-empty', '-m', o.message ?? `change ${Object.keys(files).join(', ')}`]);
    await run(['push', '-q', 'origin', `HEAD:refs/heads/${name}`]);
    return (await run(['rev-parse', 'HEAD'])).trim();
  }

  /** An access token's header for `user`: parallel requests with passwords are throttled (429) by design. */
  const tokenHeader = (user: string) => tokenAuthHeader(app, user);

  return { ...services, users, api, pushBranch, git, home, clones, tokenHeader };
}

/** Polls GET until `mergeable` has a settled value (the workflow's check ran), bounded. */
export async function settledMergeable(w: PullWorld, index: number, want: boolean, timeoutMs = 8000): Promise<boolean | null> {
  const deadline = Date.now() + timeoutMs;
  let last: boolean | null = null;
  while (Date.now() < deadline) {
    const r = await w.api({ url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice' });
    last = r.json().mergeable as boolean;
    if (last === want) return last;
    await new Promise((res) => setTimeout(res, 200));
  }
  return last;
}

export { PASSWORD };

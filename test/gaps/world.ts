// The world the tag protection, account, repository people and issue deletion tests share: the
// real app (listening, for git over HTTP) on the real MariaDB, users made through the account rules
// with a repository around them: owner, site admin, admin, writer and reader collaborators, an
// outsider, and an organization whose team reaches one of its repositories.
import { startTestServices, type TestOptions, type TestServices } from '../helper.js';
import { call, makeUser, type Call } from '../repos/fixtures.js';
import { insisting, scopedToken } from '../people/world.js';

interface Tap {
  teardown(fn: () => unknown): void;
}

export interface GapsWorld extends TestServices {
  api: (c: Call) => ReturnType<typeof call>;
  must: (status: number, c: Call) => Promise<Awaited<ReturnType<typeof call>>>;
  token: (user: string, scopes: string[]) => Promise<Record<string, string>>;
  /** `<p>-owner`'s public repository `<p>-owner/<p>-repo` and private `<p>-owner/<p>-secret`. */
  repo: string;
  secret: string;
  /** `<p>-org/<p>-lib`, reached by team `<p>-team` (write) whose member is `<p>-member`. */
  orgRepo: string;
  teamId: number;
}

/** Names start with `p` so worlds in one database never meet. */
export async function gapsWorld(t: Tap, p: string, opts: TestOptions = {}): Promise<GapsWorld> {
  const services = await startTestServices(t, { listen: true, ...opts });
  const { app, db } = services;
  const api = (c: Call) => call(app, c);
  const must = insisting(api);
  for (const name of ['owner', 'admin', 'writer', 'reader', 'outsider', 'member']) await makeUser(db, `${p}-${name}`);
  await makeUser(db, `${p}-site`, { admin: true });
  const owner = `${p}-owner`;
  const repo = `${owner}/${p}-repo`;
  const secret = `${owner}/${p}-secret`;
  await must(201, { method: 'POST', url: '/api/v1/user/repos', as: owner, body: { name: `${p}-repo`, auto_init: true } });
  await must(201, { method: 'POST', url: '/api/v1/user/repos', as: owner, body: { name: `${p}-secret`, auto_init: true, private: true } });
  for (const [who, permission] of [['admin', 'admin'], ['writer', 'write'], ['reader', 'read']]) {
    for (const r of [repo, secret]) await must(204, { method: 'PUT', url: `/api/v1/repos/${r}/collaborators/${p}-${who}`, as: owner, body: { permission } });
  }
  await must(201, { method: 'POST', url: '/api/v1/orgs', as: owner, body: { username: `${p}-org` } });
  const orgRepo = `${p}-org/${p}-lib`;
  await must(201, { method: 'POST', url: `/api/v1/orgs/${p}-org/repos`, as: owner, body: { name: `${p}-lib`, auto_init: true } });
  const team = (await must(201, { method: 'POST', url: `/api/v1/orgs/${p}-org/teams`, as: owner, body: { name: `${p}-team`, permission: 'write', units: ['repo.code', 'repo.pulls', 'repo.issues'] } })).json();
  await must(204, { method: 'PUT', url: `/api/v1/teams/${team.id}/members/${p}-member`, as: owner });
  await must(204, { method: 'PUT', url: `/api/v1/repos/${orgRepo}/teams/${p}-team`, as: owner });
  const token = (user: string, scopes: string[]) => scopedToken(app, user, scopes);
  return { ...services, api, must, token, repo, secret, orgRepo, teamId: Number(team.id) };
}

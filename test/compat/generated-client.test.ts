// A TypeScript client generated from the served /swagger.v1.json with swagger-typescript-api (the
// generator behind gitea-js, with gitea-js's options), compiled with strict type checking together
// with a driver written against Gitea's names (operationIds as methods, definitions as types), then
// run: users, a token, a repository, a pull request created, read, merged and read back merged.
// The one step outside the client is the push of the branch, done with the git binary.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { generateApi } from 'swagger-typescript-api';
import { startTestServices } from '../helper.js';
import { cloneUrl, gitSandbox, makeUser, PASSWORD } from '../repos/fixtures.js';

/** Written as a client author would, against Gitea's method and type names. */
const DRIVER = `
import { Api, type CreatePullRequestOption, type MergePullRequestOption, type PullRequest, type Repository, type User } from './api.js';

export interface Step { status: number; data?: unknown }
const basic = (user: string, password: string) => ({ headers: { Authorization: 'Basic ' + btoa(user + ':' + password) } });

/** The client throws the response on an error status; the test wants the status either way. */
async function settle(p: Promise<{ status: number; data?: unknown }>): Promise<Step> {
  try {
    const r = await p;
    return { status: r.status, data: r.data };
  } catch (e) {
    const r = e as { status: number; error?: unknown };
    return { status: r.status, data: r.error };
  }
}

const client = (baseUrl: string, token: string) => new Api({ baseUrl, baseApiParams: { headers: { Authorization: 'token ' + token } } });

export async function setUp(baseUrl: string, adminPassword: string, password: string): Promise<{ token: string; repo: Repository; user: User }> {
  const anonymous = new Api({ baseUrl });
  const rootToken = await anonymous.users.userCreateToken('root', { name: 'admin', scopes: ['write:admin', 'write:user'] }, basic('root', adminPassword));
  const admin = client(baseUrl, rootToken.data.sha1!);
  const made = await admin.admin.adminCreateUser({ username: 'carol', email: 'carol@example.com', password, must_change_password: false });
  const token = await anonymous.users.userCreateToken('carol', { name: 'generated', scopes: ['write:repository', 'write:issue', 'write:user'] }, basic('carol', password));
  const carol = client(baseUrl, token.data.sha1!);
  const repo = await carol.user.createCurrentUserRepo({ name: 'generated', auto_init: true, default_branch: 'main', trust_model: '', object_format_name: 'sha1' });
  return { token: token.data.sha1!, repo: repo.data, user: made.data };
}

export async function pullRequestToMerge(baseUrl: string, token: string): Promise<Record<string, Step>> {
  const carol = client(baseUrl, token);
  const option: CreatePullRequestOption = { head: 'feature', base: 'main', title: 'From a generated client', body: 'made by swagger-typescript-api' };
  const created = await settle(carol.repos.repoCreatePullRequest('carol', 'generated', option));
  const number = (created.data as PullRequest).number!;
  let read = await settle(carol.repos.repoGetPullRequest('carol', 'generated', number));
  for (let i = 0; i < 80 && !(read.data as PullRequest).mergeable; i++) {
    await new Promise((r) => setTimeout(r, 100));
    read = await settle(carol.repos.repoGetPullRequest('carol', 'generated', number));
  }
  const byBaseHead = await settle(carol.repos.repoGetPullRequestByBaseHead('carol', 'generated', 'main', 'feature'));
  const diff = await settle(carol.repos.repoDownloadPullDiffOrPatch('carol', 'generated', number, 'diff', {}, { format: 'text' }));
  const merge: MergePullRequestOption = { Do: 'merge', merge_message_field: 'merged by the generated client' };
  const merged = await settle(carol.repos.repoMergePullRequest('carol', 'generated', number, merge));
  const isMerged = await settle(carol.repos.repoPullRequestIsMerged('carol', 'generated', number));
  const after = await settle(carol.repos.repoGetPullRequest('carol', 'generated', number));
  const closed = await settle(carol.repos.repoListPullRequests('carol', 'generated', { state: 'closed' }));
  return { created, read, byBaseHead, diff, merged, isMerged, after, closed };
}
`;

function typeCheckAndEmit(dir: string): string[] {
  const options: ts.CompilerOptions = {
    strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], types: [], skipLibCheck: true, outDir: join(dir, 'out'), rootDir: dir,
  };
  const program = ts.createProgram([join(dir, 'api.ts'), join(dir, 'driver.ts')], options);
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

t.test('a client generated from /swagger.v1.json drives a pull request from creation to merge', async (t) => {
  const s = await startTestServices(t, { temporal: true, listen: true });
  await makeUser(s.db, 'root', { admin: true });
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-generated-client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  const spec = await (await fetch(`${s.baseUrl}swagger.v1.json`)).json();
  const generated = await generateApi({ spec, output: false, silent: true } as Parameters<typeof generateApi>[0]);
  const api = generated.files.find((f) => f.fileName === 'Api')?.fileContent ?? '';
  t.match(api, /repoCreatePullRequest: \(/, 'methods are named by operationId');
  t.match(api, /export interface CreatePullRequestOption \{/, 'types are named by definition');
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(join(dir, 'api.ts'), api);
  writeFileSync(join(dir, 'driver.ts'), DRIVER);
  t.same(typeCheckAndEmit(dir), [], 'the generated client and the driver compile with strict checks');
  const driver = await import(pathToFileURL(join(dir, 'out', 'driver.js')).href) as {
    setUp(baseUrl: string, adminPassword: string, password: string): Promise<{ token: string; repo: { full_name?: string; default_branch?: string }; user: { login?: string } }>;
    pullRequestToMerge(baseUrl: string, token: string): Promise<Record<string, { status: number; data?: unknown }>>;
  };

  const apiBase = `${s.baseUrl}api/v1`;
  const { token, repo, user } = await driver.setUp(apiBase, PASSWORD, 'carol-password-1');
  t.equal(user.login, 'carol');
  t.match(repo, { full_name: 'carol/generated', default_branch: 'main' });

  const { home, git } = gitSandbox(t);
  const work = join(home, 'generated');
  t.equal((await git(['clone', '-q', cloneUrl(s.baseUrl, '/carol/generated.git', 'carol', 'carol-password-1'), work])).code, 0);
  writeFileSync(join(work, 'feature.txt'), 'a feature\n');
  for (const args of [['checkout', '-q', '-b', 'feature'], ['add', 'feature.txt'], ['commit', '-q', '-m', 'a feature'], ['push', '-q', 'origin', 'HEAD:refs/heads/feature']]) {
    const r = await git(args, work);
    t.equal(r.code, 0, r.stderr);
  }

  const steps = await driver.pullRequestToMerge(apiBase, token);
  t.match(steps.created, { status: 201, data: { number: 1, title: 'From a generated client', state: 'open', head: { ref: 'feature' }, base: { ref: 'main' } } });
  t.match(steps.read, { status: 200, data: { number: 1, mergeable: true, merged: false } });
  t.match(steps.byBaseHead, { status: 200, data: { number: 1 } });
  t.match(steps.diff, { status: 200 });
  t.match(String(steps.diff.data ?? ''), /feature\.txt/, 'the diff through the client');
  t.equal(steps.merged.status, 200, JSON.stringify(steps.merged.data));
  t.equal(steps.isMerged.status, 204);
  t.match(steps.after, { status: 200, data: { merged: true, state: 'closed', merge_commit_sha: /^[0-9a-f]{40}$/, merged_by: { login: 'carol' } } });
  t.match(steps.closed, { status: 200, data: [{ number: 1, merged: true }] });
  t.ok(readFileSync(join(dir, 'api.ts'), 'utf8').includes('baseUrl'), 'the generated file was kept for the run');
});

// Several machines' worth of processes: two `api` and two `worker` processes against one Temporal,
// one MariaDB and one repository directory. The guarantees of one process hold across them: one
// merge however many APIs are asked at once, auto-merge fired by a status posted elsewhere, nothing
// lost when a worker dies mid-merge, one login throttle, one memory of Idempotency-Key answers.
import t, { type Test } from 'tap';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullWorld, PASSWORD, type PullWorld } from '../pulls/fixtures.js';
import { baseLog, openPull, refOf, waitFor } from '../merge/world.js';
import { request, startRole, type RoleProcess } from './role-process.js';
import { allocatorEnv } from '../../app/allocator.js';

let w: PullWorld;
let apis: RoleProcess[] = [];
let workers: RoleProcess[] = [];
let faultsDir: string;
let alice: Record<string, string>;

async function startWorkers(count: number, env: Record<string, string> = {}): Promise<RoleProcess[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startRole(w.config, 'worker', env)));
  await Promise.all(started.map((p) => p.ready));
  return started;
}

t.before(async () => {
  w = await pullWorld(t, { worker: false });
  // Registered after the world's own: run before it, so the processes stop while their database is
  // there (a worker stopping with an activity failing against a dropped one retries it for minutes).
  t.teardown(async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
    rmSync(faultsDir, { recursive: true, force: true });
  });
  faultsDir = mkdtempSync(join(tmpdir(), 'pullhost-faults-'));
  apis = await Promise.all([startRole(w.config, 'api'), startRole(w.config, 'api')]);
  const [started] = await Promise.all([startWorkers(2), ...apis.map((p) => p.ready)]);
  workers = started;
  alice = await w.tokenHeader('alice');
});

t.test('each process says which allocator it runs on: jemalloc where the machine has it', async (t) => {
  const expected = allocatorEnv().LD_PRELOAD ? 'jemalloc' : 'the system allocator';
  for (const p of [...apis, ...workers]) t.match(p.stdout(), new RegExp(`Memory: +${expected}`), `${p.role} on ${expected}`);
});

const mergeUrl = (index: number) => `/api/v1/repos/alice/widget/pulls/${index}/merge`;

async function assertMergedOnce(t: Test, index: number, before: string): Promise<void> {
  const added = baseLog(w, `${before}..refs/heads/main`, 50).filter((c) => c.subject.startsWith('Merge pull request'));
  t.equal(added.length, 1, 'one merge commit on the base branch');
  const row = await w.db('pull_requests').where({ base_repo_id: 1, index }).first();
  t.ok(row.has_merged, 'the pull request is marked merged');
  t.equal(row.merge_commit_sha, refOf(w, 'refs/heads/main'), 'its merge commit is the head of the base branch');
  t.equal(row.pending_merge_commit, null, 'no merge left half done in the journal');
  t.equal((await w.db('comments').where({ issue_id: row.issue_id, type: 'merge_pull' })).length, 1, 'one merge comment');
}

t.test('concurrent merges of one pull request through both APIs give one merge', async (t) => {
  const index = await openPull(w, 'both-apis', { 'both-apis.txt': 'x\n' });
  const before = refOf(w, 'refs/heads/main')!;
  const answers = await Promise.all([0, 1, 0, 1, 0, 1].map((i) => request(apis[i]!.baseUrl, 'POST', mergeUrl(index), alice, { Do: 'merge' })));
  const statuses = answers.map((a) => a.status);
  t.ok(statuses.includes(200), `one of them merged: ${statuses.join(', ')}`);
  t.ok(statuses.every((s) => s < 500), `none failed on the server: ${answers.filter((a) => a.status >= 500).map((a) => a.text).join(' ')}`);
  await assertMergedOnce(t, index, before);
});

t.test('an Idempotency-Key holds across API processes, also after the run that answered has ended', async (t) => {
  const index = await openPull(w, 'keyed-across', { 'keyed-across.txt': 'i\n' });
  const before = refOf(w, 'refs/heads/main')!;
  const keyed = { ...alice, 'idempotency-key': `across-${index}` };
  // The same key through both APIs at once is one operation: both get its answer.
  const first = await Promise.all([0, 1].map((i) => request(apis[i]!.baseUrl, 'POST', mergeUrl(index), keyed, { Do: 'merge' })));
  t.same(first.map((a) => a.status), [200, 200], `both answered the one merge: ${first.map((a) => a.text).join(' ')}`);
  // Later, through either API: the first answer again, not a fresh 405 "already merged".
  for (const api of apis) {
    const again = await request(api.baseUrl, 'POST', mergeUrl(index), keyed, { Do: 'merge' });
    t.equal(again.status, 200, `replayed: ${again.text}`);
    t.equal(again.headers.get('idempotent-replayed'), 'true');
  }
  const unkeyed = await request(apis[1]!.baseUrl, 'POST', mergeUrl(index), alice, { Do: 'merge' });
  t.equal(unkeyed.status, 405, 'without the key the request is judged afresh');
  await assertMergedOnce(t, index, before);
});

t.test('a worker killed in the middle of a merge loses nothing', async (t) => {
  // Only the worker that will crash is running, so it is the one that takes the merge.
  await Promise.all(workers.map((p) => p.stop()));
  const [crashing] = await startWorkers(1, { PULLHOST_FAULTS: 'merge:after-ref-update', PULLHOST_FAULTS_DIR: faultsDir });
  workers = [crashing!];
  const index = await openPull(w, 'killed-worker', { 'killed-worker.txt': 'k\n' });
  const before = refOf(w, 'refs/heads/main')!;
  const answer = request(apis[0]!.baseUrl, 'POST', mergeUrl(index), alice, { Do: 'merge' });
  t.equal(await crashing!.exited, 137, 'the worker died after moving the base branch, before recording the merge');
  workers = await startWorkers(2);
  const res = await answer;
  t.equal(res.status, 200, `the merge request still answers 200: ${res.text}`);
  await assertMergedOnce(t, index, before);
});

t.test('an auto-merge scheduled through one API fires on a status posted through the other', async (t) => {
  const rule = await request(apis[0]!.baseUrl, 'POST', '/api/v1/repos/alice/widget/branch_protections', alice, {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  });
  t.equal(rule.status, 201, rule.text);
  t.teardown(() => request(apis[0]!.baseUrl, 'DELETE', '/api/v1/repos/alice/widget/branch_protections/main', alice));
  const index = await openPull(w, 'auto-across', { 'auto-across.txt': 'a\n' });
  const scheduled = await request(apis[0]!.baseUrl, 'POST', mergeUrl(index), alice, { Do: 'merge', merge_when_checks_succeed: true });
  t.equal(scheduled.status, 201, `scheduled: ${scheduled.text}`);
  const head = refOf(w, `refs/pull/${index}/head`)!;
  const status = await request(apis[1]!.baseUrl, 'POST', `/api/v1/repos/alice/widget/statuses/${head}`, alice, { state: 'success', context: 'ci' });
  t.equal(status.status, 201, status.text);
  const merged = async () => (await request(apis[1]!.baseUrl, 'GET', mergeUrl(index), alice)).status === 204;
  t.ok(await waitFor(merged, 30_000, 100), 'the auto-merge fired');
});

t.test('the login throttle holds across API processes', async (t) => {
  const carolToken = await w.tokenHeader('carol');
  const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`carol:${password}`).toString('base64')}` });
  // Five wrong passwords, spread over both processes: in-memory counters would each have seen fewer than five.
  for (let i = 0; i < 5; i++) {
    const res = await request(apis[i % 2]!.baseUrl, 'GET', '/api/v1/user', basic(`wrong-${i}`));
    t.equal(res.status, 401, `wrong password ${i + 1} through API ${i % 2}`);
  }
  for (const api of apis) {
    const locked = await request(api.baseUrl, 'GET', '/api/v1/user', basic(PASSWORD));
    t.equal(locked.status, 429, 'locked in every API process, even for the right password');
    t.ok(Number(locked.headers.get('retry-after')) > 0, 'with Retry-After');
  }
  const token = await request(apis[1]!.baseUrl, 'GET', '/api/v1/user', carolToken);
  t.equal(token.status, 200, 'tokens keep working while password logins are locked');
});

t.test('the repository storage briefly gone: reads answer 503, nothing is written locally, a merge waits and completes', async (t) => {
  const index = await openPull(w, 'storage-gone', { 'storage-gone.txt': 's\n' });
  const before = refOf(w, 'refs/heads/main')!;
  const root = join(w.config.APP_DATA_PATH, 'repositories');
  renameSync(root, `${root}.away`); // as a network mount going away
  let restored = false;
  const restore = () => {
    if (!restored) renameSync(`${root}.away`, root);
    restored = true;
  };
  t.teardown(restore);

  const [branches, files, pull] = await Promise.all([
    request(apis[0]!.baseUrl, 'GET', '/api/v1/repos/alice/widget/branches', alice),
    request(apis[1]!.baseUrl, 'GET', `/api/v1/repos/alice/widget/pulls/${index}/files`, alice),
    request(apis[0]!.baseUrl, 'GET', `/api/v1/repos/alice/widget/pulls/${index}`, alice),
  ]);
  for (const read of [branches, files]) {
    t.equal(read.status, 503, `a git read answers 503: ${read.text}`);
    t.equal(read.json().message, 'the repository storage is unavailable, try again shortly');
    t.equal(read.headers.get('retry-after'), '5');
  }
  t.equal(pull.status, 200, 'what the database answers alone still answers');
  const created = await request(apis[1]!.baseUrl, 'POST', '/api/v1/user/repos', alice, { name: 'while-gone', auto_init: true });
  t.equal(created.status, 503, `no repository is created meanwhile: ${created.text}`);
  t.notOk(existsSync(root), 'and nothing was written where the storage should be');
  const late = await startRole(w.config, 'worker');
  t.equal(await late.exited, 1, 'a process starting meanwhile refuses to');
  t.match(late.stderr(), /is the shared repository storage mounted\?/);

  const answer = request(apis[1]!.baseUrl, 'POST', mergeUrl(index), alice, { Do: 'merge' });
  await new Promise((r) => setTimeout(r, 2000));
  restore();
  const merged = await answer;
  t.equal(merged.status, 200, `the merge asked for meanwhile completes once the storage is back (activity retries): ${merged.text}`);
  await assertMergedOnce(t, index, before);
  t.equal((await request(apis[0]!.baseUrl, 'GET', '/api/v1/repos/alice/widget/branches', alice)).status, 200, 'reads answer again');
});

// The worker is killed in the middle of a merge or an update (journal written, branch moved,
// database written) and a new worker takes over: exactly one merge, and git, refs and rows agree.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullWorld, settledMergeable, type PullWorld } from '../pulls/fixtures.js';
import { baseLog, merge, openPull, refOf } from '../merge/world.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

let w: PullWorld;
let faultsDir: string;
let worker: WorkerProcess | null = null;

t.before(async () => {
  w = await pullWorld(t, { worker: false });
  faultsDir = mkdtempSync(join(tmpdir(), 'pullhost-faults-'));
});
t.teardown(async () => {
  await worker?.stop();
  rmSync(faultsDir, { recursive: true, force: true });
});

async function withCrashAt(point: string, run: () => Promise<void>): Promise<void> {
  await worker?.stop();
  worker = startWorkerProcess(w.config, { PULLHOST_FAULTS: point, PULLHOST_FAULTS_DIR: faultsDir });
  await run();
}

/** Waits for the crashing worker to die, then starts a healthy one that picks the work up. */
async function replaceCrashedWorker(t: Test): Promise<void> {
  const code = await worker!.exited;
  t.equal(code, 137, 'the worker died at the fault point');
  worker = startWorkerProcess(w.config);
}

for (const point of ['merge:after-journal', 'merge:after-ref-update', 'merge:after-record']) {
  t.test(`worker killed at ${point}: exactly one merge`, async (t) => {
    await worker?.stop();
    worker = startWorkerProcess(w.config);
    const branch = `crash-${point.replace(/[^a-z]/g, '-')}`;
    const index = await openPull(w, branch, { [`${branch}.txt`]: 'x\n' });
    const before = refOf(w, 'refs/heads/main')!;
    await withCrashAt(point, async () => {
      const answer = merge(w, index, { do: 'merge' });
      await replaceCrashedWorker(t);
      const res = await answer;
      t.equal(res.statusCode, 200, `the merge request still answers 200: ${res.body}`);
    });
    const added = baseLog(w, `${before}..refs/heads/main`, 50);
    t.equal(added.filter((c) => c.subject.startsWith('Merge pull request')).length, 1, 'one merge commit');
    const row = await w.db('pull_requests').where({ base_repo_id: 1, index }).first();
    t.ok(row.has_merged, 'the pull request is marked merged');
    t.equal(row.merge_commit_sha, refOf(w, 'refs/heads/main'), 'its merge commit is the base branch head');
    t.equal(row.pending_merge_commit, null, 'the journal is cleared');
    const issue = await w.db('issues').where({ id: row.issue_id }).first();
    t.ok(issue.is_closed, 'the issue is closed');
    t.equal((await w.db('comments').where({ issue_id: row.issue_id, type: 'merge_pull' })).length, 1, 'one merge comment');
  });
}

t.test('worker killed while updating the head branch: the update happens once', async (t) => {
  await worker?.stop();
  worker = startWorkerProcess(w.config);
  const index = await openPull(w, 'crash-update', { 'crash-update.txt': 'u\n' });
  await w.pushBranch('main', { 'moved-for-update.txt': 'm\n' }, { from: 'main' });
  const headBefore = refOf(w, 'refs/heads/crash-update')!;
  await withCrashAt('update:after-ref-update', async () => {
    const answer = w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${index}/update`, as: 'alice' });
    await replaceCrashedWorker(t);
    const res = await answer;
    t.equal(res.statusCode, 200, res.body);
  });
  const added = baseLog(w, `${headBefore}..refs/heads/crash-update`, 50).filter((c) => c.subject.startsWith('Merge branch'));
  t.equal(added.length, 1, 'one update merge commit on the head');
  t.equal(refOf(w, `refs/pull/${index}/head`), refOf(w, 'refs/heads/crash-update'), 'the pull request ref agrees with the branch');
});

t.test("worker killed holding an auto-merge's base-move announcement: another worker tells the pull requests waiting", async (t) => {
  await worker?.stop();
  worker = startWorkerProcess(w.config);
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const waiting = await openPull(w, 'held-waiting', { 'held.txt': 'waiting\n' });
  const clash = await openPull(w, 'held-clash', { 'held.txt': 'clash\n' });
  t.equal(await settledMergeable(w, waiting, true, 30_000), true, 'the waiting pull request is mergeable');
  t.equal((await merge(w, clash, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201, 'an auto-merge is scheduled');
  // The auto-merge's announcement is held until main is quiet (core/pulls/landing/when-quiet.ts): the worker dies then.
  await withCrashAt('announce:holding', async () => {
    const green = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${refOf(w, `refs/pull/${clash}/head`)}`, as: 'alice', body: { state: 'success', context: 'ci' } });
    t.equal(green.statusCode, 201, green.body);
    await replaceCrashedWorker(t);
  });
  // The merged run's workflow task times out and runs again on the new worker: the merge from its
  // journal, then the announcement.
  t.equal(await settledMergeable(w, waiting, false, 120_000), false, 'told: the waiting pull request now conflicts with main');
  const row = await w.db('pull_requests').where({ base_repo_id: 1, index: clash }).first();
  t.ok(row.has_merged, 'the auto-merge landed');
  t.equal((await w.db('comments').where({ issue_id: row.issue_id, type: 'merge_pull' })).length, 1, 'once');
});

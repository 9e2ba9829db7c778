// A pull request's local activities (its merge, an auto-merge's base-move announcement) failing:
// a worker asked to stop while one keeps failing stops within seconds, the next worker finishes
// it, and a failure for good answers the operation or is logged, never failing the pull request's
// workflow run.
import t, { type Test } from 'tap';
import { pullWorld, settledMergeable, type PullWorld } from '../pulls/fixtures.js';
import { merge, openPull, pullWorkflowHandle, turnGreen, waitFor } from '../merge/world.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

let w: PullWorld;
let worker: WorkerProcess | null = null;
let protectedMain = false;

t.before(async () => {
  w = await pullWorld(t, { worker: false });
  // Registered after the world, so it runs first: the worker stops before its database is dropped.
  t.teardown(async () => { await worker?.stop(); });
});

async function restartWorker(failing?: string): Promise<WorkerProcess> {
  await worker?.stop();
  worker = startWorkerProcess(w.config, failing ? { PULLHOST_FAILING: failing } : {});
  return worker;
}

/** Milliseconds until the worker has stopped once asked to (SIGTERM), with its exit code. */
async function stopTimed(process: WorkerProcess): Promise<{ ms: number; code: number | null }> {
  const started = Date.now();
  await process.stop();
  return { ms: Date.now() - started, code: await process.exited };
}

const hasMerged = async (index: number) => Boolean((await w.db('pull_requests').where({ base_repo_id: 1, index }).first()).has_merged);

/** Main protected by a required `ci` status; `clash` auto-merged on a green status, conflicting with `waiting`. */
async function autoMergeOverWaiting(t: Test, name: string): Promise<{ waiting: number; clash: number }> {
  if (!protectedMain) {
    const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
      rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
    } });
    t.equal(rule.statusCode, 201, rule.body);
    protectedMain = true;
  }
  const waiting = await openPull(w, `${name}-waiting`, { [`${name}.txt`]: 'waiting\n' });
  const clash = await openPull(w, `${name}-clash`, { [`${name}.txt`]: 'clash\n' });
  t.equal(await settledMergeable(w, waiting, true, 60_000), true, 'the waiting pull request is mergeable');
  t.equal((await merge(w, clash, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201, 'an auto-merge is scheduled');
  t.same(await turnGreen(w, [clash]), [201], 'its check turns green');
  t.ok(await waitFor(() => hasMerged(clash), 60_000, 200), 'the auto-merge landed');
  return { waiting, clash };
}

t.test("a worker stopping while an auto-merge's announcement keeps failing stops promptly; the next one announces", async (t) => {
  const failing = await restartWorker('announce:after-hold');
  const { waiting } = await autoMergeOverWaiting(t, 'stop');
  // Past the quiet second its announcement holds for, into its failing attempts.
  await new Promise((r) => setTimeout(r, 3_000));
  t.match(failing.output(), /"activityType":"announceBranchMoved"[^\n]*"msg":"Activity failed"/, 'the announcement failed in that worker');

  // Retried inside the worker, the twenty attempts' backoff (up to 10 s each) held its stop for
  // about two and a half minutes; now the retries beyond the first few seconds wait on a timer.
  const stopped = await stopTimed(failing);
  t.equal(stopped.code, 0, `the worker exited cleanly: ${failing.output().slice(-2000)}`);
  t.ok(stopped.ms < 30_000, `the worker stopped in ${stopped.ms} ms (an in-worker retry loop held it for minutes)`);

  await restartWorker();
  t.equal(await settledMergeable(w, waiting, false, 120_000), false, 'the next worker announced: the waiting pull request now conflicts with main');
});

t.test("an auto-merge's announcement failing for good (a full disk) is logged; the pull request's run still completes", async (t) => {
  const failing = await restartWorker('announce:after-hold=ENOSPC');
  const { clash } = await autoMergeOverWaiting(t, 'full');
  const run = await pullWorkflowHandle(w, clash);
  let status = '';
  await waitFor(async () => (status = (await run.describe()).status.name) !== 'RUNNING', 60_000, 250);
  t.equal(status, 'COMPLETED', 'the merged run completed (a local activity failing for good failed it)');
  // Workflow code logs through a sink, called once its activation has completed, and the line then
  // crosses the worker's stdout: it may arrive just after the run shows completed.
  await waitFor(async () => /branch move not announced/.test(failing.output()), 10_000);
  t.match(failing.output(), /branch move not announced/, 'the unannounced move is logged');
});

t.test('a merge failing for good in its local activity answers with its status; the run goes on and merges later', async (t) => {
  await restartWorker('merge:before-commit=ENOSPC');
  const index = await openPull(w, 'full-merge', { 'full-merge.txt': 'f\n' });
  t.same(await turnGreen(w, [index]), [201], 'its check turns green');
  const refused = await merge(w, index, { do: 'merge' });
  t.equal(refused.statusCode, 507, `a full disk answers 507: ${refused.body}`);
  t.match(refused.json(), { message: /storage is full/ }, "in Gitea's error shape");
  t.equal((await (await pullWorkflowHandle(w, index)).describe()).status.name, 'RUNNING', "the pull request's run goes on");
  t.notOk(await hasMerged(index), 'nothing merged');

  await restartWorker();
  const merged = await merge(w, index, { do: 'merge' });
  t.equal(merged.statusCode, 200, `merged once the disk has room: ${merged.body}`);
  t.ok(await hasMerged(index), 'the pull request is merged');
});

t.test("an auto-merge's merge failing for good leaves it scheduled and the run going; it lands on its next event", async (t) => {
  const failing = await restartWorker('merge:before-commit=ENOSPC');
  const index = await openPull(w, 'full-auto', { 'full-auto.txt': 'a\n' });
  const pull = await w.db('pull_requests').where({ base_repo_id: 1, index }).first();
  t.equal((await merge(w, index, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201, 'an auto-merge is scheduled');
  t.same(await turnGreen(w, [index]), [201], 'its check turns green');
  // Thrown past the merge's own handling of a full disk (core/pulls/merge.ts gitFailure), the
  // failure reaches the run, which logs the attempt as failed.
  const attemptFailed = /"operation":"auto-merge attempt"[^\n]*"status":507/;
  await waitFor(async () => attemptFailed.test(failing.output()), 60_000, 250);
  t.match(failing.output(), attemptFailed, 'the attempt failed with 507');
  t.equal((await (await pullWorkflowHandle(w, index)).describe()).status.name, 'RUNNING', "the pull request's run goes on (it failed)");
  t.ok(await w.db('pull_auto_merges').where({ pull_id: pull.id }).first('id'), 'the auto-merge is still scheduled');
  t.notOk(await hasMerged(index), 'nothing merged');

  await restartWorker();
  t.same(await turnGreen(w, [index]), [201], 'its check is posted again');
  t.ok(await waitFor(() => hasMerged(index), 60_000, 250), 'the auto-merge landed once the disk had room');
});

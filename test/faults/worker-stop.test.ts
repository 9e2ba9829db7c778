// A worker asked to stop while an auto-merge's base-move announcement keeps failing (its database
// or storage down, say) stops within seconds: the announcement's retries wait on a workflow timer,
// not inside the stopping worker, and the next worker makes it.
import t from 'tap';
import { pullWorld, settledMergeable, type PullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf } from '../merge/world.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

let w: PullWorld;
let worker: WorkerProcess | null = null;

t.before(async () => {
  w = await pullWorld(t, { worker: false });
  // Registered after the world, so it runs first: the worker stops before its database is dropped.
  t.teardown(async () => { await worker?.stop(); });
});

/** Milliseconds until the worker has stopped once asked to (SIGTERM), with its exit code. */
async function stopTimed(process: WorkerProcess): Promise<{ ms: number; code: number | null }> {
  const started = Date.now();
  await process.stop();
  return { ms: Date.now() - started, code: await process.exited };
}

t.test("a worker stopping while an auto-merge's announcement keeps failing stops promptly; the next one announces", async (t) => {
  worker = startWorkerProcess(w.config, { PULLHOST_FAILING: 'announce:after-hold' });
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const waiting = await openPull(w, 'stop-waiting', { 'stop.txt': 'waiting\n' });
  const clash = await openPull(w, 'stop-clash', { 'stop.txt': 'clash\n' });
  t.equal(await settledMergeable(w, waiting, true, 60_000), true, 'the waiting pull request is mergeable');
  t.equal((await merge(w, clash, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201, 'an auto-merge is scheduled');
  const green = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${refOf(w, `refs/pull/${clash}/head`)}`, as: 'alice', body: { state: 'success', context: 'ci' } });
  t.equal(green.statusCode, 201, green.body);

  const merged = async () => Boolean((await w.db('pull_requests').where({ base_repo_id: 1, index: clash }).first()).has_merged);
  const deadline = Date.now() + 60_000;
  while (!(await merged()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  t.ok(await merged(), 'the auto-merge landed');
  // Past the quiet second its announcement holds for, into its failing attempts.
  await new Promise((r) => setTimeout(r, 3_000));
  t.match(worker.output(), /"activityType":"announceBranchMoved"[^\n]*"msg":"Activity failed"/, 'the announcement failed in that worker');

  // Retried inside the worker, the twenty attempts' backoff (up to 10 s each) held its stop for
  // about two and a half minutes; now the retries beyond the first few seconds wait on a timer.
  const stopped = await stopTimed(worker);
  t.equal(stopped.code, 0, `the worker exited cleanly: ${worker.output().slice(-2000)}`);
  t.ok(stopped.ms < 30_000, `the worker stopped in ${stopped.ms} ms (an in-worker retry loop held it for minutes)`);

  worker = startWorkerProcess(w.config);
  t.equal(await settledMergeable(w, waiting, false, 120_000), false, 'the next worker announced: the waiting pull request now conflicts with main');
});

// Base moves nobody announced (a process died before its announcement, which waits for the base to
// be quiet, or between a push and its signals) are told by the next worker's start: an open pull
// request whose stored check is of another base commit checks again.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { pullWorld, settledMergeable } from '../pulls/fixtures.js';
import { openPull, refOf, widgetRepoId } from './world.js';
import { repoDiskPath } from '../../core/repositories.js';
import { recheckStaleMergeability } from '../../core/pulls/stale-checks.js';
import { loadSecretKey } from '../../app/secret.js';
import { startTemporalWorker } from '../../workers/temporal-worker.js';

t.test("a worker's start tells the open pull requests whose base moved untold", async (t) => {
  const w = await pullWorld(t);
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const a = await openPull(w, 'stale-a', { 'a.txt': 'from a\n' });
  const b = await openPull(w, 'stale-b', { 'b.txt': 'from b\n' });
  t.equal(await settledMergeable(w, a, true), true, 'a is mergeable');
  t.equal(await settledMergeable(w, b, true), true, 'b is mergeable');

  // main moves under a behind the service's back: pushed to another branch, then moved in the
  // bare repository by git alone, so no announcement is made.
  const clash = await w.pushBranch('stale-clash', { 'a.txt': 'from main\n' });
  execFileSync('git', ['--git-dir', path, 'update-ref', 'refs/heads/main', clash]);
  t.equal(refOf(w, 'refs/heads/main'), clash, 'main moved');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.equal(await settledMergeable(w, a, true, 200), true, 'nobody told a: it still says mergeable');

  // The running worker stops; another starts on the same queue and tells them.
  await w.worker!.shutdown();
  const restarted = await startTemporalWorker({
    address: w.config.TEMPORAL_ADDRESS, namespace: w.config.TEMPORAL_NAMESPACE, taskQueue: w.config.TEMPORAL_TASK_QUEUE,
  }, { db: w.db, config: w.config, secretKey: loadSecretKey(w.config.SECRET_KEY, w.dataDir) });
  try {
    t.equal(await settledMergeable(w, a, false, 15_000), false, 'a checked again against the new main: a conflict');
    t.equal(await settledMergeable(w, b, true), true, 'b checked again: still mergeable');
    const repoId = await widgetRepoId(w);
    const checkedB = async () => (await w.db('pull_requests').where({ base_repo_id: repoId, index: b }).first('checked_base')).checked_base;
    for (let i = 0; i < 100 && (await checkedB()) !== clash; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    t.equal(await checkedB(), clash, "b's stored check is of the new main");

    // Once checked, nothing is stale: the next start tells nobody.
    const again = await recheckStaleMergeability(w.db, w.config, w.pullWorkflows);
    t.same(again.basesMoved, [], 'nobody is told twice');
    t.same(again.problems, [], 'without problems');
  } finally {
    await restarted.shutdown();
  }
});

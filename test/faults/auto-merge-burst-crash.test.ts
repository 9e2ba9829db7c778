// The worker is killed a third of the way through a burst of 200 auto-merges landing into one
// base (chains in flight, journals written, the base moved, merges not yet recorded) and a new
// worker takes over: every pull request lands exactly once, none is lost, the base has exactly
// 200 merge commits (issue #24).
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { assertLandedOnce, mainMerges, mergedCount, scheduledBurst, turnGreen, waitFor } from '../merge/world.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

const N = 200;

t.test(`worker killed a third of the way through a burst of ${N} auto-merges: each lands exactly once`, async (t) => {
  const w = await pullWorld(t, { worker: false });
  let worker: WorkerProcess = startWorkerProcess(w.config);
  t.teardown(() => worker.stop());
  const indexes = await scheduledBurst(w, N, 'crash-burst');
  const before = mainMerges(w);

  const green = turnGreen(w, indexes);
  t.ok(await waitFor(async () => (await mergedCount(w)) >= N / 3, 120_000, 20), 'a third merged');
  worker.child.kill('SIGKILL');
  t.equal(await worker.exited, 137, 'the worker was killed');
  const atKill = await mergedCount(w);
  t.ok(atKill < N, `killed mid-burst (${atKill} of ${N} merged)`);
  worker = startWorkerProcess(w.config);
  t.ok((await green).every((s) => s === 201), 'every status recorded');
  t.ok(await waitFor(async () => (await mergedCount(w)) === N, 240_000, 200), `all ${N} merged after the new worker took over`);
  await assertLandedOnce(t, w, 'crash-burst', N, before);
});

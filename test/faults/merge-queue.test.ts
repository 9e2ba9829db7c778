// The merge queue survives its worker dying while it lands (after the base moved, and again after
// the first entry was marked merged) and a Temporal restart while entries wait: every entry lands
// exactly once, in order, and git and the rows agree.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { startDevServer, type DevServer } from '../../app/temporal-dev-server.js';
import { temporalCliPath } from '../../app/paths.js';
import { freePort } from '../helper.js';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { openPull, refOf, waitFor } from '../merge/world.js';
import { ciState, enableQueue, firstParents, join, simulateCi } from '../merge-queue/world.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

/** Every entry merged exactly once, in queue order, each base commit green. */
async function landedOnce(t: Test, w: PullWorld, start: string, pulls: number[]): Promise<void> {
  const landed = firstParents(w, start);
  t.equal(landed.length, pulls.length, 'one base commit per entry: nothing landed twice');
  for (const [i, index] of pulls.entries()) {
    const row = await w.db('pull_requests').where({ base_repo_id: 1, index }).first();
    t.ok(row.has_merged, `#${index} is merged`);
    t.equal(row.merge_commit_sha, landed[i], `#${index} landed in queue order`);
    t.equal(row.pending_merge_commit, null, `#${index}'s journal is cleared`);
    t.equal((await w.db('comments').where({ issue_id: row.issue_id, type: 'merge_pull' })).length, 1, `#${index} has one merge comment`);
    t.equal(await ciState(w, landed[i]!), 'success', `base commit ${i + 1} is green`);
  }
  t.equal((await w.db('merge_queue_entries')).length, 0, 'no entry is left behind');
}

t.test('a worker killed while landing, twice: nothing lost, nothing landed twice', async (t) => {
  const w = await pullWorld(t, { worker: false });
  const faultsDir = mkdtempSync(pathJoin(tmpdir(), 'pullhost-queue-faults-'));
  const faults = { PULLHOST_FAULTS: 'queue:after-land,queue:after-mark', PULLHOST_FAULTS_DIR: faultsDir };
  let worker: WorkerProcess = startWorkerProcess(w.config, faults);
  t.teardown(async () => {
    await worker.stop();
    rmSync(faultsDir, { recursive: true, force: true });
  });
  t.equal((await enableQueue(w, { depth: 2 })).statusCode, 201);
  const start = refOf(w, 'refs/heads/main')!;
  const pulls: number[] = [];
  for (let i = 1; i <= 3; i++) pulls.push(await openPull(w, `k${i}`, { [`k${i}.txt`]: `${i}\n` }));
  for (const p of pulls) t.equal((await join(w, p)).statusCode, 201);
  const ci = simulateCi(w, { delayMs: 100 });
  t.teardown(() => ci.stop());
  t.equal(await worker.exited, 137, 'the worker died after moving the base');
  worker = startWorkerProcess(w.config, faults);
  t.equal(await worker.exited, 137, 'the next one died after marking the first entry merged');
  worker = startWorkerProcess(w.config);
  const all = async () => (await w.db('pull_requests').whereIn('index', pulls).where({ has_merged: true })).length === pulls.length;
  t.ok(await waitFor(all, 90_000, 250), 'every entry lands');
  t.ok(await waitFor(async () => (await w.db('merge_queue_entries')).length === 0, 20_000), 'the queue empties');
  await ci.stop();
  await landedOnce(t, w, start, pulls);
});

t.test('a Temporal restart while entries wait loses none of them', async (t) => {
  const dir = mkdtempSync(pathJoin(tmpdir(), 'pullhost-queue-temporal-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const startServer = () => startDevServer({ cliPath: temporalCliPath(''), dbFile: pathJoin(dir, 'temporal.db'), port, uiPort });
  let dev: DevServer = await startServer();
  t.teardown(async () => {
    await dev.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const w = await pullWorld(t, { temporalAddress: dev.address });
  t.equal((await enableQueue(w, { depth: 2 })).statusCode, 201);
  const start = refOf(w, 'refs/heads/main')!;
  const pulls: number[] = [];
  for (let i = 1; i <= 3; i++) pulls.push(await openPull(w, `r${i}`, { [`r${i}.txt`]: `${i}\n` }));
  for (const p of pulls) t.equal((await join(w, p)).statusCode, 201);

  await dev.stop();
  dev = await startServer();

  const ci = simulateCi(w, { delayMs: 100 });
  t.teardown(() => ci.stop());
  const all = async () => (await w.db('pull_requests').whereIn('index', pulls).where({ has_merged: true })).length === pulls.length;
  t.ok(await waitFor(all, 90_000, 250), 'every entry lands after the restart');
  t.ok(await waitFor(async () => (await w.db('merge_queue_entries')).length === 0, 20_000), 'the queue empties');
  await ci.stop();
  await landedOnce(t, w, start, pulls);
});

// A signal the service does not handle stops nothing: the Temporal SDK's own handlers used to stop
// the worker on SIGUSR2 (and SIGQUIT) while the process went on, so an operator taking a heap
// snapshot with Node's `--heapsnapshot-signal=SIGUSR2` left pull requests that never merged.
import t from 'tap';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf } from '../merge/world.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

let w: PullWorld;
let snapshots: string;
let worker: WorkerProcess;

t.before(async () => {
  w = await pullWorld(t, { worker: false });
  snapshots = mkdtempSync(join(tmpdir(), 'pullhost-snapshots-'));
  worker = startWorkerProcess(w.config, { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` });
});
t.teardown(async () => {
  await worker?.stop();
  rmSync(snapshots, { recursive: true, force: true });
});

async function until(what: string, done: () => boolean, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline || worker.child.exitCode !== null) throw new Error(`${what}: not so after ${ms} ms; worker output: ${worker.output().slice(-800)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.test('SIGUSR2 takes a heap snapshot and the worker goes on merging', async (t) => {
  await until('the worker is up', () => worker.output().includes('pullhost is up'));
  const index = await openPull(w, 'after-snapshot', { 'after-snapshot.txt': 'x\n' });
  worker.child.kill('SIGUSR2');
  await until('a heap snapshot is written', () => readdirSync(snapshots).some((f) => f.endsWith('.heapsnapshot')));
  // The snapshot is written synchronously by the worker's main thread: a merge now is served after it.
  const res = await merge(w, index, { do: 'merge' });
  t.equal(res.statusCode, 200, `the merge after the signal is done: ${res.body}`);
  const row = await w.db('pull_requests').where({ base_repo_id: 1, index }).first();
  t.ok(row.has_merged, 'the pull request is merged');
  t.equal(row.merge_commit_sha, refOf(w, 'refs/heads/main'), 'by the worker that took the snapshot');
  t.equal(worker.child.exitCode, null, 'the worker process is still running');
});

// A signal the service does not handle stops nothing: the Temporal SDK's own handlers used to stop
// the worker on SIGUSR2 (and SIGQUIT) while the process went on, so an operator taking a heap
// snapshot with Node's `--heapsnapshot-signal=SIGUSR2` left pull requests that never merged.
import t from 'tap';
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
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

/** Whether a heap snapshot is in the directory, whole: V8 ends its JSON with the strings array and the object's brace. */
function snapshotWritten(): boolean {
  const file = readdirSync(snapshots).find((f) => f.endsWith('.heapsnapshot'));
  if (!file) return false;
  const path = join(snapshots, file);
  const size = statSync(path).size;
  if (size < 2) return false;
  const fd = openSync(path, 'r');
  try {
    const tail = Buffer.alloc(2);
    readSync(fd, tail, 0, 2, size - 2);
    return tail.toString() === ']}';
  } finally {
    closeSync(fd);
  }
}

t.test('SIGUSR2 takes a heap snapshot and the worker goes on merging', async (t) => {
  await until('the worker is up', () => worker.output().includes('pullhost is up'));
  const index = await openPull(w, 'after-snapshot', { 'after-snapshot.txt': 'x\n' });
  worker.child.kill('SIGUSR2');
  // The file appears when the snapshot begins; the worker's main thread is busy writing it until its
  // JSON's last bytes are there (several seconds on a slow machine, longer than a merge request waits).
  await until('a heap snapshot is written', snapshotWritten);
  const res = await merge(w, index, { do: 'merge' });
  t.equal(res.statusCode, 200, `the merge after the signal is done: ${res.body}`);
  const row = await w.db('pull_requests').where({ base_repo_id: 1, index }).first();
  t.ok(row.has_merged, 'the pull request is merged');
  t.equal(row.merge_commit_sha, refOf(w, 'refs/heads/main'), 'by the worker that took the snapshot');
  t.equal(worker.child.exitCode, null, 'the worker process is still running');
});

// The service's worker threads (Temporal's workflow thread, the rendering pool) start under the heap
// limits of app/heap-limits.ts: V8 would otherwise size them from the machine's memory.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { limitThreadHeaps } from '../../app/heap-limits.js';

/** Heap size limit, in MiB, of a thread started now without resource limits of its own. */
async function threadHeapLimitMib(): Promise<number> {
  const worker = new Worker("require('node:worker_threads').parentPort.postMessage(require('node:v8').getHeapStatistics().heap_size_limit)", { eval: true });
  const [limit] = (await once(worker, 'message')) as [number];
  await worker.terminate();
  return limit / 1024 / 1024;
}

t.test('threads started after limitThreadHeaps() get the 1,024 MiB old generation', async (t) => {
  t.ok(await threadHeapLimitMib() > 2048, 'before, a thread is sized from the machine');
  limitThreadHeaps();
  const limit = await threadHeapLimitMib();
  // The limit counts the young generation too (three 8 MiB semi-space sized parts at most).
  t.ok(limit >= 1024 && limit <= 1024 + 64, `a new thread's heap limit is ${limit.toFixed(0)} MiB`);
});

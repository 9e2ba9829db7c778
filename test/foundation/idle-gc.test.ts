// One collection per quiet period after work (requests, or a worker's activities), none while idle
// without work: on the real HTTP server and Temporal worker; and the worker threads' heaps collected
// after their own, shorter quiet period.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { pingUpdate } from '../../workflows/pull-messages.js';
import { idleCollections, idleThreadCollections, noteWork, startIdleCollection } from '../../app/idle-gc.js';
import { startTestServices } from '../helper.js';

t.test('a quiet period after requests collects once; further quiet time without requests does not', async (t) => {
  const { app } = await startTestServices(t, { env: { IDLE_GC_SECONDS: '1' } });
  const before = idleCollections();
  for (let i = 0; i < 20; i++) t.equal((await app.inject('/api/v1/version')).statusCode, 200);
  await new Promise((r) => setTimeout(r, 2500));
  t.equal(idleCollections(), before + 1, 'collected once the requests stopped');
  await new Promise((r) => setTimeout(r, 2000));
  t.equal(idleCollections(), before + 1, 'nothing more to give back without new work');
  await app.inject('/api/v1/version');
  await new Promise((r) => setTimeout(r, 2500));
  t.equal(idleCollections(), before + 2, 'the next quiet period after work collects again');
});

t.test('a worker\'s activities are work too: the quiet period after them collects', async (t) => {
  const { pullWorkflows } = await startTestServices(t, { dbType: 'sqlite3', temporal: true, env: { IDLE_GC_SECONDS: '1' } });
  await new Promise((r) => setTimeout(r, 2500)); // the start-up's own work collected
  const before = idleCollections();
  // No HTTP request: the ping's workflow runs its activities (the pull request's summary) in this process.
  const outcome = await pullWorkflows!.execute({ repoId: 9_999, index: 1 }, pingUpdate, [{ requestId: 'idle-gc' }], randomUUID());
  t.ok(outcome.status < 500, `the workflow answered (${outcome.status})`);
  await new Promise((r) => setTimeout(r, 2500));
  t.equal(idleCollections(), before + 1, 'collected once the activities stopped');
});

t.test('a worker thread\'s garbage is collected a second after the work stops', async (t) => {
  startIdleCollection(1); // as the tests above started it (idempotent)
  // A thread that promotes some 50 MiB of objects to its old generation, drops them, and idles: V8
  // collects only when it allocates, so without a collection sent to it they stay.
  const thread = new Worker(`
    const { parentPort } = require('node:worker_threads');
    let kept = [];
    for (let i = 0; i < 100; i++) kept.push(Array.from({ length: 20000 }, (_, j) => ({ i, j })));
    kept = null;
    parentPort.postMessage('dropped');
    setInterval(() => {}, 1000);
  `, { eval: true });
  t.teardown(() => thread.terminate());
  await once(thread, 'message');
  const mib = (n: number) => Math.round(n / 1048576);
  const before = await thread.getHeapStatistics();
  t.ok(before.used_heap_size > 30 * 1048576, `the thread holds its garbage (${mib(before.used_heap_size)} MiB used)`);
  const collected = idleThreadCollections();
  noteWork();
  await new Promise((r) => setTimeout(r, 2500));
  t.equal(idleThreadCollections(), collected + 1, 'one collection of the threads once the work stopped');
  const after = await thread.getHeapStatistics();
  t.ok(after.used_heap_size < 10 * 1048576, `its garbage is gone (${mib(before.used_heap_size)} → ${mib(after.used_heap_size)} MiB used)`);
  t.ok(after.total_heap_size < before.total_heap_size / 2, `and its heap is given back (${mib(before.total_heap_size)} → ${mib(after.total_heap_size)} MiB)`);
});

// One collection per quiet period after work (requests, or a worker's activities), none while idle
// without work: on the real HTTP server and Temporal worker.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { pingUpdate } from '../../workflows/pull-messages.js';
import { idleCollections } from '../../app/idle-gc.js';
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

// One collection per quiet period after work, none while idle without work: on the real HTTP server.
import t from 'tap';
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

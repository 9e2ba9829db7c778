// Property: every route, sent generated path segments and query strings (with real and hostile
// identities), never answers 5xx, answers errors in Gitea's shape, and changes nothing when it
// rejects the request; the server still answers afterwards.
import t from 'tap';
import { hostileWorld } from './world.js';
import { probeEveryRoute } from './probe.js';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 12);
const SEED = Number(process.env.HOSTILE_SEED ?? 20261122);

t.test('hostile path segments and query strings on every route', async (t) => {
  const w = await hostileWorld(t);
  t.ok(w.routes.length > 40, `the API document lists the routes (${w.routes.length})`);
  await probeEveryRoute(t, w, { body: false, headers: false }, RUNS, SEED);
});

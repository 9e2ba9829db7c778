// Property: every route, sent generated bodies (wrong types, huge numbers, nested JSON, raw bytes),
// content types and headers (garbage Authorization, Sudo), never answers 5xx, answers errors in
// Gitea's shape, and changes nothing when it rejects the request; the server still answers.
import t from 'tap';
import { hostileWorld } from './world.js';
import { probeEveryRoute } from './probe.js';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 12);
const SEED = Number(process.env.HOSTILE_SEED ?? 20261123);

t.test('hostile bodies and headers on every route', async (t) => {
  const w = await hostileWorld(t);
  await probeEveryRoute(t, w, { body: true, headers: true }, RUNS, SEED);
});

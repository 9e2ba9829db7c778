// Property: every route, sent generated bodies (wrong types, huge numbers, nested JSON, raw bytes),
// content types and headers (garbage Authorization, Sudo), never answers 5xx, answers errors in
// Gitea's shape, and changes nothing when it rejects the request; the server still answers.
import t from 'tap';
import { hostileWorld } from './world.js';
import { newLog, probeRoute } from './probe.js';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 12);
const SEED = Number(process.env.HOSTILE_SEED ?? 20261123);

t.test('hostile bodies and headers on every route', async (t) => {
  const w = await hostileWorld(t);
  const log = newLog();
  for (const [i, route] of w.routes.entries()) await probeRoute(w, route, { body: true, headers: true }, RUNS, log, SEED + i);
  t.comment(`${log.requests} requests, ${log.rejected} rejected; statuses ${JSON.stringify(Object.fromEntries(log.statuses))}`);
  t.same(log.problems, [], 'no 5xx, Gitea-shaped errors, no change after a rejection');
  const health = await w.app.inject('/api/healthz');
  t.equal(health.statusCode, 200, 'the server still answers');
  const me = await w.app.inject({ url: '/api/v1/user', headers: { authorization: `token ${w.tokens.alice}` } });
  t.equal(me.statusCode, 200, 'the token in use survived the batch');
});

// Racing mode: every route, sent one generated request (path, query, body, headers) 20 times at
// once, never answers 5xx and answers errors in Gitea's shape; the server still answers afterwards.
// (Unique names created twice, rows deleted twice, tokens and sessions used at once.)
import t from 'tap';
import { hostileWorld } from './world.js';
import { newLog, raceRoute } from './probe.js';

const RUNS = Number(process.env.HOSTILE_RACE_RUNS ?? 2);
const COPIES = 20;
const SEED = Number(process.env.HOSTILE_SEED ?? 20261125);

t.test('the same hostile request 20 times at once on every route', async (t) => {
  const w = await hostileWorld(t);
  const log = newLog();
  for (const [i, route] of w.routes.entries()) await raceRoute(w, route, { body: true, headers: true }, RUNS, COPIES, log, SEED + i);
  t.comment(`${log.requests} requests, ${log.rejected} rejected; statuses ${JSON.stringify(Object.fromEntries(log.statuses))}`);
  t.same(log.problems, [], 'no 5xx, Gitea-shaped errors');
  const health = await w.app.inject('/api/healthz');
  t.equal(health.statusCode, 200, 'the server still answers');
});

// GET /metrics: protected as Gitea protects it, Prometheus text that parses, request series keyed by
// route pattern (never the raw URL), pool and database figures, and workflow operations by outcome.
import t from 'tap';
import { startTestServices } from '../helper.js';
import { pullWorld } from '../pulls/fixtures.js';

/** Every sample line must be `name{labels} value`; histogram buckets must not decrease. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    samples.set(m[1], Number(m[2]));
  }
  return samples;
}

t.test('without a token or ENABLE_METRICS the endpoint does not exist', async (t) => {
  const s = await startTestServices(t, { dbType: 'sqlite3' });
  const res = await s.app.inject('/metrics');
  t.equal(res.statusCode, 404);
  t.match(res.json(), { message: String, url: String });
});

t.test('ENABLE_METRICS serves it openly, with route patterns and pool figures', async (t) => {
  const s = await startTestServices(t, { dbType: 'sqlite3', env: { ENABLE_METRICS: 'true' } });
  for (const name of ['nobody-1', 'nobody-2', 'nobody-3']) t.equal((await s.app.inject(`/api/v1/repos/${name}/x`)).statusCode, 404);
  await s.app.inject({ method: 'POST', url: '/api/v1/markdown', payload: { text: '# hi' } });
  const res = await s.app.inject('/metrics');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  const samples = parseExposition(res.body);
  t.equal(samples.get('pullhost_http_requests_total{route="/api/v1/repos/:owner/:repo",method="GET",status="404"}'), 3, 'one series for the pattern');
  t.notMatch(res.body, /nobody-1/, 'the raw URL never becomes a label');
  t.equal(samples.get('pullhost_http_requests_total{route="/api/v1/markdown",method="POST",status="200"}'), 1);
  const buckets = [...samples].filter(([k]) => k.startsWith('pullhost_http_request_duration_seconds_bucket{route="/api/v1/repos/:owner/:repo"'));
  t.equal(buckets.length, 12, 'eleven buckets and +Inf');
  t.same(buckets.map(([, v]) => v), [...buckets.map(([, v]) => v)].sort((a, b) => a - b), 'cumulative buckets');
  t.equal(buckets.at(-1)?.[1], 3);
  t.equal(samples.get('pullhost_http_request_duration_seconds_count{route="/api/v1/repos/:owner/:repo",method="GET",status="404"}'), 3);
  t.ok(samples.has('pullhost_pool_queue_depth'), 'pool queue depth');
  t.ok(samples.has('pullhost_pool_tasks_completed_total'), 'pool task count');
  t.ok(samples.has('pullhost_pool_task_run_time_p99_seconds'));
  t.ok(samples.has('pullhost_db_pool_connections{state="used"}'), 'database pool use');
  // Memory: the resident figure holds the main thread's heap and more (threads' heaps, native memory).
  const resident = samples.get('process_resident_memory_bytes') ?? 0;
  const heapTotal = samples.get('nodejs_heap_size_total_bytes') ?? 0;
  const heapUsed = samples.get('nodejs_heap_size_used_bytes') ?? 0;
  t.ok(heapUsed > 0 && heapUsed <= heapTotal && heapTotal < resident, `resident ${resident} > heap ${heapTotal} >= used ${heapUsed} > 0`);
  t.ok((samples.get('nodejs_external_memory_bytes') ?? -1) >= 0, 'external memory');
  // A repository lookup goes straight through the driver (db/hot-query.ts): counted all the same.
  const statements = () => s.app.inject('/metrics').then((r) => parseExposition(r.body).get('pullhost_db_statements_total') ?? 0);
  const before = await statements();
  t.equal((await s.app.inject('/api/v1/repos/nobody-4/x')).statusCode, 404);
  t.ok((await statements()) > before, 'statements sent to the database are counted');
});

t.test('METRICS_TOKEN requires the bearer token; pull request operations are counted', async (t) => {
  const w = await pullWorld(t, { env: { METRICS_TOKEN: 'metrics-s3cret' } });
  for (const authorization of [undefined, 'Bearer wrong', 'bearer metrics-s3cret', 'token metrics-s3cret', 'Bearer metrics-s3cret ']) {
    const res = await w.app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} });
    t.equal(res.statusCode, 401, `refused: ${authorization}`);
    t.match(res.json(), { message: String, url: String });
  }
  await w.pushBranch('counted', { 'counted.txt': 'x\n' });
  t.equal((await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'counted', base: 'main', title: 'Counted' } })).statusCode, 201);
  let merged = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls/1/merge', as: 'alice', body: { Do: 'merge' } });
  for (let i = 0; i < 20 && merged.statusCode === 405; i++) {
    // The mergeability check may still be running.
    await new Promise((r) => setTimeout(r, 250));
    merged = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls/1/merge', as: 'alice', body: { Do: 'merge' } });
  }
  t.equal(merged.statusCode, 200, merged.body);
  const res = await w.app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-s3cret' } });
  t.equal(res.statusCode, 200);
  const samples = parseExposition(res.body);
  t.ok((samples.get('pullhost_workflow_operations_total{kind="merge",outcome="200"}') ?? 0) >= 1, 'the merge is counted with its outcome');
  t.equal(samples.get('pullhost_http_requests_total{route="/metrics",method="GET",status="401"}'), 5);
});

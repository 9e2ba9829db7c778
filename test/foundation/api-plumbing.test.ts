import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { readPaging, setPageCountHeaders, setPagingHeaders } from '../../api/paging.js';
import Type from 'typebox';
import { startTestServices } from '../helper.js';

t.test('health, version, settings and the OpenAPI document', async (t) => {
  const { app } = await startTestServices(t);
  const health = await app.inject('/api/healthz');
  t.equal(health.statusCode, 200);
  t.match(health.json(), { status: 'pass', description: String, checks: { 'database:ping': [{ status: 'pass' }] } });
  t.ok(health.headers['x-request-id'], 'every answer carries the request id');

  const version = await app.inject('/api/v1/version');
  t.match(version.json(), { version: /^\d+\.\d+\.\d+/ });

  const settings = await app.inject('/api/v1/settings/api');
  t.same(settings.json(), { max_response_items: 50, default_paging_num: 30, default_git_trees_per_page: 1000, default_max_blob_size: 10485760, default_max_response_size: 104857600 });

  const doc = await app.inject('/swagger.v1.json');
  t.equal(doc.statusCode, 200);
  const spec = doc.json();
  t.equal(spec.swagger, '2.0');
  t.equal(spec.basePath, '/api/v1');
  t.equal(spec.paths['/version']?.get?.operationId, 'getVersion', 'routes appear in the document, relative to basePath');

  const ui = await app.inject('/api/swagger');
  t.ok([200, 302].includes(ui.statusCode), 'the Swagger UI answers');
  const redirect = await app.inject('/api/v1/swagger');
  t.equal(redirect.statusCode, 303);
});

t.test('unknown routes, bad JSON and oversized bodies answer in Gitea\'s error shape', async (t) => {
  const echo = async (app: FastifyInstance) => {
    app.post('/api/v1/test-echo', { schema: { operationId: 'testEcho', tags: ['test'], body: Type.Object({ a: Type.Optional(Type.String()) }) } }, async (request) => request.body);
  };
  const { app, config } = await startTestServices(t, { env: { BODY_LIMIT: '2048' }, routes: [echo] });
  const missing = await app.inject('/api/v1/nothing/here');
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), { message: 'not found', url: `${config.APP_URL}api/swagger` });

  const bad = await app.inject({ method: 'POST', url: '/api/v1/test-echo', headers: { 'content-type': 'application/json' }, payload: '{"a":' });
  t.equal(bad.statusCode, 422, 'malformed JSON on a route that reads a body: Gitea\'s binding error');
  t.match(bad.json(), { message: /^\[\]: /, url: String });
  const poisoned = await app.inject({ method: 'POST', url: '/api/v1/test-echo', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1}}' });
  t.equal(poisoned.statusCode, 422, 'a prototype-poisoning body is refused');
  const echoed = await app.inject({ method: 'POST', url: '/api/v1/test-echo', headers: { 'content-type': 'application/json' }, payload: '{"a":"x"}' });
  t.same(echoed.json(), { a: 'x' });

  const big = await app.inject({ method: 'POST', url: '/api/v1/test-echo', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ a: 'x'.repeat(5000) }) });
  t.equal(big.statusCode, 413);
  t.match(big.json(), { message: /larger than the limit of 2048 bytes/, url: String });
});

t.test('swagger is off when ENABLE_SWAGGER is false', async (t) => {
  const { app } = await startTestServices(t, { env: { ENABLE_SWAGGER: 'false' } });
  t.equal((await app.inject('/swagger.v1.json')).statusCode, 404);
  t.equal((await app.inject('/api/swagger')).statusCode, 404);
});

async function pagedApp(t: Test): Promise<FastifyInstance> {
  const routes = async (app: FastifyInstance) => {
  const config = app.services.config;
  app.get('/api/v1/test-items', async (req, reply) => {
    const q = req.query as { page?: string; limit?: string; total?: string };
    const paging = readPaging({ page: q.page ? Number(q.page) : undefined, limit: q.limit ? Number(q.limit) : undefined }, config);
    setPagingHeaders(req, reply, Number(q.total ?? 0), paging, config.APP_URL);
    return paging;
  });
  app.get('/api/v1/test-files', async (req, reply) => {
    const q = req.query as { page?: string; limit?: string; total?: string };
    const paging = readPaging({ page: q.page ? Number(q.page) : undefined, limit: q.limit ? Number(q.limit) : undefined }, config);
    setPageCountHeaders(req, reply, Number(q.total ?? 0), paging, config.APP_URL);
    return paging;
  });
  };
  const { app } = await startTestServices(t, { routes: [routes] });
  return app;
}

t.test('paging: defaults, clamping and Link exactly as Gitea writes it', async (t) => {
  const app = await pagedApp(t);
  const base = app.services.config.APP_URL;
  t.match((await app.inject('/api/v1/test-items')).json(), { page: 1, limit: 30 });
  t.match((await app.inject('/api/v1/test-items?limit=0&page=-3')).json(), { page: 1, limit: 30 });
  t.match((await app.inject('/api/v1/test-items?limit=1000000000000')).json(), { limit: 50 }, 'limit is clamped to MAX_RESPONSE_ITEMS');

  const middle = await app.inject('/api/v1/test-items?total=50&page=2&limit=10&state=open');
  t.equal(middle.headers['x-total-count'], '50');
  t.equal(middle.headers.link, [
    `<${base}api/v1/test-items?limit=10&page=3&state=open&total=50>; rel="next"`,
    `<${base}api/v1/test-items?limit=10&page=5&state=open&total=50>; rel="last"`,
    `<${base}api/v1/test-items?limit=10&page=1&state=open&total=50>; rel="first"`,
    `<${base}api/v1/test-items?limit=10&page=1&state=open&total=50>; rel="prev"`,
  ].join(','));
  t.equal(middle.headers['access-control-expose-headers'], 'Link, X-Total-Count');

  const single = await app.inject('/api/v1/test-items?total=5&limit=10');
  t.equal(single.headers.link, undefined, 'no Link when there is one page');
  t.equal(single.headers['x-total-count'], '5');

  const last = await app.inject('/api/v1/test-items?total=25&page=3&limit=10');
  t.notMatch(String(last.headers.link), /rel="next"/);
  t.match(String(last.headers.link), /rel="prev"/);
});

t.test('paging: X-Page family for commit and file lists', async (t) => {
  const app = await pagedApp(t);
  const res = await app.inject('/api/v1/test-files?total=45&page=2&limit=20');
  t.equal(res.headers['x-page'], '2');
  t.equal(res.headers['x-perpage'], '20');
  t.equal(res.headers['x-pagecount'], '3');
  t.equal(res.headers['x-hasmore'], 'true');
  t.equal(res.headers['access-control-expose-headers'], 'Link, X-Total-Count, X-PerPage, X-Page, X-PageCount, X-HasMore');
  const end = await app.inject('/api/v1/test-files?total=45&page=3&limit=20');
  t.equal(end.headers['x-hasmore'], 'false');
});

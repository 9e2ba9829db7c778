// The decoding rule (api/decoding.ts, api/plugins/decoding.ts) on routes made for it, through the
// real app: Go's nulls and empty strings, empty and malformed bodies, query values and path ids; and
// a property: injecting Go's zero values for optional fields anywhere in a valid body changes nothing.
import t from 'tap';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { startTestServices } from '../helper.js';
import { firstJsonValue, goParseInt } from '../../api/decoding.js';

const Comment = Type.Object({
  path: Type.String({ minLength: 1 }),
  body: Type.Optional(Type.String()),
  old_position: Type.Optional(Type.Integer()),
  new_position: Type.Optional(Type.Integer()),
});
const Option = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 255 }),
  body: Type.Optional(Type.String()),
  state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
  milestone: Type.Optional(Type.Integer({ minimum: 0 })),
  due_date: Type.Optional(Type.String({ format: 'date-time' })),
  draft: Type.Optional(Type.Boolean()),
  labels: Type.Optional(Type.Array(Type.Integer())),
  color: Type.Optional(Type.String({ pattern: '^#?[0-9a-f]{6}$' })),
  units_map: Type.Optional(Type.Record(Type.String(), Type.String())),
  comments: Type.Optional(Type.Array(Comment)),
  nested: Type.Optional(Type.Object({ name: Type.Optional(Type.String({ minLength: 1 })), note: Type.Optional(Type.String()) })),
}, { title: 'TestDecodingOption' });
const Edit = Type.Object({ ...Option.properties, title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) });

const ListQuery = Type.Object({
  state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')])),
  type: Type.Optional(Type.Union([Type.Literal('issues'), Type.Literal('pulls')])),
  page: Type.Optional(Type.Integer()),
  milestone: Type.Optional(Type.Integer({ minimum: 0 })),
  binary: Type.Optional(Type.Boolean()),
  since: Type.Optional(Type.String({ format: 'date-time' })),
  labels: Type.Optional(Type.Array(Type.String())),
  q: Type.Optional(Type.String()),
});

async function decodingRoutes(app: FastifyInstance): Promise<void> {
  const echo = async (request: { body: unknown; query: unknown; params: unknown }) => ({ body: request.body ?? null, query: request.query, params: request.params });
  app.post('/api/v1/test-decoding', { schema: { operationId: 'testCreate', tags: ['test'], body: Option } }, echo);
  app.patch('/api/v1/test-decoding', { schema: { operationId: 'testEdit', tags: ['test'], body: Edit } }, echo);
  app.delete('/api/v1/test-decoding', { schema: { operationId: 'testDelete', tags: ['test'], body: Type.Optional(Edit) } }, echo);
  app.delete('/api/v1/test-no-body', { schema: { operationId: 'testNoBody', tags: ['test'] } }, async (_request, reply) => reply.code(204).send());
  app.get('/api/v1/test-decoding', { schema: { operationId: 'testList', tags: ['test'], querystring: ListQuery } }, echo);
  app.get('/api/v1/test-ids/:id/items/:name', {
    schema: { operationId: 'testIds', tags: ['test'], params: Type.Object({ id: Type.Integer({ minimum: 1 }), name: Type.String() }) },
  }, echo);
}

t.test('Go\'s primitives', async (t) => {
  const cases: Array<[string, number]> = [
    ['1', 1], ['007', 7], ['+5', 5], ['-3', -3], ['0', 0], ['-0', 0], ['1.0', 0], ['1e3', 0], ['abc', 0], ['', 0], [' 1', 0], ['0x10', 0], ['١', 0],
    ['9223372036854775807', 9223372036854775807], ['99999999999999999999', 9223372036854775807], ['-99999999999999999999', -9223372036854775808],
  ];
  for (const [s, n] of cases) t.equal(goParseInt(s), n, `ParseInt(${JSON.stringify(s)})`);
  t.equal(firstJsonValue('{"a":"}"} trailing'), '{"a":"}"}', 'braces inside strings do not count');
  t.equal(firstJsonValue('  [1,[2]] {"x":1}'), '  [1,[2]]');
  t.equal(firstJsonValue('{"a":"\\"}"} x'), '{"a":"\\"}"}', 'an escaped quote stays in the string');
  t.equal(firstJsonValue('{"a":'), '{"a":', 'an incomplete value is left whole');
});

t.test('the decoding rule on every part of a request', async (t) => {
  const { app } = await startTestServices(t, { routes: [decodingRoutes] });
  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, contentType = 'application/json') => app.inject({
    method, url, ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { 'content-type': contentType } } : {}),
  });
  const body = async (method: 'POST' | 'PATCH' | 'DELETE', payload: unknown) => {
    const res = await send(method, '/api/v1/test-decoding', payload);
    t.equal(res.statusCode, 200, res.body);
    return res.json().body;
  };

  t.test('bodies', async (t) => {
    t.same(await body('POST', {
      title: 'T', body: null, state: null, milestone: null, due_date: null, draft: null, labels: null, color: null, units_map: null, comments: null, nested: null,
    }), { title: 'T' }, 'null on every optional field is not given');
    t.same(await body('POST', { title: 'T', body: '', state: '', milestone: '', due_date: '', draft: '', labels: '', color: '', units_map: '', nested: '' }), { title: 'T', body: '' },
      '"" is not given where "" is not a valid value, and kept where it is');
    t.same(await body('POST', { title: 'T', comments: [{ path: 'a', body: null, old_position: null, new_position: 3 }, { path: 'b', old_position: '', body: '' }], nested: { name: '', note: null } }),
      { title: 'T', comments: [{ path: 'a', new_position: 3 }, { path: 'b', body: '' }], nested: {} }, 'at every depth, objects in arrays too');
    t.same(await body('POST', { title: 'T', unknown: 1, nested: { unknown: 2 } }), { title: 'T', nested: {} }, 'unknown fields are ignored');
    t.same(await body('PATCH', { title: '', body: 'kept' }), { body: 'kept' }, 'an empty title on an edit keeps the title (not given)');
    for (const title of [null, '']) {
      const res = await send('POST', '/api/v1/test-decoding', { title });
      t.equal(res.statusCode, 422, `a required field ${JSON.stringify(title)} is refused`);
      t.match(res.json(), { message: '[title]: Required', url: String });
    }
    const bad = await send('POST', '/api/v1/test-decoding', { title: 'T', state: 'bogus' });
    t.equal(bad.statusCode, 422, 'a genuinely invalid value is still refused');
    t.match(bad.json(), { message: /^\[state\]: /, url: String });
    const nestedRequired = await send('POST', '/api/v1/test-decoding', { title: 'T', comments: [{ path: null }] });
    t.equal(nestedRequired.statusCode, 422, 'a required field inside an array is still required');
    t.match(nestedRequired.json(), { message: '[path]: Required' });
  });

  t.test('empty, whitespace, null and malformed bodies', async (t) => {
    for (const method of ['POST', 'PATCH', 'DELETE'] as const) {
      for (const payload of ['', ' \n\t ', 'null']) {
        const res = await send(method, '/api/v1/test-decoding', payload);
        if (method === 'POST') {
          t.equal(res.statusCode, 422, `${method} ${JSON.stringify(payload)}: no body, so the required title is missing`);
          t.match(res.json(), { message: '[title]: Required' });
        } else {
          t.equal(res.statusCode, 200, `${method} ${JSON.stringify(payload)} is no body`);
          t.same(res.json().body, {});
        }
      }
    }
    t.equal((await send('DELETE', '/api/v1/test-no-body', '')).statusCode, 204, 'an empty JSON body on a route without a body');
    t.equal((await send('DELETE', '/api/v1/test-no-body', '{"broken')).statusCode, 204, 'a route that reads no body never parses it');
    for (const method of ['POST', 'DELETE'] as const) {
      for (const payload of ['', '{"broken']) {
        const res = await send(method, '/api/v1/no/such/route', payload);
        t.equal(res.statusCode, 404, `${method} ${JSON.stringify(payload)} on an unknown route is 404`);
        t.same(res.json(), { message: 'not found', url: `${app.services.config.APP_URL}api/swagger` });
      }
    }
    const malformed = await send('POST', '/api/v1/test-decoding', '{"title":');
    t.equal(malformed.statusCode, 422, 'a malformed body is 422, as Gitea\'s binding answers');
    t.match(malformed.json(), { message: /^\[\]: /, url: String });
    t.same(await body('POST', '{"title":"first"} {"title":"second"} garbage'), { title: 'first' }, 'the first JSON value is the body, as Go\'s decoder reads it');
    const array = await send('POST', '/api/v1/test-decoding', '[1]');
    t.equal(array.statusCode, 422, 'a body that is not an object is 422');
  });

  t.test('query strings', async (t) => {
    const query = async (qs: string) => {
      const res = await send('GET', `/api/v1/test-decoding?${qs}`);
      t.equal(res.statusCode, 200, `${qs}: ${res.body}`);
      return res.json().query;
    };
    t.same(await query('state=&type=&page=&since=&labels=&q='), {}, 'an empty value is not given');
    t.same(await query('state=bogus&type=both'), {}, 'a value outside a closed set is not given (the handler\'s default)');
    t.same(await query('state=closed&type=pulls'), { state: 'closed', type: 'pulls' });
    t.same(await query('page=abc&milestone=1.5'), {}, 'an integer that does not parse is not given');
    t.same(await query('page=1e12&milestone=-3'), {}, 'nor one in exponent form or outside the bounds');
    t.same(await query('page=%2B7'), { page: 7 }, 'a signed integer (a raw + is a space, which does not parse)');
    t.same(await query('page=+7'), {});
    t.same(await query('page=99999999999999999999'), { page: 9223372036854775807 }, 'an overflow is clamped, as ParseInt does');
    t.same(await query('page=2&page=5&state=open&state=closed'), { page: 2, state: 'open' }, 'a repeated key counts once (the first), as FormValue');
    t.same(await query('labels=a&labels=&labels=b'), { labels: ['a', 'b'] }, 'a list keeps its non-empty values');
    for (const [v, want] of [['1', true], ['t', true], ['TRUE', true], ['on', true], ['On', true], ['0', false], ['xyz', false], ['false', false]] as const) {
      t.same(await query(`binary=${v}`), { binary: want }, `binary=${v} as FormBool reads it`);
    }
    const time = await send('GET', '/api/v1/test-decoding?since=yesterday');
    t.equal(time.statusCode, 422, 'a malformed time is still refused');
    t.match(time.json(), { message: /^\[since\]: /, url: String });
  });

  t.test('integer path parameters', async (t) => {
    const id = async (segment: string) => {
      const res = await send('GET', `/api/v1/test-ids/${segment}/items/x`);
      t.equal(res.statusCode, 200, `${segment}: ${res.body}`);
      return res.json().params.id;
    };
    for (const [segment, want] of [['42', 42], ['007', 7], ['+5', 5], ['0', 0], ['-1', -1], ['1.0', 0], ['1e3', 0], ['abc', 0], ['0x10', 0], ['%201', 0]] as const) {
      t.equal(await id(segment), want, `/${segment}/ is ${want}: the lookup decides`);
    }
    t.equal(await id('99999999999999999999'), 9223372036854775807);
  });

  t.test('property: Go\'s zero values for optional fields change nothing', async (t) => {
    const valid = fc.record({
      title: fc.string({ minLength: 1, maxLength: 20 }),
      body: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
      state: fc.option(fc.constantFrom('open', 'closed'), { nil: undefined }),
      milestone: fc.option(fc.nat(), { nil: undefined }),
      labels: fc.option(fc.array(fc.integer(), { maxLength: 3 }), { nil: undefined }),
      comments: fc.option(fc.array(fc.record({ path: fc.string({ minLength: 1, maxLength: 5 }), new_position: fc.option(fc.integer(), { nil: undefined }) }, { requiredKeys: ['path'] }), { maxLength: 3 }), { nil: undefined }),
    }, { requiredKeys: ['title'] });
    // Optional fields and a zero value a Go client sends for each when it is unset.
    const zeroFor: Record<string, unknown[]> = {
      body: [null], state: [null, ''], milestone: [null, ''], due_date: [null, ''], draft: [null, ''], labels: [null, ''], color: [null, ''], units_map: [null], nested: [null, ''], comments: [null],
    };
    const injected = fc.tuple(valid, fc.dictionary(fc.constantFrom(...Object.keys(zeroFor)), fc.nat()), fc.array(fc.tuple(fc.nat(), fc.constantFrom('body', 'old_position')), { maxLength: 4 }))
      .map(([body, zeros, inner]) => {
        const sent: Record<string, unknown> = structuredClone(body);
        for (const [field, pick] of Object.entries(zeros)) if (sent[field] === undefined) sent[field] = zeroFor[field][pick % zeroFor[field].length];
        const comments = sent.comments as Array<Record<string, unknown>> | undefined;
        if (Array.isArray(comments)) for (const [i, field] of inner) if (comments.length) comments[i % comments.length][field] ??= field === 'body' ? null : '';
        return { body, sent };
      });
    let runs = 0;
    await fc.assert(fc.asyncProperty(injected, async ({ body: expected, sent }) => {
      runs++;
      const res = await send('POST', '/api/v1/test-decoding', sent);
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body} for ${JSON.stringify(sent)}`);
      const got = res.json().body;
      const want = JSON.parse(JSON.stringify(expected));
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${JSON.stringify(sent)} decoded to ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }), { numRuns: 150, seed: 20261125 });
    t.equal(runs, 150, 'every generated body decoded to the body without its zero values');
  });
});

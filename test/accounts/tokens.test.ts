// The token endpoints: Basic password authentication only, shapes and errors byte-exact, listing,
// deleting, the current-token endpoints, and what the database keeps.
import t from 'tap';
import { createHash } from 'node:crypto';
import { parseTokenId } from '../../core/access-tokens.js';
import { startTestServices } from '../helper.js';
import { apiError, basic, makeToken, makeUser, PASSWORD } from './fixtures.js';

const TOKEN_KEYS = ['id', 'name', 'sha1', 'token_last_eight', 'scopes', 'created_at', 'last_used_at'];

t.test('only Basic password authentication reaches the token endpoints', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  await makeUser(db, 'root', { admin: true });
  const token = await makeToken(app, 'alice');
  const authRequired = apiError(app, 'auth required');
  const create = (headers: Record<string, string>, url = '/api/v1/users/alice/tokens') =>
    app.inject({ method: 'POST', url, headers, payload: { name: `n${Math.random()}`, scopes: ['read:user'] } });

  for (const [what, headers, url] of [
    ['Authorization: token', { authorization: `token ${token}` }, undefined],
    ['Authorization: bearer', { authorization: `bearer ${token}` }, undefined],
    ['token as Basic username', { authorization: basic(token, '') }, undefined],
    ['token as Basic password', { authorization: basic('alice', token) }, undefined],
    ['?token=', {}, `/api/v1/users/alice/tokens?token=${token}`],
    ['anonymous', {}, undefined],
  ] as const) {
    const res = await create({ ...headers }, url);
    t.equal(res.statusCode, 401, `${what} cannot create a token`);
    t.same(res.json(), authRequired);
  }
  const list = await app.inject({ url: '/api/v1/users/alice/tokens', headers: { authorization: `token ${token}` } });
  t.equal(list.statusCode, 401, 'nor list them');
  const del = await app.inject({ method: 'DELETE', url: '/api/v1/users/alice/tokens/1', headers: { authorization: `token ${token}` } });
  t.equal(del.statusCode, 401, 'nor delete them');

  const other = await create({ authorization: basic('bob', PASSWORD) });
  t.equal(other.statusCode, 403, 'another user cannot create tokens for alice');
  t.same(other.json(), apiError(app, 'doer should be the site admin or be same as the contextUser'));
  t.equal((await create({ authorization: basic('root', PASSWORD) })).statusCode, 201, 'a site admin can');
  t.equal((await create({ authorization: basic('alice', PASSWORD) })).statusCode, 201, 'and the user');
  t.equal((await create({ authorization: basic('alice', PASSWORD) }, '/api/v1/users/nobody/tokens')).statusCode, 404, 'unknown user');
});

t.test('create, list and delete: shapes and errors as Gitea answers them', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const auth = { authorization: basic('alice', PASSWORD) };
  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/api/v1/users/alice/tokens', headers: auth, payload: payload as object });

  const created = await post({ name: 'ci', scopes: ['write:issue', 'read:issue', 'read:user', 'public-only'] });
  t.equal(created.statusCode, 201);
  const body = created.json();
  t.same(Object.keys(body), TOKEN_KEYS, 'fields and order');
  t.match(body.sha1, /^[0-9a-f]{40}$/, '40 lowercase hex characters');
  t.equal(body.token_last_eight, body.sha1.slice(-8));
  t.same(body.scopes, ['public-only', 'write:issue', 'read:user'], 'normalised: write implies read, Gitea\'s order');
  t.match(body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.equal(body.name, 'ci');

  const duplicate = await post({ name: 'ci', scopes: ['all'] });
  t.equal(duplicate.statusCode, 400);
  t.equal(duplicate.body, JSON.stringify(apiError(app, 'access token name has been used already')));
  const unknownScope = await post({ name: 'x', scopes: ['read:user', 'read:nothing'] });
  t.equal(unknownScope.statusCode, 400);
  t.equal(unknownScope.body, JSON.stringify(apiError(app, 'invalid access token scope provided: invalid access token scope: read:nothing')));
  for (const payload of [{ name: 'x' }, { name: 'x', scopes: [] }]) {
    const noScope = await post(payload);
    t.equal(noScope.statusCode, 400);
    t.equal(noScope.body, JSON.stringify(apiError(app, 'access token must have a scope')));
  }
  const unnamed = await post({ scopes: ['all'] });
  t.equal(unnamed.statusCode, 422, 'the name is required');
  t.equal((await post({ name: '', scopes: ['all'] })).statusCode, 422, 'also when empty');

  for (let i = 0; i < 3; i++) await post({ name: `bulk-${i}`, scopes: ['all'] });
  const list = await app.inject({ url: '/api/v1/users/alice/tokens?limit=2&page=1', headers: auth });
  t.equal(list.statusCode, 200);
  t.equal(list.headers['x-total-count'], '4');
  t.notOk(list.headers.link, 'no Link header, as Gitea');
  const rows = list.json() as Array<Record<string, unknown>>;
  t.equal(rows.length, 2);
  for (const row of rows) {
    t.same(Object.keys(row), TOKEN_KEYS);
    t.equal(row.sha1, '', 'the value is never listed');
  }
  const everything = (await app.inject({ url: '/api/v1/users/alice/tokens', headers: auth })).json() as Array<{ id: number; name: string; token_last_eight: string; scopes: string[] }>;
  t.same(everything.map((r) => r.name).sort(), ['bulk-0', 'bulk-1', 'bulk-2', 'ci']);
  t.same(everything.find((r) => r.name === 'ci')!.token_last_eight, body.token_last_eight);

  const byName = await app.inject({ method: 'DELETE', url: '/api/v1/users/alice/tokens/bulk-0', headers: auth });
  t.equal(byName.statusCode, 204, 'delete by name');
  const bulk1 = everything.find((r) => r.name === 'bulk-1')!;
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/users/alice/tokens/${bulk1.id}`, headers: auth })).statusCode, 204, 'delete by id');
  const missing = await app.inject({ method: 'DELETE', url: '/api/v1/users/alice/tokens/bulk-0', headers: auth });
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), apiError(app, 'not found'));
  t.equal((await app.inject({ method: 'DELETE', url: '/api/v1/users/alice/tokens/999999', headers: auth })).statusCode, 404);
  t.equal((await app.inject({ url: '/api/v1/users/alice/tokens', headers: auth })).headers['x-total-count'], '2');
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `token ${body.sha1}` } })).statusCode, 200, 'the remaining token works');
});

t.test('token ids are read as Go\'s ParseInt(s, 0, 64) reads them', async (t) => {
  t.equal(parseTokenId('42'), 42);
  t.equal(parseTokenId('0x1f'), 31);
  t.equal(parseTokenId('010'), 8, 'a leading zero is octal');
  t.equal(parseTokenId('0b101'), 5);
  t.equal(parseTokenId('ci'), 0, 'a name');
  t.equal(parseTokenId('12ab'), 0);
  t.equal(parseTokenId(''), 0);
});

t.test('GET and DELETE /token act on the token of the request', async (t) => {
  const { app, db } = await startTestServices(t);
  const alice = await makeUser(db, 'alice');
  const token = await makeToken(app, 'alice', ['read:user'], 'mine');
  const current = await app.inject({ url: '/api/v1/token', headers: { authorization: `token ${token}` } });
  t.equal(current.statusCode, 200);
  t.match(current.json(), { name: 'mine', scopes: ['read:user'], user: { id: alice.id, login: 'alice' } });
  t.same(Object.keys(current.json()), ['id', 'name', 'scopes', 'created_at', 'last_used_at', 'user']);
  const byPassword = await app.inject({ url: '/api/v1/token', headers: { authorization: basic('alice', PASSWORD) } });
  t.equal(byPassword.statusCode, 401, 'a password is not a token');
  t.same(byPassword.json(), apiError(app, 'token is required'));
  t.equal((await app.inject({ method: 'DELETE', url: '/api/v1/token', headers: { authorization: `token ${token}` } })).statusCode, 204);
  t.equal((await app.inject({ url: '/api/v1/token', headers: { authorization: `token ${token}` } })).statusCode, 401, 'revoked');
});

t.test('the database holds no plain token, password or TOTP secret', async (t) => {
  const { app, db } = await startTestServices(t);
  const password = 'a very particular passphrase 42';
  await makeUser(db, 'alice', { password });
  await makeUser(db, 'bob', { password });
  const enrol = await app.inject({ method: 'POST', url: '/api/v1/user/2fa/totp', headers: { authorization: basic('bob', password) } });
  t.equal(enrol.statusCode, 201);
  const totpSecret = enrol.json().secret as string;
  const tokens: string[] = [];
  for (const scopes of [['all'], ['read:user'], ['public-only', 'write:repository']]) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/users/alice/tokens', headers: { authorization: basic('alice', password) }, payload: { name: scopes.join('+'), scopes } });
    t.equal(res.statusCode, 201);
    tokens.push(res.json().sha1);
  }

  const dump = JSON.stringify([...(await db('users').select('*')), ...(await db('access_tokens').select('*'))]);
  t.ok(dump.length > 500, 'every column of every row was read');
  t.notOk(dump.includes(password), 'no password');
  t.notOk(dump.includes(totpSecret), 'no TOTP secret');
  for (const token of tokens) {
    t.notOk(dump.includes(token), 'no token value');
    for (const algorithm of ['sha1', 'sha256'] as const) {
      t.notOk(dump.includes(createHash(algorithm).update(token).digest('hex')), `no unkeyed ${algorithm} of a token either`);
    }
    t.ok(dump.includes(token.slice(-8)), 'only its last eight characters');
  }
  const hashes = (await db('users').whereIn('name', ['alice', 'bob']).select('passwd_hash')).map((r: { passwd_hash: string }) => r.passwd_hash);
  for (const hash of hashes) t.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/, 'passwords are argon2id hashes');
  t.not(hashes[0], hashes[1], 'salted: one password, two different hashes');
});

// Token scopes enforced per route (read for GET/HEAD, write otherwise), public-only tokens, and sudo.
import t from 'tap';
import { startTestServices } from '../helper.js';
import { apiError, basic, makeToken, makeUser, PASSWORD } from './fixtures.js';

t.test('scopes: a read-only token cannot write, a wrong category is refused with Gitea\'s message', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  const readUser = await makeToken(app, 'alice', ['read:user']);
  const writeRepo = await makeToken(app, 'alice', ['write:repository']);
  const readOrg = await makeToken(app, 'alice', ['read:organization']);
  const writeUser = await makeToken(app, 'alice', ['write:user']);
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD', url: string, token: string, payload?: object) =>
    app.inject({ method, url, headers: { authorization: `token ${token}` }, ...(payload ? { payload } : {}) });

  t.equal((await call('GET', '/api/v1/user', readUser)).statusCode, 200, 'read:user reads the user');
  t.equal((await call('HEAD', '/api/v1/user', readUser)).statusCode, 200, 'HEAD is a read');
  for (const [method, url] of [['PUT', '/api/v1/user/blocks/bob'], ['DELETE', '/api/v1/user/blocks/bob']] as const) {
    const res = await call(method, url, readUser);
    t.equal(res.statusCode, 403, `${method} ${url} with read:user`);
    t.same(res.json(), apiError(app, 'token does not have at least one of required scope(s), required=[write:user], token scope=read:user'));
  }
  const post = await call('POST', '/api/v1/orgs', readOrg, { username: 'acme' });
  t.equal(post.statusCode, 403, 'POST with a read-only organization token');
  t.same(post.json(), apiError(app, 'token does not have at least one of required scope(s), required=[write:organization], token scope=read:organization'));
  t.equal((await app.inject({ url: '/api/v1/users/bob/tokens', method: 'PATCH', headers: { authorization: `token ${readUser}` } })).statusCode, 404, 'an unknown method/route is not a scope question');

  const wrong = await call('GET', '/api/v1/user', writeRepo);
  t.equal(wrong.statusCode, 403, 'a repository token cannot read the user');
  t.same(wrong.json(), apiError(app, 'token does not have at least one of required scope(s), required=[read:user], token scope=write:repository'));

  t.equal((await call('PUT', '/api/v1/user/blocks/bob', writeUser)).statusCode, 204, 'write:user writes');
  t.equal((await call('GET', '/api/v1/user/blocks/bob', writeUser)).statusCode, 204, 'and write implies read');
  t.equal((await call('GET', '/api/v1/version', writeRepo)).statusCode, 200, 'a route without a scope takes any token');
  t.equal((await call('GET', '/api/v1/version', readUser)).statusCode, 200);
});

t.test('public-only tokens cannot see private or limited users and organizations', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'hidden', { visibility: 'limited' });
  const publicOnly = await makeToken(app, 'alice', ['public-only', 'read:user', 'write:organization']);
  const full = await makeToken(app, 'alice', ['read:user']);
  const get = (url: string, token: string) => app.inject({ url, headers: { authorization: `token ${token}` } });

  t.equal((await get('/api/v1/users/alice', publicOnly)).statusCode, 200);
  const limited = await get('/api/v1/users/hidden', publicOnly);
  t.equal(limited.statusCode, 403);
  t.same(limited.json(), apiError(app, 'token scope is limited to public users'));
  t.equal((await get('/api/v1/users/hidden', full)).statusCode, 200, 'the same user with an ordinary token');

  const created = await app.inject({ method: 'POST', url: '/api/v1/orgs', headers: { authorization: `token ${publicOnly}` }, payload: { username: 'secretive', visibility: 'private' } });
  t.equal(created.statusCode, 201);
  const org = await app.inject({ url: '/api/v1/orgs/secretive', headers: { authorization: `token ${publicOnly}` } });
  t.equal(org.statusCode, 403);
  t.same(org.json(), apiError(app, 'token scope is limited to public orgs'));
});

t.test('sudo: admins act as another user; others get 403; unknown users 404', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'root', { admin: true });
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  const rootToken = await makeToken(app, 'root');
  const aliceToken = await makeToken(app, 'alice');
  const as = (headers: Record<string, string>, url = '/api/v1/user') => app.inject({ url, headers });

  const viaQuery = await as({ authorization: `token ${rootToken}` }, '/api/v1/user?sudo=alice');
  t.equal(viaQuery.statusCode, 200);
  t.equal(viaQuery.json().login, 'alice', '?sudo= runs as that user');
  t.equal(viaQuery.json().is_admin, false, 'with that user\'s rights, not the admin\'s');
  const viaHeader = await as({ authorization: basic('root', PASSWORD), sudo: 'bob' });
  t.equal(viaHeader.json().login, 'bob', 'Sudo: header, with Basic auth too');
  const both = await as({ authorization: `token ${rootToken}`, sudo: 'bob' }, '/api/v1/user?sudo=alice');
  t.equal(both.json().login, 'alice', 'the query wins over the header');

  const current = await as({ authorization: `token ${rootToken}`, sudo: 'alice' }, '/api/v1/token');
  t.equal(current.json().user.login, 'root', 'the token still belongs to the admin who used it');

  for (const headers of [{ authorization: `token ${aliceToken}`, sudo: 'bob' }, { authorization: basic('alice', PASSWORD), sudo: 'root' }, { sudo: 'alice' }] as Array<Record<string, string>>) {
    const res = await as(headers);
    t.equal(res.statusCode, 403, 'non-admins and anonymous callers cannot sudo');
    t.same(res.json(), apiError(app, 'Only administrators allowed to sudo.'));
  }
  const unknown = await as({ authorization: `token ${rootToken}` }, '/api/v1/user?sudo=nobody');
  t.equal(unknown.statusCode, 404);
  t.same(unknown.json(), apiError(app, 'not found'));
});

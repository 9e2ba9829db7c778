// Every way of presenting credentials, the failures, and the account states Gitea refuses.
import t from 'tap';
import { usersStore, type UserRow } from '../../db/users.js';
import { setOAuth2Verifier } from '../../api/plugins/auth.js';
import { QUERY_TOKEN_WARNING } from '../../core/auth/messages.js';
import { startTestServices } from '../helper.js';
import { apiError, basic, makeToken, makeUser, PASSWORD } from './fixtures.js';

t.test('one token, every method; the word `token` is required', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const token = await makeToken(app, 'alice');
  const login = async (headers: Record<string, string>, url = '/api/v1/user') => {
    const res = await app.inject({ url, headers });
    return { status: res.statusCode, login: res.statusCode === 200 ? (res.json() as { login: string }).login : res.body, headers: res.headers };
  };

  t.same(await login({ authorization: basic('alice', PASSWORD) }).then((r) => [r.status, r.login]), [200, 'alice'], 'basic, password');
  t.same(await login({ authorization: basic('ALICE', PASSWORD) }).then((r) => [r.status, r.login]), [200, 'alice'], 'basic, user name is case-insensitive');
  t.same(await login({ authorization: basic(token, '') }).then((r) => [r.status, r.login]), [200, 'alice'], 'basic, token as username');
  t.same(await login({ authorization: basic(token, 'x-oauth-basic') }).then((r) => [r.status, r.login]), [200, 'alice'], 'basic, token:x-oauth-basic');
  t.same(await login({ authorization: basic('alice', token) }).then((r) => [r.status, r.login]), [200, 'alice'], 'basic, token as password');
  t.same(await login({ authorization: `token ${token}` }).then((r) => [r.status, r.login]), [200, 'alice'], 'Authorization: token');
  t.same(await login({ authorization: `TOKEN ${token}` }).then((r) => [r.status, r.login]), [200, 'alice'], 'the scheme is case-insensitive');
  t.same(await login({ authorization: `bearer ${token}` }).then((r) => [r.status, r.login]), [200, 'alice'], 'Authorization: bearer with a personal token');
  t.same(await login({ authorization: `Bearer ${token}` }).then((r) => [r.status, r.login]), [200, 'alice'], 'Authorization: Bearer');

  const viaQuery = await login({}, `/api/v1/user?token=${token}`);
  t.same([viaQuery.status, viaQuery.login], [200, 'alice'], '?token=');
  t.equal(viaQuery.headers['x-gitea-warning'], QUERY_TOKEN_WARNING, 'query tokens carry Gitea\'s deprecation warning');
  const viaAccessToken = await login({}, `/api/v1/user?access_token=${token}`);
  t.same([viaAccessToken.status, viaAccessToken.login], [200, 'alice'], '?access_token=');
  t.equal(viaAccessToken.headers['x-gitea-warning'], QUERY_TOKEN_WARNING);
  t.notOk((await login({ authorization: `token ${token}` })).headers['x-gitea-warning'], 'no warning for header tokens');

  const bare = await app.inject({ url: '/api/v1/user', headers: { authorization: token } });
  t.equal(bare.statusCode, 401, 'a bare token without the word is refused');
  t.same(bare.json(), apiError(app, 'invalid username, password or token'));
});

t.test('wrong, revoked and malformed credentials answer 401 in Gitea\'s shape; none is anonymous', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const token = await makeToken(app, 'alice', ['all'], 'doomed');
  const invalid = apiError(app, 'invalid username, password or token');
  const unknown = 'ab'.repeat(20);

  for (const [what, headers, url] of [
    ['unknown token header', { authorization: `token ${unknown}` }, '/api/v1/user'],
    ['unknown token in the query', {}, `/api/v1/user?token=${unknown}`],
    ['unknown token as basic username', { authorization: basic(unknown, '') }, '/api/v1/user'],
    ['wrong password', { authorization: basic('alice', 'not the password') }, '/api/v1/user'],
    ['unknown user', { authorization: basic('nobody', PASSWORD) }, '/api/v1/user'],
    ['not base64', { authorization: 'Basic !!!' }, '/api/v1/user'],
    ['unknown scheme', { authorization: `Digest ${token}` }, '/api/v1/user'],
    ['uppercase hex is not a token', { authorization: `token ${token.toUpperCase()}` }, '/api/v1/user'],
    ['a public route still refuses bad credentials', { authorization: `token ${unknown}` }, '/api/v1/version'],
  ] as const) {
    const res = await app.inject({ url, headers });
    t.equal(res.statusCode, 401, what);
    t.equal(res.body, JSON.stringify(invalid), `${what}: body byte-exact`);
  }

  const del = await app.inject({ method: 'DELETE', url: '/api/v1/users/alice/tokens/doomed', headers: { authorization: basic('alice', PASSWORD) } });
  t.equal(del.statusCode, 204);
  const revoked = await app.inject({ url: '/api/v1/user', headers: { authorization: `token ${token}` } });
  t.equal(revoked.statusCode, 401, 'a revoked token no longer works');
  t.same(revoked.json(), invalid);

  const anonymous = await app.inject({ url: '/api/v1/user' });
  t.equal(anonymous.statusCode, 401);
  t.same(anonymous.json(), apiError(app, 'token is required'), 'anonymous on a signed-in route');
  t.equal((await app.inject({ url: '/api/v1/version' })).statusCode, 200, 'anonymous reads public routes');
  t.equal((await app.inject({ url: '/api/v1/users/alice' })).statusCode, 200, 'and public users');
});

t.test('OAuth2 bearer tokens go to the installed verifier; without one they are refused', async (t) => {
  const { app, db } = await startTestServices(t);
  const alice = await makeUser(db, 'alice');
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJnbnQiOjF9.c2lnbmF0dXJl';
  t.teardown(() => setOAuth2Verifier(null));

  setOAuth2Verifier(null);
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${jwt}` } })).statusCode, 401, 'no verifier: 401');

  const seen: string[] = [];
  setOAuth2Verifier(async (token, services) => {
    seen.push(token);
    t.equal(services.db, db, 'the verifier gets this app\'s services');
    return token === jwt ? { userId: alice.id, scopes: ['read:user'] } : null;
  });
  const ok = await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${jwt}` } });
  t.equal(ok.statusCode, 200);
  t.equal(ok.json().login, 'alice');
  t.equal((await app.inject({ url: `/api/v1/user?access_token=${jwt}` })).statusCode, 200, 'in the query too');
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: basic(jwt, '') } })).statusCode, 200, 'and as a Basic username');
  const scoped = await app.inject({ method: 'PUT', url: '/api/v1/user/blocks/nobody', headers: { authorization: `bearer ${jwt}` } });
  t.equal(scoped.statusCode, 403, 'the grant\'s scopes are enforced');
  t.match(scoped.json().message, /required=\[write:user\]/);
  const other = 'eyJhbGciOiJIUzI1NiJ9.eyJnbnQiOjJ9.c2lnbmF0dXJl';
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${other}` } })).statusCode, 401, 'a token the verifier refuses');
  t.ok(seen.includes(other));
});

t.test('inactive, prohibited and must-change-password accounts get Gitea\'s 403s', async (t) => {
  const { app, db, config } = await startTestServices(t);
  const alice = await makeUser(db, 'alice');
  const token = await makeToken(app, 'alice');
  const asToken = () => app.inject({ url: '/api/v1/user', headers: { authorization: `token ${token}` } });
  const asPassword = () => app.inject({ url: '/api/v1/user', headers: { authorization: basic('alice', PASSWORD) } });
  const prohibited = apiError(app, 'This account is prohibited from signing in, please contact your site administrator.');
  // Account changes go through the store, as the service makes them; a change made by another
  // process reaches a cached token within RESOLVED_TOKEN_TTL_MS (see core/access-tokens.ts).
  const updateAccount = (fields: Partial<UserRow>) => usersStore(db).update(alice.id, fields);

  await updateAccount({ prohibit_login: true });
  for (const res of [await asToken(), await asPassword()]) {
    t.equal(res.statusCode, 403);
    t.same(res.json(), prohibited);
  }
  await updateAccount({ prohibit_login: false, is_active: false });
  t.same((await asToken()).json(), prohibited, 'inactive (no e-mail confirmation configured) reads as prohibited, as in Gitea');
  await updateAccount({ is_active: true, must_change_password: true });
  const change = await asPassword();
  t.equal(change.statusCode, 403);
  // Gitea's text has a double slash (its AppURL ends with one): checked against Gitea 1.26.4.
  t.same(change.json(), apiError(app, `You must change your password. Change it at: ${config.APP_URL}/user/change_password`));
  t.equal((await asToken()).statusCode, 403, 'tokens too, as in Gitea');
  await updateAccount({ must_change_password: false });
  t.equal((await asToken()).statusCode, 200);
  const wrong = await app.inject({ url: '/api/v1/user', headers: { authorization: basic('alice', 'wrong') } });
  t.equal(wrong.statusCode, 401, 'a wrong password is 401 before any account check');
});

t.test('token use is recorded at most once a minute', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const token = await makeToken(app, 'alice', ['all'], 'touched');
  const stamp = async () => Number((await db('access_tokens').where({ name: 'touched' }).first('updated_unix')).updated_unix);
  const use = async () => t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `token ${token}` } })).statusCode, 200);
  const waitFor = async (predicate: () => Promise<boolean>) => {
    for (let i = 0; i < 50 && !(await predicate()); i++) await new Promise((r) => setTimeout(r, 20));
  };
  const now = Math.floor(Date.now() / 1000);

  await db('access_tokens').where({ name: 'touched' }).update({ updated_unix: now - 120 });
  await use();
  await waitFor(async () => (await stamp()) >= now);
  t.ok((await stamp()) >= now, 'an old stamp is refreshed on use');

  await db('access_tokens').where({ name: 'touched' }).update({ updated_unix: now - 30 });
  await use();
  await use();
  await new Promise((r) => setTimeout(r, 200));
  t.equal(await stamp(), now - 30, 'a stamp younger than a minute is left alone (no write per request)');
});

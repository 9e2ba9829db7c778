// OAuth2 applications through the API (Gitea's shapes, the secret once and hashed), and the API
// accepting the provider's access tokens: three places, the grant's scopes, revocation.
import t from 'tap';
import { startTestServices } from '../helper.js';
import { basic, createOAuth2App, makeToken, makeUser, obtainCode, PASSWORD, pkcePair, REDIRECT_URI, tokenRequest, WebClient } from './fixtures.js';

const APP_KEYS = ['id', 'name', 'client_id', 'client_secret', 'confidential_client', 'skip_secondary_authorization', 'redirect_uris', 'created'];

t.test('the applications API: create, list, get, update (new secret), delete', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  const auth = { authorization: basic('alice', PASSWORD) };
  const created = await createOAuth2App(app, 'alice', { name: 'my app' });
  t.same(Object.keys(created), APP_KEYS, 'Gitea\'s OAuth2Application fields, in order');
  t.match(created.client_id, /^[0-9a-f-]{36}$/, 'a UUID client id');
  t.match(created.client_secret, /^gto_/, 'the secret is shown on create');
  const row = await db('oauth2_applications').where({ id: created.id }).first();
  t.match(row.client_secret_hash, /^[0-9a-f]{64}$/, 'stored as a keyed hash');
  t.notOk(JSON.stringify(row).includes(created.client_secret), 'never in plain text');

  const list = await app.inject({ url: '/api/v1/user/applications/oauth2', headers: auth });
  t.equal(list.statusCode, 200);
  t.equal(list.headers['x-total-count'], '1');
  t.equal(list.json()[0].client_secret, '', 'hidden in lists');
  const one = await app.inject({ url: `/api/v1/user/applications/oauth2/${created.id}`, headers: auth });
  t.equal(one.json().client_secret, '', 'and on get');
  t.equal((await app.inject({ url: `/api/v1/user/applications/oauth2/${created.id}`, headers: { authorization: basic('bob', PASSWORD) } })).statusCode, 404, 'another user\'s app is not found');
  t.equal((await app.inject({ url: '/api/v1/user/applications/oauth2' })).statusCode, 401, 'anonymous: 401');

  const patched = await app.inject({ method: 'PATCH', url: `/api/v1/user/applications/oauth2/${created.id}`, headers: auth,
    payload: { name: 'renamed', redirect_uris: ['https://new.example/cb'], confidential_client: false } });
  t.equal(patched.statusCode, 200);
  t.equal(patched.json().name, 'renamed');
  t.same(patched.json().redirect_uris, ['https://new.example/cb']);
  t.match(patched.json().client_secret, /^gto_/, 'update regenerates the secret and shows it');
  t.not(patched.json().client_secret, created.client_secret);
  const bad = await app.inject({ method: 'POST', url: '/api/v1/user/applications/oauth2', headers: auth, payload: { name: 'x', redirect_uris: ['not a url'] } });
  t.equal(bad.statusCode, 422, 'redirect URIs must be absolute URIs');
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/user/applications/oauth2/${created.id}`, headers: { authorization: basic('bob', PASSWORD) } })).statusCode, 404);
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/user/applications/oauth2/${created.id}`, headers: auth })).statusCode, 204);
  t.equal((await app.inject({ url: `/api/v1/user/applications/oauth2/${created.id}`, headers: auth })).statusCode, 404);
});

t.test('bearer JWTs on the API: three places, scopes, revocation', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  const client = await createOAuth2App(app, 'bob');
  const web = new WebClient(app);
  await web.signIn('alice');
  const exchange = async (extra: Record<string, string> = {}) => {
    const code = await obtainCode(web, client.client_id, extra);
    const res = await tokenRequest(app, { grant_type: 'authorization_code', client_id: client.client_id, client_secret: client.client_secret, code, redirect_uri: REDIRECT_URI });
    t.equal(res.statusCode, 200, 'token issued');
    return res.json() as { access_token: string; refresh_token: string };
  };
  const { access_token } = await exchange();
  for (const [where, url, headers] of [
    ['Authorization: bearer', '/api/v1/user', { authorization: `bearer ${access_token}` }],
    ['Authorization: token', '/api/v1/user', { authorization: `token ${access_token}` }],
    ['?token=', `/api/v1/user?token=${access_token}`, {}],
    ['?access_token=', `/api/v1/user?access_token=${access_token}`, {}],
  ] as const) {
    const res = await app.inject({ url, headers });
    t.equal(res.statusCode, 200, `${where} works`);
    t.equal(res.json().login, 'alice', `${where} acts as the granting user`);
  }
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${access_token.slice(0, -2)}xx` } })).statusCode, 401, 'a tampered token fails');
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${(await exchange()).refresh_token}` } })).statusCode, 401, 'a refresh token is no access token');

  // A grant limited to read:user: reads pass, writes are refused with Gitea's scope message.
  const limited = await exchange({ scope: 'openid read:user' });
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${limited.access_token}` } })).statusCode, 200, 'read:user reads');
  const write = await app.inject({ method: 'POST', url: '/api/v1/user/applications/oauth2', headers: { authorization: `bearer ${limited.access_token}` }, payload: { name: 'x' } });
  t.equal(write.statusCode, 403, 'read:user cannot write');
  t.match(write.json().message, /required=\[write:user\], token scope=read:user/);
  // One grant per user and application: the newer consent narrowed it, and the scope is read from
  // the grant on each request, so the older token of that grant is narrowed too.
  const older = await app.inject({ method: 'POST', url: '/api/v1/user/applications/oauth2', headers: { authorization: `bearer ${access_token}` }, payload: { name: 'x' } });
  t.equal(older.statusCode, 403, 'the grant\'s current scope applies to all its tokens');
});

t.test('revoking the grant or deleting the application ends its tokens', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  const web = new WebClient(app);
  await web.signIn('alice');
  const tokenOf = async (client: { client_id: string; client_secret: string }) => {
    const code = await obtainCode(web, client.client_id);
    return (await tokenRequest(app, { grant_type: 'authorization_code', client_id: client.client_id, client_secret: client.client_secret, code, redirect_uri: REDIRECT_URI })).json().access_token as string;
  };
  const me = (token: string) => app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${token}` } });

  const first = await createOAuth2App(app, 'bob', { name: 'first' });
  const token1 = await tokenOf(first);
  t.equal((await me(token1)).statusCode, 200);
  const page = await web.get('/user/settings/applications');
  const grantId = /name="grant_id" value="(\d+)"/.exec(page.body)![1]!;
  const revoke = await web.post('/user/settings/applications/oauth2/revoke', { _csrf: WebClient.csrfOf(page.body), grant_id: grantId });
  t.equal(revoke.statusCode, 303, 'revoked on the settings page');
  t.equal((await me(token1)).statusCode, 401, 'the revoked grant\'s token fails');

  const second = await createOAuth2App(app, 'bob', { name: 'second' });
  const token2 = await tokenOf(second);
  t.equal((await me(token2)).statusCode, 200);
  await app.inject({ method: 'DELETE', url: `/api/v1/user/applications/oauth2/${second.id}`, headers: { authorization: basic('bob', PASSWORD) } });
  t.equal((await me(token2)).statusCode, 401, 'a deleted application\'s token fails');
  t.equal((await db('oauth2_grants').where({ application_id: second.id })).length, 0, 'its grants are gone');

  // Personal access tokens keep working beside them.
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `token ${await makeToken(app, 'alice')}` } })).statusCode, 200);
});

t.test('public clients must use PKCE', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const client = await createOAuth2App(app, 'alice', { confidential_client: false });
  const web = new WebClient(app);
  await web.signIn('alice');
  const res = await web.get(`/login/oauth/authorize?client_id=${client.client_id}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&response_type=code&state=s1`);
  t.equal(res.statusCode, 303);
  const location = new URL(String(res.headers.location));
  t.equal(location.searchParams.get('error'), 'invalid_request');
  t.equal(location.searchParams.get('error_description'), 'PKCE is required for public clients');
  t.equal(location.searchParams.get('state'), 's1', 'state passed back with errors too');
  const { verifier, challenge } = pkcePair();
  const code = await obtainCode(web, client.client_id, { code_challenge: challenge, code_challenge_method: 'S256' });
  const token = await tokenRequest(app, { grant_type: 'authorization_code', client_id: client.client_id, code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
  t.equal(token.statusCode, 200, 'a public client needs no secret, only the verifier');
});

t.test('the provider on the SQLite default', async (t) => {
  const { app, db } = await startTestServices(t, { dbType: 'sqlite3' });
  await makeUser(db, 'alice');
  const client = await createOAuth2App(app, 'alice');
  const web = new WebClient(app);
  await web.signIn('alice');
  const code = await obtainCode(web, client.client_id);
  const asClient = { client_id: client.client_id, client_secret: client.client_secret };
  const first = (await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code, redirect_uri: REDIRECT_URI })).json();
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${first.access_token}` } })).statusCode, 200);
  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', ...asClient, refresh_token: first.refresh_token });
  t.equal(refreshed.statusCode, 200, 'refresh works');
  t.equal((await tokenRequest(app, { grant_type: 'refresh_token', ...asClient, refresh_token: first.refresh_token })).json().error, 'invalid_grant', 'reuse detected');
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${refreshed.json().access_token}` } })).statusCode, 401, 'grant revoked');
});

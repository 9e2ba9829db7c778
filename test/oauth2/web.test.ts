// The web pages: sign-in (with the TOTP step), session cookie flags, sign-out revoking the session,
// CSRF on every form, Settings → Applications, the consent page and the authorize endpoint's
// redirect URI rules, and the throttle shared with the API.
import t from 'tap';
import { generateTotpSecret, totpCodeAt, totpStep } from '../../core/auth/totp.js';
import { sealSecret } from '../../core/auth/secret-box.js';
import { startTestServices } from '../helper.js';
import { authorizeUrl, basic, createOAuth2App, makeUser, PASSWORD, REDIRECT_URI, WebClient } from './fixtures.js';

t.test('sign in, cookie flags, sign out', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const web = new WebClient(app);
  const anonymous = await web.get('/user/settings/applications');
  t.equal(anonymous.statusCode, 303, 'settings need a session');
  t.equal(anonymous.headers.location, '/user/login?redirect_to=%2Fuser%2Fsettings%2Fapplications');
  const page = await web.get('/user/login');
  t.equal(page.statusCode, 200);
  t.match(page.body, /<label for="user_name">/, 'labelled fields');
  t.match(page.body, /<label for="password">/);
  const setCookie = String(page.headers['set-cookie']);
  t.match(setCookie, /^pullhost_session=[^;]+\.[^;]+;/, 'the cookie is signed');
  t.match(setCookie, /HttpOnly/);
  t.match(setCookie, /SameSite=Lax/);
  t.notMatch(setCookie, /Secure/, 'not Secure on http');
  t.equal(page.headers['x-frame-options'], 'DENY');

  const wrong = await web.post('/user/login', { _csrf: WebClient.csrfOf(page.body), user_name: 'alice', password: 'nope' });
  t.equal(wrong.statusCode, 401);
  t.match(wrong.body, /Username or password is incorrect/);
  const anonymousCookie = web.cookie;
  const ok = await web.post('/user/login', { _csrf: WebClient.csrfOf(wrong.body), user_name: 'alice', password: PASSWORD, redirect_to: '/user/settings/applications' });
  t.equal(ok.statusCode, 303);
  t.equal(ok.headers.location, '/user/settings/applications');
  t.not(web.cookie, anonymousCookie, 'a new session id after sign-in (no fixation)');
  const settings = await web.get('/user/settings/applications');
  t.equal(settings.statusCode, 200);
  t.match(settings.body, /Signed in as alice/);

  const forged = web.cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  t.equal((await app.inject({ url: '/user/settings/applications', headers: { cookie: forged } })).statusCode, 303, 'a tampered cookie is no session');
  const offsite = await new WebClient(app).post('/user/login', { user_name: 'alice', password: PASSWORD });
  t.equal(offsite.statusCode, 403, 'sign-in without a session and CSRF token is refused');

  const signedInCookie = web.cookie;
  const out = await web.post('/user/logout', { _csrf: WebClient.csrfOf(settings.body) });
  t.equal(out.statusCode, 303);
  t.match(String(out.headers['set-cookie']), /pullhost_session=;/, 'the cookie is cleared');
  t.equal((await app.inject({ url: '/user/settings/applications', headers: { cookie: signedInCookie } })).statusCode, 303, 'the old cookie is revoked server-side');

  const https = await startTestServices(t, { env: { APP_URL: 'https://git.example/' } });
  const secure = await https.app.inject({ url: '/user/login' });
  t.match(String(secure.headers['set-cookie']), /Secure/, 'Secure when APP_URL is https');
});

t.test('the TOTP step, and the throttle shared with the API', async (t) => {
  const { app, db } = await startTestServices(t);
  const bob = await makeUser(db, 'bob');
  const secret = generateTotpSecret();
  await db('users').where({ id: bob.id }).update({ totp_secret: sealSecret(secret, app.services.secretKey) });
  const web = new WebClient(app);
  const page = await web.get('/user/login');
  const step1 = await web.post('/user/login', { _csrf: WebClient.csrfOf(page.body), user_name: 'bob', password: PASSWORD });
  t.equal(step1.statusCode, 200, 'the password alone does not sign in');
  t.match(step1.body, /<label for="passcode">Authentication code<\/label>/);
  t.equal((await web.get('/user/settings/applications')).statusCode, 303, 'not signed in between the steps');
  const bad = await web.post('/user/two_factor', { _csrf: WebClient.csrfOf(step1.body), passcode: '000000' === totpCodeAt(secret, totpStep(Date.now())) ? '111111' : '000000' });
  t.equal(bad.statusCode, 401);
  const good = await web.post('/user/two_factor', { _csrf: WebClient.csrfOf(bad.body), passcode: totpCodeAt(secret, totpStep(Date.now())) });
  t.equal(good.statusCode, 303, 'the code completes the sign-in');
  t.equal((await web.get('/user/settings/applications')).statusCode, 200);

  // Failures on the web count for the API and the other way round: one throttle.
  await makeUser(db, 'carol');
  const other = new WebClient(app);
  let form = await other.get('/user/login');
  for (let i = 0; i < 3; i++) form = await other.post('/user/login', { _csrf: WebClient.csrfOf(form.body), user_name: 'carol', password: 'wrong' });
  for (let i = 0; i < 2; i++) await app.inject({ url: '/api/v1/user', headers: { authorization: basic('carol', 'wrong') } });
  const locked = await app.inject({ url: '/api/v1/user', headers: { authorization: basic('carol', PASSWORD) } });
  t.equal(locked.statusCode, 429, 'the API is locked after failures on both');
  const lockedWeb = await other.post('/user/login', { _csrf: WebClient.csrfOf(form.body), user_name: 'carol', password: PASSWORD });
  t.equal(lockedWeb.statusCode, 429, 'and so is the web form');
  t.ok(lockedWeb.headers['retry-after']);
});

t.test('Settings → Applications: generate, use, delete; CSRF on every form', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const web = new WebClient(app);
  await web.signIn('alice');
  let page = await web.get('/user/settings/applications');
  const csrf = WebClient.csrfOf(page.body);

  for (const [what, form] of [['no token', {}], ['a wrong token', { _csrf: 'x'.repeat(43) }]] as const) {
    const res = await web.post('/user/settings/applications', { ...form, name: 'sneaky', scope: 'all' });
    t.equal(res.statusCode, 403, `generate with ${what}: 403`);
    t.equal((await web.post('/user/settings/applications/delete', { ...form, id: '1' })).statusCode, 403, `delete with ${what}: 403`);
    t.equal((await web.post('/user/settings/applications/oauth2/revoke', { ...form, grant_id: '1' })).statusCode, 403, `revoke with ${what}: 403`);
    t.equal((await web.post('/login/oauth/grant', { ...form, granted: 'true' })).statusCode, 403, `consent with ${what}: 403`);
    t.equal((await web.post('/user/logout', { ...form })).statusCode, 403, `sign-out with ${what}: 403`);
  }
  const otherSession = new WebClient(app);
  await otherSession.get('/user/login');
  t.equal((await web.post('/user/settings/applications', { _csrf: WebClient.csrfOf((await otherSession.get('/user/login')).body), name: 'x', scope: 'all' })).statusCode, 403,
    'another session\'s token is refused');
  t.equal(await db('access_tokens').count({ n: '*' }).first().then((r) => Number(r?.n)), 0, 'nothing was created');
  t.equal((await web.get('/user/settings/applications')).statusCode, 200, 'still signed in');

  const noScope = await web.post('/user/settings/applications', { _csrf: csrf, name: 'ci' });
  t.equal(noScope.statusCode, 400);
  t.match(noScope.body, /access token must have a scope/, 'the API\'s rules and messages');
  const created = await web.post('/user/settings/applications', { _csrf: csrf, name: '<b>ci</b>', scope: ['read:user', 'write:issue'] });
  t.equal(created.statusCode, 201);
  const value = /<code class="secret" id="new-token-value">([0-9a-f]{40})<\/code>/.exec(created.body)?.[1];
  t.ok(value, 'the new value is shown once');
  t.match(created.body, /&lt;b&gt;ci&lt;\/b&gt;/, 'names are escaped');
  t.notMatch(created.body, /<b>ci<\/b>/);
  const me = await app.inject({ url: '/api/v1/user', headers: { authorization: `token ${value}` } });
  t.equal(me.statusCode, 200, 'the token works on the API');
  const tokens = await app.inject({ url: '/api/v1/users/alice/tokens', headers: { authorization: basic('alice', PASSWORD) } });
  t.same(tokens.json()[0].scopes, ['write:issue', 'read:user'], 'stored like an API token');
  page = await web.get('/user/settings/applications');
  t.notMatch(page.body, new RegExp(value!), 'not shown again');
  const id = /name="id" value="(\d+)"/.exec(page.body)![1]!;
  t.equal((await web.post('/user/settings/applications/delete', { _csrf: csrf, id })).statusCode, 303);
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `token ${value}` } })).statusCode, 401, 'deleted');
});

t.test('authorize: sign-in first, exact redirect URI, state, consent and cancel', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const client = await createOAuth2App(app, 'alice', { name: 'Tool <x>' });
  const web = new WebClient(app);
  const first = await web.get(authorizeUrl(client.client_id));
  t.equal(first.statusCode, 303);
  t.match(String(first.headers.location), /^\/user\/login\?redirect_to=%2Flogin%2Foauth%2Fauthorize%3F/, 'anonymous: to the sign-in page and back');
  const signInPage = await web.get(String(first.headers.location));
  const redirectTo = /name="redirect_to" value="([^"]*)"/.exec(signInPage.body)![1]!.replace(/&amp;/g, '&');
  const signedIn = await web.post('/user/login', { _csrf: WebClient.csrfOf(signInPage.body), user_name: 'alice', password: PASSWORD, redirect_to: redirectTo });
  t.equal(signedIn.headers.location, authorizeUrl(client.client_id), 'after sign-in, back to the authorization request');
  const offsite = await new WebClient(app).get('/user/login?redirect_to=//evil.example/x');
  t.match(offsite.body, /name="redirect_to" value="\/user\/settings\/applications"/, 'only local paths are followed');

  for (const uri of [`${REDIRECT_URI}/`, `${REDIRECT_URI}?x=1`, 'https://CLIENT.example/callback', 'https://evil.example/callback']) {
    const res = await web.get(authorizeUrl(client.client_id, { redirect_uri: uri }));
    t.equal(res.statusCode, 400, `${uri}: refused`);
    t.notOk(res.headers.location, 'never redirected to an unregistered URI');
    t.match(res.body, /Unregistered Redirect URI/);
  }
  t.equal((await web.get(authorizeUrl('nope'))).statusCode, 400, 'unknown client: 400');
  const badType = await web.get(authorizeUrl(client.client_id, { response_type: 'token' }));
  t.equal(new URL(String(badType.headers.location)).searchParams.get('error'), 'unsupported_response_type');

  const consent = await web.get(authorizeUrl(client.client_id, { state: 'a&b=<c>' }));
  t.equal(consent.statusCode, 200, 'the consent page');
  t.match(consent.body, /Tool &lt;x&gt;/, 'the app name is escaped');
  t.match(consent.body, /value="a&amp;b=&lt;c&gt;"/, 'and the state');
  const cancel = await web.post('/login/oauth/grant', { _csrf: WebClient.csrfOf(consent.body), client_id: client.client_id, redirect_uri: REDIRECT_URI, response_type: 'code', state: 'a&b=<c>', granted: 'false' });
  const denied = new URL(String(cancel.headers.location));
  t.equal(denied.searchParams.get('error'), 'access_denied');
  t.equal(denied.searchParams.get('state'), 'a&b=<c>', 'state passed back');
  const tampered = await web.post('/login/oauth/grant', { _csrf: WebClient.csrfOf(consent.body), client_id: client.client_id, redirect_uri: 'https://evil.example/', response_type: 'code', granted: 'true' });
  t.equal(tampered.statusCode, 400, 'the grant form is checked again');
  const granted = await web.post('/login/oauth/grant', { _csrf: WebClient.csrfOf(consent.body), client_id: client.client_id, redirect_uri: REDIRECT_URI, response_type: 'code', state: 'xyz', granted: 'true' });
  const back = new URL(String(granted.headers.location));
  t.equal(`${back.origin}${back.pathname}`, REDIRECT_URI);
  t.equal(back.searchParams.get('state'), 'xyz', 'state passed back');
  t.ok(back.searchParams.get('code'));
  const again = await web.get(authorizeUrl(client.client_id, { state: 's2' }));
  t.equal(again.statusCode, 303, 'a confidential client already granted skips the consent page (as Gitea)');
  t.equal(new URL(String(again.headers.location)).searchParams.get('state'), 's2');
});

// An account created by an administrator (must_change_password defaults to true, as in Gitea):
// the API answers it 403 with Gitea's text; signing in on the web leads to the change-password
// page, which every other page sends it back to; after a valid new password the API answers it.
import t from 'tap';
import { startTestServices } from '../helper.js';
import { authorizeUrl, basic, createOAuth2App, makeUser, PASSWORD, WebClient } from '../oauth2/fixtures.js';

t.test('an administrator-made account changes its password on the web before anything else', async (t) => {
  const { app, db, config } = await startTestServices(t);
  await makeUser(db, 'operator', { admin: true });
  const made = await app.inject({
    method: 'POST', url: '/api/v1/admin/users', headers: { authorization: basic('operator', PASSWORD), 'content-type': 'application/json' },
    payload: { username: 'newcomer', email: 'newcomer@example.com', password: 'set-by-the-admin' },
  });
  t.equal(made.statusCode, 201, made.body);
  const asNewcomer = (password: string) => app.inject({ url: '/api/v1/user', headers: { authorization: basic('newcomer', password) } });
  const refused = await asNewcomer('set-by-the-admin');
  t.equal(refused.statusCode, 403);
  t.equal(refused.json().message, `You must change your password. Change it at: ${config.APP_URL}/user/change_password`, "Gitea's text, double slash included");

  // git over HTTP gets Gitea's 401 text (checked against Gitea 1.26.4); the API keeps its 403 whatever the client.
  const repo = await app.inject({ method: 'POST', url: '/api/v1/user/repos', headers: { authorization: basic('operator', PASSWORD), 'content-type': 'application/json' }, payload: { name: 'shared', auto_init: true } });
  t.equal(repo.statusCode, 201, repo.body);
  const gitHeaders = { authorization: basic('newcomer', 'set-by-the-admin'), 'user-agent': 'git/2.39.5' };
  const clone = await app.inject({ url: '/operator/shared.git/info/refs?service=git-upload-pack', headers: gitHeaders });
  t.equal(clone.statusCode, 401, 'git is asked for other credentials');
  t.equal(clone.json().message, 'Update your password');
  t.equal((await app.inject({ url: '/api/v1/user', headers: gitHeaders })).statusCode, 403);

  const web = new WebClient(app);
  const login = await web.get('/user/login');
  const signedIn = await web.post('/user/login', { _csrf: WebClient.csrfOf(login.body), user_name: 'newcomer', password: 'set-by-the-admin', redirect_to: '/user/settings/applications' });
  t.equal(signedIn.statusCode, 303);
  t.equal(signedIn.headers.location, '/user/settings/change_password?redirect_to=%2Fuser%2Fsettings%2Fapplications', 'sent to the change-password page');

  // Every other page sends the account back there, the address in the API's text included.
  const settings = await web.get('/user/settings/applications');
  t.equal(settings.headers.location, '/user/settings/change_password?redirect_to=%2Fuser%2Fsettings%2Fapplications');
  const { client_id: clientId } = await createOAuth2App(app, 'operator');
  const authorize = await web.get(authorizeUrl(clientId));
  t.equal(authorize.statusCode, 303, 'the OAuth2 consent is out of reach too');
  t.match(String(authorize.headers.location), /^\/user\/login\?redirect_to=/);
  const back = await web.get(String(authorize.headers.location));
  t.match(String(back.headers.location), /^\/user\/settings\/change_password\?redirect_to=%2Flogin%2Foauth%2Fauthorize/);
  for (const path of ['/user/change_password', '//user/change_password']) {
    const link = await web.get(path);
    t.equal(link.headers.location, '/user/settings/change_password', `${path} leads to the page`);
  }

  const page = await web.get('/user/settings/change_password?redirect_to=%2Fuser%2Fsettings%2Fapplications');
  t.equal(page.statusCode, 200);
  t.match(page.body, /<label for="password">New password<\/label>/);
  t.match(page.body, /<label for="retype">/);
  const csrf = WebClient.csrfOf(page.body);
  const post = (form: Record<string, string>) => web.post('/user/settings/change_password', { _csrf: csrf, redirect_to: '/user/settings/applications', ...form });

  t.equal((await web.post('/user/settings/change_password', { password: 'a-new-password', retype: 'a-new-password' })).statusCode, 403, 'no CSRF token, no change');
  const mismatch = await post({ password: 'a-new-password', retype: 'another-password' });
  t.equal(mismatch.statusCode, 400);
  t.match(mismatch.body, /The passwords do not match\./);
  const short = await post({ password: 'short', retype: 'short' });
  t.equal(short.statusCode, 400);
  t.match(short.body, /Password length cannot be less than 8 characters\./);
  const long = await post({ password: 'x'.repeat(256), retype: 'x'.repeat(256) });
  t.equal(long.statusCode, 400);
  t.equal((await asNewcomer('set-by-the-admin')).statusCode, 403, 'refused attempts changed nothing');

  const changed = await post({ password: 'my-own-password', retype: 'my-own-password' });
  t.equal(changed.statusCode, 303);
  t.equal(changed.headers.location, '/user/settings/applications', 'back where the user was going');
  t.equal((await web.get('/user/settings/applications')).statusCode, 200, 'the session now reaches the settings');
  t.equal((await web.get('/user/settings/change_password')).headers.location, '/user/settings/applications', 'the page is only for those who must change');
  t.equal((await asNewcomer('my-own-password')).statusCode, 200, 'the API answers with the new password');
  t.equal((await asNewcomer('set-by-the-admin')).statusCode, 401, 'the old one is gone');
  t.equal((await app.inject({ url: '/operator/shared.git/info/refs?service=git-upload-pack', headers: { ...gitHeaders, authorization: basic('newcomer', 'my-own-password') } })).statusCode, 200, 'and git works again');
  t.notOk((await db('users').where({ name: 'newcomer' }).first()).must_change_password, 'the flag is cleared');
});

t.test('an anonymous visitor is sent to sign in first, and back to the page after', async (t) => {
  const { app } = await startTestServices(t);
  const res = await new WebClient(app).get('/user/settings/change_password');
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, '/user/login?redirect_to=%2Fuser%2Fsettings%2Fchange_password%3Fredirect_to%3D%252Fuser%252Fsettings%252Fapplications');
});

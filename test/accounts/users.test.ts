// Users: creation by a site admin (validation, case-insensitive uniqueness, Gitea's defaults),
// the signed-in user, and users by name with visibility and the e-mail rules.
import t from 'tap';
import { startTestServices } from '../helper.js';
import { apiError, basic, makeToken, makeUser, PASSWORD } from './fixtures.js';

const USER_KEYS = [
  'id', 'login', 'login_name', 'source_id', 'full_name', 'email', 'avatar_url', 'html_url', 'language', 'is_admin',
  'last_login', 'created', 'restricted', 'active', 'prohibit_login', 'location', 'website', 'description', 'visibility',
  'followers_count', 'following_count', 'starred_repos_count', 'username',
];

t.test('POST /admin/users: admins only, Gitea\'s defaults, validation and case-insensitive uniqueness', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'root', { admin: true });
  await makeUser(db, 'alice');
  const rootToken = await makeToken(app, 'root', ['write:admin']);
  const create = (payload: object, authorization = `token ${rootToken}`) =>
    app.inject({ method: 'POST', url: '/api/v1/admin/users', headers: { authorization }, payload });

  const made = await create({ username: 'Dave', email: 'dave@example.com', password: 'long enough password', full_name: 'Dave D' });
  t.equal(made.statusCode, 201);
  t.same(Object.keys(made.json()), USER_KEYS, 'User fields in Gitea\'s order, with the `username` alias last');
  t.match(made.json(), { login: 'Dave', username: 'Dave', full_name: 'Dave D', email: 'dave@example.com', active: true, is_admin: false, visibility: 'public' });
  const dave = await app.inject({ url: '/api/v1/user', headers: { authorization: basic('dave', 'long enough password') } });
  t.equal(dave.statusCode, 403, 'must_change_password defaults to true when omitted');
  t.match(dave.json().message, /^You must change your password/);

  const free = await create({ username: 'erin', email: 'erin@example.com', password: 'long enough password', must_change_password: false, visibility: 'limited', restricted: true });
  t.equal(free.statusCode, 201);
  t.match(free.json(), { visibility: 'limited', restricted: true });
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: basic('erin', 'long enough password') } })).statusCode, 200, 'explicit false is kept');
  t.equal((await create({ username: 'nullish', email: 'n@example.com', password: 'long enough password', must_change_password: null })).statusCode, 201);
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: basic('nullish', 'long enough password') } })).statusCode, 403, 'null means the default (true), not false');

  for (const [payload, status, message] of [
    [{ username: 'ALICE', email: 'other@example.com', password: 'long enough password' }, 422, 'user already exists [name: ALICE]'],
    [{ username: 'dave', email: 'other@example.com', password: 'long enough password' }, 422, 'user already exists [name: dave]'],
    [{ username: 'bad name', email: 'b@example.com', password: 'long enough password' }, 422, 'name is invalid [bad name]: must be valid alpha or numeric or dash(-_) or dot characters'],
    [{ username: 'dots..', email: 'b@example.com', password: 'long enough password' }, 422, 'name is invalid [dots..]: must be valid alpha or numeric or dash(-_) or dot characters'],
    [{ username: 'api', email: 'b@example.com', password: 'long enough password' }, 422, 'name is reserved [name: api]'],
    [{ username: 'foo.keys', email: 'b@example.com', password: 'long enough password' }, 422, 'name pattern is not allowed [pattern: *.keys]'],
    [{ username: 'x'.repeat(41), email: 'b@example.com', password: 'long enough password' }, 422, 'name is too long [max: 40]'],
    [{ username: 'newbie', email: 'not-an-address', password: 'long enough password' }, 422, '[Email]: Email'],
    [{ username: 'newbie', email: '-x@example.com', password: 'long enough password' }, 422, 'e-mail invalid [email: -x@example.com]'],
    [{ username: 'newbie', email: 'b@example.com', password: 'long enough password', visibility: 'bogus' }, 422, '[Visibility]: In'],
    [{ username: 'newbie', email: 'DAVE@example.com', password: 'long enough password' }, 422, 'e-mail already in use [email: DAVE@example.com]'],
    [{ username: 'newbie', email: 'b@example.com', password: 'short' }, 400, 'PasswordIsRequired'],
    [{ username: 'newbie', email: 'b@example.com' }, 400, 'PasswordIsRequired'],
    [{ username: 'newbie', email: 'b@example.com', password: 'long enough password', source_id: 3 }, 422, 'login source does not exist [id: 3]'],
  ] as const) {
    const res = await create(payload);
    t.equal(res.statusCode, status, `${JSON.stringify(payload).slice(0, 60)}: ${status}`);
    t.same(res.json(), apiError(app, message));
  }
  t.equal((await create({ email: 'b@example.com', password: 'long enough password' })).statusCode, 422, 'username is required');

  const notAdmin = await create({ username: 'newbie', email: 'b@example.com', password: 'long enough password' }, basic('alice', PASSWORD));
  t.equal(notAdmin.statusCode, 403);
  t.same(notAdmin.json(), apiError(app, 'user should be the site admin'));
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/admin/users', payload: { username: 'x', email: 'x@example.com' } })).statusCode, 401, 'anonymous');
  t.equal((await db('users').where({ lower_name: 'newbie' }).first()) ?? null, null, 'nothing was created by the refused requests');
});

t.test('GET /user and /users/{name}: private fields, e-mail rules and visibility', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'root', { admin: true });
  const alice = await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  await makeUser(db, 'limitedlucy', { visibility: 'limited' });
  await makeUser(db, 'privatepete', { visibility: 'private' });
  await db('users').where({ id: alice.id }).update({ keep_email_private: true, full_name: 'Alice A', location: 'Here' });
  const as = (who: string | null, url: string) => app.inject({ url, headers: who ? { authorization: basic(who, PASSWORD) } : {} });
  const host = new URL(app.services.config.APP_URL).hostname;

  const self = (await as('alice', '/api/v1/user')).json();
  t.match(self, { login: 'alice', email: 'alice@example.com', full_name: 'Alice A', location: 'Here', active: true, html_url: `${app.services.config.APP_URL}alice` });
  t.equal(self.last_login, '1970-01-01T00:00:00Z', 'admin/self see last_login (Gitea prints the zero stamp as 1970)');

  const anonymous = (await as(null, '/api/v1/users/bob')).json();
  t.equal(anonymous.email, `bob@noreply.${host}`, 'anonymous callers see the no-reply placeholder');
  t.equal(anonymous.active, false, 'and no private fields');
  t.equal(anonymous.last_login, '0001-01-01T00:00:00Z');
  t.equal((await as('alice', '/api/v1/users/bob')).json().email, 'bob@example.com', 'signed-in callers see a public address');
  t.equal((await as('bob', '/api/v1/users/alice')).json().email, `alice@noreply.${host}`, 'a kept-private address is hidden from others');
  const byAdmin = (await as('root', '/api/v1/users/alice')).json();
  t.equal(byAdmin.email, 'alice@example.com', 'but not from admins');
  t.equal(byAdmin.active, true);
  t.equal((await as('root', '/api/v1/users/root')).json().is_admin, true);
  t.equal((await as('alice', '/api/v1/users/root')).json().is_admin, false, 'is_admin is admin/self only');
  t.equal((await as('alice', '/api/v1/users/ALICE')).json().login, 'alice', 'names are case-insensitive');

  const missing = await as(null, '/api/v1/users/nobody');
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), apiError(app, 'not found'));
  t.equal((await as(null, '/api/v1/users/limitedlucy')).statusCode, 404, 'limited users are hidden from anonymous callers');
  t.equal((await as('bob', '/api/v1/users/limitedlucy')).statusCode, 200, 'and visible when signed in');
  t.equal((await as('bob', '/api/v1/users/privatepete')).statusCode, 404, 'private users are hidden from others');
  t.equal((await as('privatepete', '/api/v1/users/privatepete')).statusCode, 200, 'but not from themselves');
  t.equal((await as('root', '/api/v1/users/privatepete')).statusCode, 200, 'or admins');

  const org = await app.inject({ method: 'POST', url: '/api/v1/orgs', headers: { authorization: basic('privatepete', PASSWORD) }, payload: { username: 'club' } });
  t.equal(org.statusCode, 201);
  const owners = (await app.inject({ url: '/api/v1/orgs/club/teams', headers: { authorization: basic('privatepete', PASSWORD) } })).json()[0];
  t.equal((await app.inject({ method: 'PUT', url: `/api/v1/teams/${owners.id}/members/bob`, headers: { authorization: basic('privatepete', PASSWORD) } })).statusCode, 204);
  t.equal((await as('bob', '/api/v1/users/privatepete')).statusCode, 200, 'nor from people who share an organization');
});

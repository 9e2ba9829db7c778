// Site administration against the real app: listing users with Gitea's filters, order and paging,
// editing (every field, Gitea's refusals, nothing written when refused), deleting (its rules and
// purge), listing organizations and creating one for a user; only site admins may.
import t from 'tap';
import { peopleWorld } from './world.js';
import { basic, PASSWORD } from '../repos/fixtures.js';
import { usersStore } from '../../db/users.js';

const swagger = (w: { config: { APP_URL: string } }) => `${w.config.APP_URL}api/swagger`;

t.test('site administration of accounts', async (t) => {
  const w = await peopleWorld(t);
  const root = await w.user('root', { admin: true });
  await w.user('alice');
  const bob = await w.user('bob');
  await w.user('carol', { restricted: true });
  await w.user('dave', { visibility: 'private' });
  await w.user('erin', { visibility: 'limited' });
  const users = usersStore(w.db);
  await users.update(bob.id, { is_active: false, full_name: 'Robert Tables', keep_email_private: true });
  await w.must(201, { method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme' } });

  await t.test('only site admins', async (t) => {
    for (const [method, url, body] of [
      ['GET', '/api/v1/admin/users', undefined], ['PATCH', '/api/v1/admin/users/bob', { login_name: 'bob' }], ['DELETE', '/api/v1/admin/users/bob', undefined],
      ['GET', '/api/v1/admin/orgs', undefined], ['POST', '/api/v1/admin/users/bob/orgs', { username: 'bobs' }],
    ] as const) {
      const anonymous = await w.api({ method, url, body });
      t.equal(anonymous.statusCode, 401, `${method} ${url} anonymous`);
      const other = await w.api({ method, url, body, as: 'alice' });
      t.equal(other.statusCode, 403, `${method} ${url} as a user`);
      t.same(other.json(), { message: 'user should be the site admin', url: swagger(w) });
      const narrow = await w.api({ method, url, body, headers: await w.token('root', ['write:user', 'read:user']) });
      t.equal(narrow.statusCode, 403, `${method} ${url} with a token without the admin scope`);
    }
    t.equal((await w.api({ url: '/api/v1/admin/users', headers: await w.token('root', ['read:admin']) })).statusCode, 200, 'read:admin lists');
  });

  await t.test('listing users', async (t) => {
    const all = await w.must(200, { url: '/api/v1/admin/users', as: 'root' });
    t.same(all.json().map((u: { login: string }) => u.login), ['alice', 'bob', 'carol', 'dave', 'erin', 'root'], 'users only (no organizations), by name, private ones too');
    t.equal(all.headers['x-total-count'], '6');
    t.equal(all.json()[1].email, 'bob@example.com', 'admins see private e-mail addresses');
    t.equal(all.json()[1].active, false, 'and account state');
    const paged = await w.must(200, { url: '/api/v1/admin/users?limit=2&page=2', as: 'root' });
    t.same(paged.json().map((u: { login: string }) => u.login), ['carol', 'dave']);
    t.match(paged.headers.link, /rel="next".*rel="last".*rel="first".*rel="prev"/);
    const by = async (query: string) => (await w.must(200, { url: `/api/v1/admin/users?${query}`, as: 'root' })).json().map((u: { login: string }) => u.login);
    t.same(await by('sort=name&order=desc'), ['root', 'erin', 'dave', 'carol', 'bob', 'alice']);
    t.same(await by('sort=id&order=desc'), ['erin', 'dave', 'carol', 'bob', 'alice', 'root']);
    t.same(await by('q=TABLES'), ['bob'], 'the keyword matches the full name');
    t.same(await by('q=bob%40example'), ['bob'], 'and, for admins, e-mail addresses kept private');
    t.same(await by('is_active=false'), ['bob']);
    t.same(await by('is_active=nonsense'), ['bob'], 'a value Gitea cannot read counts as false');
    t.same(await by('is_admin=1'), ['root']);
    t.same(await by('is_restricted=true'), ['carol']);
    t.same(await by('visibility=private'), ['dave']);
    t.same(await by('visibility=limited&q=e'), ['erin']);
    t.same(await by('is_2fa_enabled=true'), []);
    t.same(await by('is_prohibit_login=false&q=alice'), ['alice']);
    t.same(await by('source_id=3'), [], 'only the local login source exists');
    t.same(await by('sort=&order=zzz&q=alice'), ['alice'], 'an empty sort ignores the order');
    for (const [query, message] of [['sort=name&order=x', 'Invalid sort order: "x"'], ['sort=nope', 'Invalid sort mode: "nope"'], ['visibility=x', 'Invalid visibility: "x"']]) {
      const res = await w.must(422, { url: `/api/v1/admin/users?${query}`, as: 'root' });
      t.same(res.json(), { message, url: swagger(w) }, query);
    }
  });

  await t.test('editing a user', async (t) => {
    const edited = await w.must(200, {
      method: 'PATCH', url: '/api/v1/admin/users/alice', as: 'root',
      body: {
        login_name: 'alice-login', full_name: 'Alice A', email: 'Alice.New@example.com', website: 'https://alice.example', location: 'Here',
        description: 'Tester', active: true, admin: null, allow_git_hook: true, allow_import_local: true, max_repo_creation: 3,
        prohibit_login: false, allow_create_organization: false, restricted: false, visibility: 'limited', must_change_password: true, source_id: 0,
      },
    });
    t.match(edited.json(), { login: 'alice', login_name: 'alice-login', full_name: 'Alice A', email: 'Alice.New@example.com', website: 'https://alice.example', location: 'Here', description: 'Tester', visibility: 'limited', is_admin: false });
    const row = (await users.byName('alice'))!;
    t.match(row, { allow_git_hook: true, allow_import_local: true, max_repo_creation: 3, allow_create_organization: false, must_change_password: true, lower_email: 'alice.new@example.com' });
    const mustChange = await w.api({ url: '/api/v1/user', headers: basic('alice', PASSWORD) });
    t.equal(mustChange.statusCode, 403, 'must_change_password keeps the user out of the API until they change it');
    t.match(mustChange.json().message, /^You must change your password/);
    await w.must(200, { method: 'PATCH', url: '/api/v1/admin/users/alice', as: 'root', body: { login_name: 'alice', must_change_password: false } });
    t.equal((await w.api({ url: '/api/v1/user', headers: basic('alice', PASSWORD) })).statusCode, 200, 'the password still works');
    await w.must(200, { method: 'PATCH', url: '/api/v1/admin/users/alice', as: 'root', body: { login_name: 'alice', password: 'a brand new password' } });
    t.equal((await w.api({ url: '/api/v1/user', headers: basic('alice', 'a brand new password') })).statusCode, 200, 'a new password takes effect');
    t.equal((await w.api({ url: '/api/v1/user', headers: basic('alice', PASSWORD) })).statusCode, 401, 'the old one does not');

    const before = JSON.stringify(await users.byName('alice'));
    for (const [body, status, message] of [
      [{ full_name: 'X' }, 422, '[LoginName]: Required'],
      [{ login_name: '', full_name: 'X' }, 422, '[LoginName]: Required'],
      [{ login_name: 'a', full_name: 'X', password: 'short' }, 400, 'password must be at least 8 characters'],
      [{ login_name: 'a', full_name: 'X', email: 'not-an-email' }, 400, 'e-mail address contains unsupported character [email: not-an-email]'],
      [{ login_name: 'a', full_name: 'X', email: '-x@example.com' }, 400, 'e-mail invalid [email: -x@example.com]'],
      [{ login_name: 'a', full_name: 'X', email: 'bob@example.com' }, 400, 'e-mail already in use [email: bob@example.com]'],
      [{ login_name: 'a', full_name: 'X', source_id: 5 }, 422, 'login source does not exist [id: 5]'],
      [{ login_name: 'a', full_name: 'X', visibility: 'bogus' }, 422, '[Visibility]: In'],
      [{ login_name: 'a', full_name: 'X', website: 'not a url' }, 422, '[Website]: Url'],
    ] as const) {
      const res = await w.must(status, { method: 'PATCH', url: '/api/v1/admin/users/alice', as: 'root', body });
      t.same(res.json(), { message, url: swagger(w) }, message);
    }
    t.equal(JSON.stringify(await users.byName('alice')), before, 'a refused edit writes nothing, not even the fields before the bad one');
    const last = await w.must(400, { method: 'PATCH', url: '/api/v1/admin/users/root', as: 'root', body: { login_name: 'root', admin: false } });
    t.same(last.json(), { message: `can not delete the last admin user [uid: ${root.id}]`, url: swagger(w) });
    await w.must(404, { method: 'PATCH', url: '/api/v1/admin/users/nobody', as: 'root', body: { login_name: 'x' } });

    const token = await w.token('erin', ['all']);
    t.equal((await w.api({ url: '/api/v1/user', headers: token })).statusCode, 200);
    await w.must(200, { method: 'PATCH', url: '/api/v1/admin/users/erin', as: 'root', body: { login_name: 'erin', prohibit_login: true } });
    t.equal((await w.api({ url: '/api/v1/user', headers: token })).statusCode, 403, 'a user barred from signing in loses API access at once');
    await w.must(200, { method: 'PATCH', url: '/api/v1/admin/users/erin', as: 'root', body: { login_name: 'erin', prohibit_login: false, admin: true } });
    t.equal((await w.api({ url: '/api/v1/admin/users', headers: token })).statusCode, 200, 'a new admin administers');
    await w.must(200, { method: 'PATCH', url: '/api/v1/admin/users/erin', as: 'root', body: { login_name: 'erin', admin: false } });
  });

  await t.test('what the edited settings do', async (t) => {
    const refused = await w.must(403, { method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'alices' } });
    t.equal(refused.json().message, 'user is not allowed to create organizations', 'allow_create_organization: false');
    const adminRefused = await w.must(403, { method: 'POST', url: '/api/v1/admin/users/alice/orgs', as: 'root', body: { username: 'alices' } });
    t.equal(adminRefused.json().message, 'user is not allowed to create organizations', 'not even an admin makes one for them');
    for (const name of ['one', 'two', 'three']) await w.must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name } });
    const limit = await w.must(403, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'four' } });
    t.equal(limit.json().message, 'user has reached maximum limit of repositories [limit: 3]', 'max_repo_creation: 3');
    await w.must(201, { method: 'POST', url: '/api/v1/admin/users/alice/repos', as: 'root', body: { name: 'four' } });
    t.pass('a site admin creating for them is not limited');
  });

  await t.test('creating a user keeps the login name', async (t) => {
    const made = await w.must(201, { method: 'POST', url: '/api/v1/admin/users', as: 'root', body: { username: 'frank', email: 'frank@example.com', password: 'long enough password', login_name: 'ext-frank', must_change_password: false } });
    t.equal(made.json().login_name, 'ext-frank', 'shown to the admin');
    t.equal((await w.must(200, { url: '/api/v1/users/frank', as: 'alice' })).json().login_name, '', 'not to others');
    t.equal((await w.must(422, { method: 'POST', url: '/api/v1/admin/users', as: 'root', body: { username: 'gina', email: 'nope', password: 'long enough password' } })).json().message, '[Email]: Email');
    await w.must(204, { method: 'DELETE', url: '/api/v1/admin/users/frank', as: 'root' });
  });

  await t.test('organizations', async (t) => {
    const made = await w.must(201, { method: 'POST', url: '/api/v1/admin/users/bob/orgs', as: 'root', body: { username: 'bobcorp', full_name: 'Bob Corp', email: 'x@y.z', visibility: 'private', repo_admin_change_team_access: true } });
    t.match(made.json(), { name: 'bobcorp', full_name: 'Bob Corp', email: '', visibility: 'private', repo_admin_change_team_access: false }, 'as in Gitea, e-mail and team-access flag are not taken');
    const owners = (await w.must(200, { url: '/api/v1/orgs/bobcorp/teams', as: 'root' })).json();
    t.same(owners.map((x: { name: string }) => x.name), ['Owners']);
    t.same((await w.must(200, { url: `/api/v1/teams/${owners[0].id}/members`, as: 'root' })).json().map((u: { login: string }) => u.login), ['bob'], 'the user owns it');
    for (const [body, message] of [[{ username: 'bobcorp' }, 'user already exists [name: bobcorp]'], [{ username: 'bad name' }, 'name is invalid [bad name]: must be valid alpha or numeric or dash(-_) or dot characters']] as const) {
      t.same((await w.must(422, { method: 'POST', url: '/api/v1/admin/users/bob/orgs', as: 'root', body })).json().message, message);
    }
    await w.must(404, { method: 'POST', url: '/api/v1/admin/users/nobody/orgs', as: 'root', body: { username: 'nobodys' } });
    await w.must(422, { method: 'POST', url: '/api/v1/admin/users/acme/orgs', as: 'root', body: { username: 'sub' } });
    const orgs = await w.must(200, { url: '/api/v1/admin/orgs', as: 'root' });
    t.same(orgs.json().map((o: { name: string }) => o.name), ['acme', 'bobcorp'], 'every organization, private ones too, by name');
    t.equal(orgs.headers['x-total-count'], '2');
    t.same((await w.must(200, { url: '/api/v1/admin/orgs?limit=1&page=2', as: 'root' })).json().map((o: { name: string }) => o.name), ['bobcorp']);
  });

  await t.test('deleting users', async (t) => {
    for (const [name, message] of [
      ['root', 'you cannot delete yourself'],
      ['acme', 'acme is an organization not a user'],
      ['alice', `user still has ownership of repositories [uid: ${(await users.byName('alice'))!.id}]`],
      ['bob', `user still has membership of organizations [uid: ${bob.id}]`],
    ] as const) {
      const res = await w.must(422, { method: 'DELETE', url: `/api/v1/admin/users/${name}`, as: 'root' });
      t.same(res.json(), { message, url: swagger(w) }, message);
    }
    await w.must(404, { method: 'DELETE', url: '/api/v1/admin/users/nobody', as: 'root' });
    await w.must(422, { method: 'DELETE', url: '/api/v1/admin/users/bob?purge=maybe', as: 'root' });
    t.pass('purge=maybe is not purge');

    // carol: no repositories, no organizations, an issue on alice's repository that stays.
    // carol is restricted: she reaches alice's repository only as a collaborator.
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/one/collaborators/carol', as: 'alice', body: { permission: 'read' } });
    await w.must(201, { method: 'POST', url: '/api/v1/repos/alice/one/issues', as: 'carol', body: { title: 'from carol' } });
    const carolToken = await w.token('carol', ['all']);
    await w.must(204, { method: 'DELETE', url: '/api/v1/admin/users/carol', as: 'root' });
    t.notOk(await users.byName('carol'), 'gone');
    t.equal((await w.api({ url: '/api/v1/user', headers: carolToken })).statusCode, 401, 'their tokens stop working at once');
    const issue = (await w.must(200, { url: '/api/v1/repos/alice/one/issues/1', as: 'alice' })).json();
    t.match(issue.user, { id: -1, login: 'Ghost' }, 'their issue stays, by the Ghost user');

    // bob with purge: his repository goes, he leaves acme, and bobcorp (he was its last owner) goes with its repository.
    await w.must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'root', body: { name: 'rootrepo' } });
    await w.must(201, { method: 'POST', url: '/api/v1/admin/users/bob/repos', as: 'root', body: { name: 'bobs-repo' } });
    await w.must(201, { method: 'POST', url: '/api/v1/orgs/bobcorp/repos', as: 'root', body: { name: 'corp-repo' } });
    const acmeOwners = (await w.must(200, { url: '/api/v1/orgs/acme/teams', as: 'alice' })).json()[0];
    await w.must(204, { method: 'PUT', url: `/api/v1/teams/${acmeOwners.id}/members/bob`, as: 'alice' });
    await w.must(204, { method: 'DELETE', url: '/api/v1/admin/users/bob?purge=true', as: 'root' });
    t.notOk(await users.byName('bob'), 'bob is gone');
    t.notOk(await users.byName('bobcorp'), 'the organization he alone owned is gone');
    t.ok(await users.byName('acme'), 'the one he shared is not');
    t.same((await w.must(200, { url: `/api/v1/teams/${acmeOwners.id}/members`, as: 'alice' })).json().map((u: { login: string }) => u.login), ['alice']);
    const left = await w.db('repositories').whereIn('name', ['bobs-repo', 'corp-repo', 'rootrepo']).select('name');
    t.same(left.map((r: { name: string }) => r.name), ['rootrepo'], 'their repositories are deleted');
  });
});

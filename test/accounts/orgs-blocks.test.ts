// Organizations, teams and members, and blocks (user and organization variants).
import t from 'tap';
import { isBlocked } from '../../core/blocks.js';
import { isOrgOwner, teamsOfUserInOrg } from '../../core/organizations.js';
import { startTestServices } from '../helper.js';
import { apiError, basic, makeUser, PASSWORD } from './fixtures.js';

const ORG_KEYS = ['id', 'name', 'full_name', 'email', 'avatar_url', 'description', 'website', 'location', 'visibility', 'repo_admin_change_team_access', 'username'];
const TEAM_KEYS = ['id', 'name', 'description', 'organization', 'includes_all_repositories', 'permission', 'units', 'units_map', 'can_create_org_repo'];

t.test('organizations and teams', async (t) => {
  const { app, db } = await startTestServices(t);
  const alice = await makeUser(db, 'alice');
  const bob = await makeUser(db, 'bob');
  await makeUser(db, 'carol');
  await makeUser(db, 'root', { admin: true });
  const as = (who: string | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url, headers: who ? { authorization: basic(who, PASSWORD) } : {}, ...(payload ? { payload } : {}) });

  const created = await as('alice', 'POST', '/api/v1/orgs', {
    username: 'acme', full_name: 'Acme Inc', email: 'hello@acme.test', description: 'Tools', website: 'https://acme.test',
    location: 'Earth', repo_admin_change_team_access: true,
  });
  t.equal(created.statusCode, 201);
  const org = created.json();
  t.same(Object.keys(org), ORG_KEYS, 'Organization fields in Gitea\'s order');
  t.match(org, { name: 'acme', username: 'acme', full_name: 'Acme Inc', email: 'hello@acme.test', visibility: 'public', repo_admin_change_team_access: true });
  t.equal((await as(null, 'GET', '/api/v1/orgs/acme')).json().email, '', 'anonymous callers do not see the e-mail');
  t.same((await as('bob', 'GET', '/api/v1/orgs/ACME')).json(), org, 'signed-in callers see it all; names are case-insensitive');

  for (const [payload, message] of [
    [{ username: 'acme' }, 'user already exists [name: acme]'],
    [{ username: 'Alice' }, 'user already exists [name: Alice]'],
    [{ username: 'bad org' }, 'name is invalid [bad org]: must be valid alpha or numeric or dash(-_) or dot characters'],
  ] as const) {
    const res = await as('bob', 'POST', '/api/v1/orgs', payload);
    t.equal(res.statusCode, 422);
    t.same(res.json(), apiError(app, message));
  }
  t.equal((await as(null, 'POST', '/api/v1/orgs', { username: 'anon' })).statusCode, 401, 'anonymous cannot create organizations');

  const teams = await as('alice', 'GET', '/api/v1/orgs/acme/teams');
  t.equal(teams.statusCode, 200);
  t.equal(teams.headers['x-total-count'], '1');
  const owners = teams.json()[0];
  t.same(Object.keys(owners), TEAM_KEYS, 'Team fields in Gitea\'s order');
  t.match(owners, { name: 'Owners', permission: 'owner', includes_all_repositories: true, can_create_org_repo: true, organization: null });
  t.equal(owners.units_map['repo.code'], 'owner');
  t.equal(owners.units_map['repo.ext_issues'], 'owner', 'as Gitea 1.26 shows them, the Owners team has every unit at owner');
  t.same(Object.keys(owners.units_map), [...Object.keys(owners.units_map)].sort(), 'units_map keys sorted, as Go writes a map');
  t.ok(await isOrgOwner(db, org.id, alice.id), 'the creator owns the organization');
  t.notOk(await isOrgOwner(db, org.id, bob.id));

  const devs = await as('alice', 'POST', '/api/v1/orgs/acme/teams', { name: 'devs', description: 'Developers', permission: 'write' });
  t.equal(devs.statusCode, 201);
  t.match(devs.json(), { name: 'devs', permission: 'none', organization: { name: 'acme' }, includes_all_repositories: false }, 'Gitea 1.26: a new team comes with its organization; below admin its access is per unit');
  t.equal(devs.json().units_map['repo.pulls'], 'write');
  const readers = await as('alice', 'POST', '/api/v1/orgs/acme/teams', { name: 'readers', permission: 'write', units_map: { 'repo.code': 'read', 'repo.issues': 'write', 'repo.nothing': 'admin' } });
  t.equal(readers.statusCode, 201);
  t.same(readers.json().units_map, { 'repo.code': 'read', 'repo.issues': 'write' }, 'units_map as given (unknown units dropped)');
  t.equal(readers.json().permission, 'none', 'below admin the permission shows none (access is per unit)');
  t.same(readers.json().units, ['repo.code', 'repo.issues']);
  const admins = await as('alice', 'POST', '/api/v1/orgs/acme/teams', { name: 'admins', permission: 'admin', units_map: { 'repo.code': 'read' } });
  t.equal(admins.json().units_map['repo.code'], 'admin', 'admin teams get every unit at admin');
  const dup = await as('alice', 'POST', '/api/v1/orgs/acme/teams', { name: 'DEVS', permission: 'read' });
  t.equal(dup.statusCode, 422);
  t.same(dup.json(), apiError(app, `team already exists [org_id: ${org.id}, name: devs]`), 'Gitea names the lower-cased name');
  const owner = await as('alice', 'POST', '/api/v1/orgs/acme/teams', { name: 'x', permission: 'owner', units: ['repo.code'] });
  t.equal(owner.statusCode, 201, 'as in Gitea, owner is no permission one can ask for: the team gets none');
  t.match(owner.json(), { permission: 'none', units_map: { 'repo.code': 'none' } });
  t.same((await as('alice', 'POST', '/api/v1/orgs/acme/teams', { name: 'bad name', permission: 'read' })).json(), apiError(app, '[Name]: AlphaDashDot'));
  t.equal((await as('bob', 'POST', '/api/v1/orgs/acme/teams', { name: 'mine', permission: 'read' })).statusCode, 403, 'non-owners cannot create teams');

  const devsId = devs.json().id as number;
  t.equal((await as('bob', 'PUT', `/api/v1/teams/${devsId}/members/bob`)).statusCode, 404, 'a stranger cannot add members (the team is hidden)');
  t.equal((await as('alice', 'PUT', `/api/v1/teams/${devsId}/members/bob`)).statusCode, 204);
  t.equal((await as('alice', 'PUT', `/api/v1/teams/${devsId}/members/bob`)).statusCode, 204, 'adding twice is fine');
  t.equal((await as('alice', 'PUT', `/api/v1/teams/${devsId}/members/nobody`)).statusCode, 404);
  const members = await as('bob', 'GET', `/api/v1/teams/${devsId}/members`);
  t.equal(members.statusCode, 200);
  t.same(members.json().map((u: { login: string }) => u.login), ['bob']);
  t.equal(members.headers['x-total-count'], '1');
  t.same((await teamsOfUserInOrg(db, org.id, bob.id)).map((team) => [team.name, team.permission]), [['devs', 'write']]);

  const team = await as('bob', 'GET', `/api/v1/teams/${devsId}`);
  t.equal(team.statusCode, 200, 'a member reads the team');
  t.same(team.json().organization, org, 'with its organization');
  const notMine = await as('bob', 'GET', `/api/v1/teams/${owners.id}`);
  t.equal(notMine.statusCode, 403, 'another team of one\'s organization');
  t.same(notMine.json(), apiError(app, 'Must be a team member'));
  t.equal((await as('carol', 'GET', `/api/v1/teams/${devsId}`)).statusCode, 404, 'outsiders do not learn the team exists');
  t.equal((await as('root', 'GET', `/api/v1/teams/${devsId}`)).statusCode, 200, 'site admins see every team');
  t.equal((await as('carol', 'GET', '/api/v1/orgs/acme/teams')).statusCode, 403, 'listing teams needs membership');
  t.equal((await as('bob', 'DELETE', `/api/v1/teams/${devsId}/members/bob`)).statusCode, 404, 'a member is not an owner');

  const last = await as('alice', 'DELETE', `/api/v1/teams/${owners.id}/members/alice`);
  t.equal(last.statusCode, 422, 'the last owner stays');
  t.same(last.json(), apiError(app, `user is the last member of owner team [uid: ${alice.id}]`));
  t.equal((await as('alice', 'PUT', `/api/v1/teams/${owners.id}/members/bob`)).statusCode, 204);
  t.equal((await as('bob', 'DELETE', `/api/v1/teams/${owners.id}/members/alice`)).statusCode, 204, 'with a second owner, the first can go');
  t.notOk(await isOrgOwner(db, org.id, alice.id));

  const hidden = await as('bob', 'POST', '/api/v1/orgs', { username: 'hideout', visibility: 'private' });
  t.equal(hidden.statusCode, 201);
  t.equal((await as(null, 'GET', '/api/v1/orgs/hideout')).statusCode, 404, 'private organizations are hidden');
  t.equal((await as('carol', 'GET', '/api/v1/orgs/hideout')).statusCode, 404, 'from non-members too');
  t.equal((await as('bob', 'GET', '/api/v1/orgs/hideout')).statusCode, 200, 'but not from members');
  t.equal((await as('root', 'GET', '/api/v1/orgs/hideout')).statusCode, 200, 'or admins');
  t.equal((await as('bob', 'GET', '/api/v1/orgs/bob')).statusCode, 404, 'a user is not an organization');
});

t.test('blocks: users and organizations', async (t) => {
  const { app, db } = await startTestServices(t);
  const alice = await makeUser(db, 'alice');
  const bob = await makeUser(db, 'bob');
  await makeUser(db, 'carol');
  const as = (who: string, method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, headers: { authorization: basic(who, PASSWORD) }, ...(payload ? { payload } : {}) });
  t.equal((await as('alice', 'POST', '/api/v1/orgs', { username: 'acme' })).statusCode, 201);

  t.equal((await as('alice', 'PUT', '/api/v1/user/blocks/bob?note=spam')).statusCode, 204);
  t.ok(await isBlocked(db, alice.id, bob.id), 'isBlocked sees it');
  t.notOk(await isBlocked(db, bob.id, alice.id), 'in one direction only');
  t.equal((await as('alice', 'GET', '/api/v1/user/blocks/bob')).statusCode, 204, 'check: blocked');
  t.equal((await as('alice', 'GET', '/api/v1/user/blocks/carol')).statusCode, 404, 'check: not blocked');
  t.equal((await as('alice', 'GET', '/api/v1/user/blocks/nobody')).statusCode, 404, 'check: unknown user');
  const list = await as('alice', 'GET', '/api/v1/user/blocks');
  t.equal(list.headers['x-total-count'], '1');
  t.notOk(list.headers.link);
  t.same(list.json().map((u: { login: string }) => u.login), ['bob']);

  for (const [url, message] of [
    ['/api/v1/user/blocks/alice', 'cannot block the user'],
    ['/api/v1/user/blocks/bob', 'cannot block the user'],
    ['/api/v1/user/blocks/acme', 'cannot block an organization'],
  ] as const) {
    const res = await as('alice', 'PUT', url);
    t.equal(res.statusCode, 400, url);
    t.same(res.json(), apiError(app, message));
  }
  t.equal((await as('alice', 'PUT', '/api/v1/user/blocks/nobody')).statusCode, 404);
  t.equal((await as('alice', 'DELETE', '/api/v1/user/blocks/bob')).statusCode, 204);
  const again = await as('alice', 'DELETE', '/api/v1/user/blocks/bob');
  t.equal(again.statusCode, 400);
  t.same(again.json(), apiError(app, 'cannot unblock the user'));
  t.notOk(await isBlocked(db, alice.id, bob.id));

  const owners = (await as('alice', 'GET', '/api/v1/orgs/acme/teams')).json()[0];
  t.equal((await as('alice', 'PUT', '/api/v1/orgs/acme/blocks/carol')).statusCode, 204, 'an owner blocks for the organization');
  t.equal((await as('alice', 'GET', '/api/v1/orgs/acme/blocks/carol')).statusCode, 204);
  t.equal((await as('alice', 'GET', '/api/v1/orgs/acme/blocks')).headers['x-total-count'], '1');
  const joined = await as('alice', 'PUT', `/api/v1/teams/${owners.id}/members/carol`);
  t.equal(joined.statusCode, 403, 'a blocked user cannot be added to the organization');
  t.same(joined.json(), apiError(app, 'user is blocked'));
  t.equal((await as('bob', 'PUT', '/api/v1/orgs/acme/blocks/alice')).statusCode, 403, 'non-owners cannot block for the organization');
  const member = await as('alice', 'PUT', '/api/v1/orgs/acme/blocks/alice');
  t.equal(member.statusCode, 400, 'an organization cannot block its members');
  t.equal((await as('alice', 'DELETE', '/api/v1/orgs/acme/blocks/carol')).statusCode, 204);
  t.equal((await as('alice', 'PUT', `/api/v1/teams/${owners.id}/members/carol`)).statusCode, 204, 'unblocked, carol can join');
});

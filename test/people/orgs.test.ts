// Organizations, memberships and teams against the real app: editing and deleting an
// organization, its lists, members and public members, a user's permissions in it, team edits,
// deletion and search, and which repositories a team reaches (both ways). Private organizations
// stay hidden from those who may not see them.
import t from 'tap';
import { isOrgMember, isOrgOwner } from '../../core/organizations.js';
import { usersStore } from '../../db/users.js';
import { peopleWorld } from './world.js';

const names = (list: Array<{ login?: string; name?: string }>) => list.map((x) => x.login ?? x.name);

t.test('organizations, memberships and teams', async (t) => {
  const w = await peopleWorld(t);
  await w.user('root', { admin: true });
  for (const name of ['alice', 'bob', 'carol', 'dave']) await w.user(name);
  await w.user('rita', { restricted: true });
  const org = (await w.must(201, { method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme', email: 'hi@acme.test' } })).json();
  await w.must(201, { method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'hideout', visibility: 'private' } });
  await w.must(201, { method: 'POST', url: '/api/v1/orgs', as: 'dave', body: { username: 'inner', visibility: 'limited' } });
  const ownersOf = async (o: string) => (await w.must(200, { url: `/api/v1/orgs/${o}/teams`, as: 'root' })).json().find((x: { name: string }) => x.name === 'Owners');
  const acmeOwners = await ownersOf('acme');
  const devs = (await w.must(201, { method: 'POST', url: '/api/v1/orgs/acme/teams', as: 'alice', body: { name: 'devs', description: 'Developers', permission: 'write', units: ['repo.code', 'repo.pulls'] } })).json();
  await w.must(204, { method: 'PUT', url: `/api/v1/teams/${devs.id}/members/bob`, as: 'alice' });
  await w.must(204, { method: 'PUT', url: `/api/v1/teams/${devs.id}/members/rita`, as: 'alice' });
  await w.must(204, { method: 'PUT', url: `/api/v1/teams/${(await ownersOf('hideout')).id}/members/bob`, as: 'alice' });

  await t.test('members and public members', async (t) => {
    await w.must(401, { url: '/api/v1/orgs/acme/members', as: null });
    t.same(names((await w.must(200, { url: '/api/v1/orgs/acme/members', as: 'bob' })).json()), ['alice', 'bob', 'rita'], 'members see every member');
    t.same(names((await w.must(200, { url: '/api/v1/orgs/acme/members', as: 'root' })).json()), ['alice', 'bob', 'rita'], 'so do site admins');
    t.same((await w.must(200, { url: '/api/v1/orgs/acme/members', as: 'carol' })).json(), [], 'outsiders only public members (none yet)');
    t.same((await w.must(200, { url: '/api/v1/orgs/acme/public_members', as: null })).json(), []);
    await w.must(204, { method: 'PUT', url: '/api/v1/orgs/acme/public_members/bob', as: 'bob' });
    const concealed = await w.must(403, { method: 'PUT', url: '/api/v1/orgs/acme/public_members/alice', as: 'bob' });
    t.equal(concealed.json().message, 'Cannot change member visibility', 'a member changes only their own');
    t.equal((await w.must(403, { method: 'PUT', url: '/api/v1/orgs/acme/public_members/carol', as: 'carol' })).json().message, 'Must be an organization member');
    await w.must(401, { method: 'PUT', url: '/api/v1/orgs/acme/public_members/bob', as: null });
    await w.must(204, { method: 'PUT', url: '/api/v1/orgs/acme/public_members/carol', as: 'alice' });
    t.pass('an owner publicising a non-member changes nothing');
    t.same(names((await w.must(200, { url: '/api/v1/orgs/acme/public_members', as: null })).json()), ['bob']);
    t.same(names((await w.must(200, { url: '/api/v1/orgs/acme/members', as: 'carol' })).json()), ['bob']);
    t.same(names((await w.must(200, { url: '/api/v1/orgs/acme/members', as: 'rita' })).json()), ['bob', 'rita'], 'a restricted member sees public members and their teammates');
    const paged = await w.must(200, { url: '/api/v1/orgs/acme/members?limit=1&page=2', as: 'alice' });
    t.same(names(paged.json()), ['bob']);
    t.equal(paged.headers['x-total-count'], '3');
    await w.must(204, { url: '/api/v1/orgs/acme/public_members/bob', as: null });
    await w.must(404, { url: '/api/v1/orgs/acme/public_members/alice', as: null });
    await w.must(404, { url: '/api/v1/orgs/acme/public_members/nobody', as: null });
    // Twenty at once (a retrying client): each is 204, the membership public once.
    await Promise.all(Array.from({ length: 20 }, () => w.must(204, { method: 'PUT', url: '/api/v1/orgs/acme/public_members/bob', as: 'bob' })));
    t.same(names((await w.must(200, { url: '/api/v1/orgs/acme/public_members', as: null })).json()), ['bob'], 'publicized concurrently, listed once');

    await w.must(204, { url: '/api/v1/orgs/acme/members/rita', as: 'bob' });
    await w.must(404, { url: '/api/v1/orgs/acme/members/carol', as: 'bob' });
    await w.must(204, { url: '/api/v1/orgs/acme/members/alice', as: 'root' });
    await w.must(404, { url: '/api/v1/orgs/acme/members/carol', as: 'carol' });
    const redirect = await w.must(303, { url: '/api/v1/orgs/acme/members/bob', as: 'carol' });
    t.equal(redirect.headers.location, '/api/v1/orgs/acme/public_members/bob', 'outsiders are sent to the public check');
    await w.must(401, { url: '/api/v1/orgs/acme/members/bob', as: null });

    await w.must(204, { method: 'DELETE', url: '/api/v1/orgs/acme/public_members/bob', as: 'bob' });
    t.same((await w.must(200, { url: '/api/v1/orgs/acme/public_members', as: null })).json(), []);
    await w.must(204, { method: 'PUT', url: '/api/v1/orgs/acme/public_members/bob', as: 'bob' });
  });

  await t.test('hidden organizations', async (t) => {
    for (const url of ['/api/v1/orgs/hideout/members', '/api/v1/orgs/hideout/public_members', '/api/v1/orgs/hideout/members/alice', '/api/v1/orgs/hideout/repos', '/api/v1/users/alice/orgs/hideout/permissions']) {
      t.equal((await w.api({ url, as: 'carol' })).statusCode, 404, `${url} for an outsider`);
    }
    t.equal((await w.api({ url: '/api/v1/orgs/hideout/public_members', as: null })).statusCode, 404, 'anonymous');
    t.equal((await w.api({ url: '/api/v1/orgs/inner/public_members', as: null })).statusCode, 404, 'limited organizations are hidden from anonymous callers');
    t.equal((await w.api({ url: '/api/v1/orgs/inner/public_members', as: 'carol' })).statusCode, 200, 'not from signed-in ones');
    await w.must(200, { url: '/api/v1/orgs/hideout/members', as: 'bob' });
    t.equal((await w.api({ method: 'DELETE', url: '/api/v1/orgs/hideout', as: 'carol' })).statusCode, 404);
    const publicOnly = await w.token('bob', ['read:organization', 'read:user', 'public-only']);
    t.equal((await w.api({ url: '/api/v1/orgs/hideout/members', headers: publicOnly })).statusCode, 403, 'a public-only token is refused a private organization');
  });

  await t.test('a user\'s permissions in an organization', async (t) => {
    const perms = async (user: string, o = 'acme', as = 'carol') => (await w.must(200, { url: `/api/v1/users/${user}/orgs/${o}/permissions`, as })).json();
    t.same(await perms('alice'), { is_owner: true, is_admin: true, can_write: true, can_read: true, can_create_repository: true });
    t.same(await perms('bob'), { is_owner: false, is_admin: false, can_write: true, can_read: true, can_create_repository: false }, 'a team permission below owner');
    t.same(await perms('carol'), { is_owner: false, is_admin: false, can_write: false, can_read: false, can_create_repository: false });
    await w.must(401, { url: '/api/v1/users/alice/orgs/acme/permissions', as: null });
    await w.must(404, { url: '/api/v1/users/nobody/orgs/acme/permissions', as: 'carol' });
    await w.must(404, { url: '/api/v1/users/alice/orgs/nothing/permissions', as: 'carol' });
  });

  await t.test('lists of organizations', async (t) => {
    t.same(names((await w.must(200, { url: '/api/v1/orgs', as: null })).json()), ['acme'], 'anonymous callers: public ones');
    t.same(names((await w.must(200, { url: '/api/v1/orgs', as: 'carol' })).json()), ['acme', 'inner'], 'signed-in callers: limited ones too');
    const all = await w.must(200, { url: '/api/v1/orgs', as: 'root' });
    t.same(names(all.json()), ['acme', 'hideout', 'inner'], 'site admins: every one');
    t.equal(all.headers['x-total-count'], '3');
    t.same(names((await w.must(200, { url: '/api/v1/user/orgs', as: 'bob' })).json()), ['acme', 'hideout'], 'one\'s own, concealed memberships too');
    await w.must(401, { url: '/api/v1/user/orgs', as: null });
    t.same(names((await w.must(200, { url: '/api/v1/users/bob/orgs', as: 'carol' })).json()), ['acme'], 'another user\'s: public memberships of organizations one may see');
    t.same(names((await w.must(200, { url: '/api/v1/users/alice/orgs', as: 'carol' })).json()), [], 'alice has no public membership');
    t.same(names((await w.must(200, { url: '/api/v1/users/bob/orgs', as: 'root' })).json()), ['acme', 'hideout'], 'admins see all');
    await w.must(404, { url: '/api/v1/users/nobody/orgs', as: 'carol' });
  });

  await t.test('editing an organization', async (t) => {
    const edited = await w.must(200, { method: 'PATCH', url: '/api/v1/orgs/acme', as: 'alice', body: { full_name: 'Acme Inc', description: 'Tools', website: 'https://acme.test', location: 'Earth', repo_admin_change_team_access: true } });
    t.match(edited.json(), { name: 'acme', full_name: 'Acme Inc', email: 'hi@acme.test', description: 'Tools', website: 'https://acme.test', location: 'Earth', visibility: 'public', repo_admin_change_team_access: true });
    t.same(Object.keys(edited.json()), Object.keys(org), 'an Organization');
    const limited = await w.must(200, { method: 'PATCH', url: '/api/v1/orgs/acme', as: 'root', body: { visibility: 'limited', email: '' } });
    t.match(limited.json(), { visibility: 'limited', email: '', full_name: 'Acme Inc' }, 'only the fields given change');
    t.equal((await w.api({ url: '/api/v1/orgs/acme', as: null })).statusCode, 404, 'now hidden from anonymous callers');
    await w.must(200, { method: 'PATCH', url: '/api/v1/orgs/acme', as: 'alice', body: { visibility: 'public' } });
    t.equal((await w.must(403, { method: 'PATCH', url: '/api/v1/orgs/acme', as: 'bob', body: { full_name: 'Mine' } })).json().message, 'Must be an organization owner');
    await w.must(401, { method: 'PATCH', url: '/api/v1/orgs/acme', as: null, body: { full_name: 'Mine' } });
    t.equal((await w.must(422, { method: 'PATCH', url: '/api/v1/orgs/acme', as: 'alice', body: { email: 'bad address' } })).json().message, 'e-mail address contains unsupported character [email: bad address]');
    t.equal((await w.must(422, { method: 'PATCH', url: '/api/v1/orgs/acme', as: 'alice', body: { website: 'ftp://x' } })).json().message, '[Website]: Url');
    t.equal((await w.api({ method: 'PATCH', url: '/api/v1/orgs/acme', as: 'alice', body: { visibility: 'secret' } })).statusCode, 422);
  });

  await t.test('teams: member check, edit, search, delete', async (t) => {
    t.match((await w.must(200, { url: `/api/v1/teams/${devs.id}/members/bob`, as: 'bob' })).json(), { login: 'bob' });
    await w.must(404, { url: `/api/v1/teams/${devs.id}/members/alice`, as: 'alice' });
    await w.must(404, { url: `/api/v1/teams/${devs.id}/members/nobody`, as: 'alice' });
    await w.must(404, { url: `/api/v1/teams/${devs.id}/members/bob`, as: 'carol' });

    const renamed = await w.must(200, { method: 'PATCH', url: `/api/v1/teams/${devs.id}`, as: 'alice', body: { name: 'builders', description: 'Builders', includes_all_repositories: true, can_create_org_repo: true } });
    t.match(renamed.json(), { name: 'builders', description: 'Builders', includes_all_repositories: false, can_create_org_repo: true, permission: 'none', organization: null },
      'includes_all_repositories changes only with a permission, as in Gitea; the answer has no organization');
    const admin = await w.must(200, { method: 'PATCH', url: `/api/v1/teams/${devs.id}`, as: 'alice', body: { name: '', permission: 'admin', includes_all_repositories: true } });
    t.match(admin.json(), { name: 'builders', permission: 'admin', includes_all_repositories: true });
    t.equal(admin.json().units_map['repo.ext_wiki'], 'admin');
    const back = await w.must(200, { method: 'PATCH', url: `/api/v1/teams/${devs.id}`, as: 'alice', body: { permission: 'write', units_map: { 'repo.code': 'write', 'repo.issues': 'read' }, includes_all_repositories: false } });
    t.match(back.json(), { permission: 'none', units_map: { 'repo.code': 'write', 'repo.issues': 'read' }, includes_all_repositories: false });
    const owners = await w.must(200, { method: 'PATCH', url: `/api/v1/teams/${acmeOwners.id}`, as: 'alice', body: { permission: 'read', can_create_org_repo: false, description: 'The owners' } });
    t.match(owners.json(), { name: 'Owners', permission: 'owner', can_create_org_repo: true, description: 'The owners' }, 'the Owners team keeps its permission and may always create repositories');
    t.ok(await isOrgOwner(w.db, org.id, (await usersStore(w.db).byName('alice'))!.id));
    for (const [body, message] of [[{ name: 'bad name' }, '[Name]: AlphaDashDot'], [{ name: 'OWNERS' }, `team already exists [org_id: ${org.id}, name: owners]`]] as const) {
      t.same((await w.must(422, { method: 'PATCH', url: `/api/v1/teams/${devs.id}`, as: 'alice', body })).json().message, message);
    }
    await w.must(404, { method: 'PATCH', url: `/api/v1/teams/${devs.id}`, as: 'carol', body: { name: 'x' } });
    // A member of another team of the organization hears 403 from the team lookup first (Gitea's reqTeamReadAccess).
    t.equal((await w.must(403, { method: 'PATCH', url: `/api/v1/teams/${acmeOwners.id}`, as: 'bob', body: { name: 'x' } })).json().message, 'Must be a team member');
    await w.must(404, { method: 'PATCH', url: '/api/v1/teams/999999', as: 'root', body: { name: 'x' } });
    await w.must(404, { method: 'PATCH', url: '/api/v1/teams/0', as: 'root', body: { name: 'x' } });

    const search = async (query: string, as = 'alice') => (await w.must(200, { url: `/api/v1/orgs/acme/teams/search?${query}`, as })).json();
    const found = await search('q=BUILD', 'root');
    t.same(Object.keys(found), ['data', 'ok'], 'Gitea\'s envelope');
    t.same(found.data.map((x: { name: string }) => x.name), ['builders']);
    t.same((await search('q=developers', 'root')).data, [], 'no match in the description any more');
    t.same((await search('q=builders&include_desc=false', 'root')).data.map((x: { name: string }) => x.name), ['builders']);
    t.same((await search('q=owner', 'root')).data.map((x: { name: string }) => x.name), ['Owners'], 'descriptions are searched by default');
    t.same((await search('q=owner&include_desc=false', 'root')).data.map((x: { name: string }) => x.name), ['Owners']);
    t.same((await search('q=builders')).data, [], 'members find only the teams they are in');
    t.same((await search('', 'bob')).data.map((x: { name: string }) => x.name), ['builders']);
    await w.must(403, { url: '/api/v1/orgs/acme/teams/search', as: 'carol' });
    await w.must(401, { url: '/api/v1/orgs/acme/teams/search', as: null });

    const mine = await w.must(200, { url: '/api/v1/user/teams', as: 'bob' });
    t.same(mine.json().map((x: { name: string; organization: { name: string } }) => [x.name, x.organization.name]), [['builders', 'acme'], ['Owners', 'hideout']], 'the user\'s teams, with their organizations');
    t.equal(mine.headers['x-total-count'], '2');
    const publicOnly = await w.token('bob', ['read:user', 'public-only']);
    t.equal((await w.api({ url: '/api/v1/user/teams', headers: publicOnly })).statusCode, 403, 'not for public-only tokens');

    const extra = (await w.must(201, { method: 'POST', url: '/api/v1/orgs/acme/teams', as: 'alice', body: { name: 'temp', permission: 'read', units: ['repo.code'] } })).json();
    await w.must(204, { method: 'PUT', url: `/api/v1/teams/${extra.id}/members/carol`, as: 'alice' });
    await w.must(204, { method: 'PUT', url: '/api/v1/orgs/acme/public_members/carol', as: 'carol' });
    await w.must(403, { method: 'DELETE', url: `/api/v1/teams/${extra.id}`, as: 'bob' });
    await w.must(404, { method: 'DELETE', url: `/api/v1/teams/${extra.id}`, as: 'dave' });
    await w.must(204, { method: 'DELETE', url: `/api/v1/teams/${extra.id}`, as: 'alice' });
    await w.must(404, { url: `/api/v1/teams/${extra.id}`, as: 'root' });
    t.notOk(await isOrgMember(w.db, org.id, (await usersStore(w.db).byName('carol'))!.id), 'its only member left the organization');
    await w.must(404, { url: '/api/v1/orgs/acme/public_members/carol', as: null });
    const keep = await w.must(422, { method: 'DELETE', url: `/api/v1/teams/${acmeOwners.id}`, as: 'alice' });
    t.equal(keep.json().message, 'the Owners team cannot be deleted');
  });

  await t.test('team repositories and repository teams', async (t) => {
    await w.must(201, { method: 'POST', url: '/api/v1/orgs/acme/repos', as: 'alice', body: { name: 'anvil' } });
    await w.must(201, { method: 'POST', url: '/api/v1/orgs/acme/repos', as: 'alice', body: { name: 'rocket', private: true } });
    await w.must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'carol', body: { name: 'own' } });
    const readers = (await w.must(201, { method: 'POST', url: '/api/v1/orgs/acme/teams', as: 'alice', body: { name: 'readers', permission: 'read', units: ['repo.code'] } })).json();
    await w.must(204, { method: 'PUT', url: `/api/v1/teams/${readers.id}/members/dave`, as: 'alice' });
    t.same((await w.must(200, { url: `/api/v1/teams/${readers.id}/repos`, as: 'dave' })).json(), [], 'a new team reaches nothing');
    await w.must(404, { url: '/api/v1/repos/acme/rocket', as: 'dave' });

    const noAdmin = await w.must(403, { method: 'PUT', url: `/api/v1/teams/${readers.id}/repos/acme/rocket`, as: 'dave' });
    t.equal(noAdmin.json().message, 'Must have admin-level access to the repository');
    await w.must(204, { method: 'PUT', url: `/api/v1/teams/${readers.id}/repos/acme/rocket`, as: 'alice' });
    await w.must(204, { method: 'PUT', url: `/api/v1/teams/${readers.id}/repos/whatever/rocket`, as: 'alice' });
    t.pass('as in Gitea, the team decides the organization; adding twice is fine');
    const listed = await w.must(200, { url: `/api/v1/teams/${readers.id}/repos`, as: 'dave' });
    t.same(listed.json().map((r: { full_name: string }) => r.full_name), ['acme/rocket']);
    t.same(listed.json()[0].permissions, { admin: false, push: false, pull: true }, 'with the caller\'s permissions');
    t.equal(listed.headers['x-total-count'], '1');
    await w.must(200, { url: '/api/v1/repos/acme/rocket', as: 'dave' });
    t.pass('the team now reads the private repository');
    t.match((await w.must(200, { url: `/api/v1/teams/${readers.id}/repos/acme/rocket`, as: 'dave' })).json(), { full_name: 'acme/rocket' });
    await w.must(404, { url: `/api/v1/teams/${readers.id}/repos/acme/anvil`, as: 'dave' });
    await w.must(404, { url: `/api/v1/teams/${readers.id}/repos/acme/nothing`, as: 'alice' });
    await w.must(404, { url: `/api/v1/teams/${readers.id}/repos`, as: 'carol' });
    const builders = await w.must(200, { url: `/api/v1/teams/${devs.id}/repos`, as: 'root' });
    t.same(builders.json(), [], 'builders include no repository');

    const teams = async (repo: string, as = 'alice') => (await w.must(200, { url: `/api/v1/repos/acme/${repo}/teams`, as })).json().map((x: { name: string }) => x.name);
    t.same(await teams('rocket'), ['Owners', 'readers'], 'the Owners team first, then by name');
    t.same(await teams('anvil', 'carol'), ['Owners'], 'any reader of a public repository');
    await w.must(401, { url: '/api/v1/repos/acme/anvil/teams', as: null });
    await w.must(404, { url: '/api/v1/repos/acme/rocket/teams', as: 'carol' });
    const notOrg = await w.must(405, { url: '/api/v1/repos/carol/own/teams', as: 'carol' });
    t.same(notOrg.json().message, 'repo is not owned by an organization');
    await w.must(405, { method: 'PUT', url: '/api/v1/repos/carol/own/teams/x', as: 'carol' });
    t.match((await w.must(200, { url: '/api/v1/repos/acme/rocket/teams/READERS', as: 'dave' })).json(), { name: 'readers', organization: null });
    await w.must(404, { url: '/api/v1/repos/acme/anvil/teams/readers', as: 'alice' });
    t.equal((await w.must(404, { url: '/api/v1/repos/acme/anvil/teams/nope', as: 'alice' })).json().message, `team does not exist [org_id ${org.id}, team_id 0, name: nope]`);

    await w.must(204, { method: 'PUT', url: '/api/v1/repos/acme/anvil/teams/builders', as: 'alice' });
    t.equal((await w.must(422, { method: 'PUT', url: '/api/v1/repos/acme/anvil/teams/builders', as: 'alice' })).json().message, "team 'builders' is already added to repo");
    t.same(await teams('anvil'), ['Owners', 'builders']);
    await w.must(204, { method: 'DELETE', url: '/api/v1/repos/acme/anvil/teams/builders', as: 'alice' });
    t.equal((await w.must(422, { method: 'DELETE', url: '/api/v1/repos/acme/anvil/teams/builders', as: 'alice' })).json().message, "team 'builders' was not added to repo");
    await w.must(204, { method: 'DELETE', url: '/api/v1/repos/acme/anvil/teams/Owners', as: 'alice' });
    t.same(await teams('anvil'), ['Owners'], 'a team that includes every repository keeps each one');
    await w.must(204, { method: 'DELETE', url: `/api/v1/teams/${readers.id}/repos/acme/rocket`, as: 'alice' });
    await w.must(404, { url: '/api/v1/repos/acme/rocket', as: 'dave' });
    t.pass('removing the grant hides the private repository again');

    // A repository admin (not an owner) may change team access only when the organization allows it.
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/acme/anvil/collaborators/carol', as: 'alice', body: { permission: 'admin' } });
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/acme/anvil/teams/readers', as: 'carol' });
    await w.must(200, { method: 'PATCH', url: '/api/v1/orgs/acme', as: 'alice', body: { repo_admin_change_team_access: false } });
    t.equal((await w.must(403, { method: 'DELETE', url: '/api/v1/repos/acme/anvil/teams/readers', as: 'carol' })).json().message, 'user is nor repo admin nor owner');
    t.equal((await w.must(403, { method: 'PUT', url: '/api/v1/repos/acme/anvil/teams/builders', as: 'dave' })).json().message, 'user should be an owner or a collaborator with admin write of a repository');
    await w.must(204, { method: 'DELETE', url: '/api/v1/repos/acme/anvil/teams/readers', as: 'alice' });
  });

  await t.test('removing members and deleting organizations', async (t) => {
    await w.must(403, { method: 'DELETE', url: '/api/v1/orgs/acme/members/alice', as: 'bob' });
    await w.must(204, { method: 'DELETE', url: '/api/v1/orgs/acme/members/carol', as: 'alice' });
    t.pass('a non-member: nothing to do');
    await w.must(404, { method: 'DELETE', url: '/api/v1/orgs/acme/members/nobody', as: 'alice' });
    const last = await w.must(422, { method: 'DELETE', url: '/api/v1/orgs/acme/members/alice', as: 'alice' });
    t.equal(last.json().message, `user is the last member of owner team [uid: ${(await usersStore(w.db).byName('alice'))!.id}]`);
    await w.must(204, { method: 'DELETE', url: '/api/v1/orgs/acme/members/bob', as: 'alice' });
    t.notOk(await isOrgMember(w.db, org.id, (await usersStore(w.db).byName('bob'))!.id), 'bob left every team');
    t.same((await w.must(200, { url: '/api/v1/orgs/acme/public_members', as: null })).json(), [], 'and his public membership went with him');

    const busy = await w.must(422, { method: 'DELETE', url: '/api/v1/orgs/acme', as: 'alice' });
    t.equal(busy.json().message, `user still has ownership of repositories [uid: ${org.id}]`);
    await w.must(403, { method: 'DELETE', url: '/api/v1/orgs/inner', as: 'alice' });
    await w.must(401, { method: 'DELETE', url: '/api/v1/orgs/inner', as: null });
    await w.must(204, { method: 'DELETE', url: '/api/v1/orgs/inner', as: 'dave' });
    await w.must(404, { url: '/api/v1/orgs/inner', as: 'root' });
    t.equal(Number((await w.db('teams').whereNotIn('org_id', w.db('users').select('id')).count({ n: '*' }).first())?.n), 0, 'its teams went with it');
    await w.must(204, { method: 'DELETE', url: '/api/v1/orgs/hideout', as: 'root' });
  });
});

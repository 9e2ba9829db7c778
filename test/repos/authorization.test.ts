// Walks the authorization table: every repository endpoint as every kind of caller.
import t from 'tap';
import { startTestServices } from '../helper.js';
import { nowUnix } from '../../db/time.js';
import { ACTORS, authorizationRows, type Actor } from './authorization-table.js';
import { basic, call, makeUser } from './fixtures.js';

const HEADERS: Record<Actor, Record<string, string>> = {
  anonymous: {},
  noAccess: basic('nora'),
  reader: basic('rita'),
  writer: basic('walt'),
  adminCollaborator: basic('adam'),
  teamMember: basic('tina'),
  siteAdmin: basic('sam'),
  blocked: basic('bart'),
  sudo: { ...basic('sam'), sudo: 'walt' },
};

function fill(text: string, vars: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

t.test('every repository endpoint answers each kind of caller as the table says', async (t) => {
  const { app, db } = await startTestServices(t);
  for (const name of ['olive', 'rita', 'walt', 'adam', 'tina', 'nora', 'bart', 'extra']) await makeUser(db, name);
  await makeUser(db, 'sam', { admin: true });

  const as = (user: string) => ({ as: user });
  t.equal((await call(app, { method: 'POST', url: '/api/v1/orgs', ...as('olive'), body: { username: 'guild' } })).statusCode, 201);
  const team = await call(app, { method: 'POST', url: '/api/v1/orgs/guild/teams', ...as('olive'), body: { name: 'crew', permission: 'write', includes_all_repositories: true } });
  t.equal(team.statusCode, 201, team.body);
  t.equal((await call(app, { method: 'PUT', url: `/api/v1/teams/${team.json().id}/members/tina`, ...as('olive') })).statusCode, 204);
  const guild = await db('users').where({ lower_name: 'guild' }).first('id');
  const bart = await db('users').where({ lower_name: 'bart' }).first('id');
  await db('user_blocks').insert({ blocker_id: guild.id, blockee_id: bart.id, created_unix: nowUnix() });

  const repoNames = ['pub', 'priv', ...ACTORS.map((a) => `doomed-${a}`)];
  const ids: Record<string, string> = {};
  for (const name of repoNames) {
    const r = await call(app, { method: 'POST', url: '/api/v1/orgs/guild/repos', ...as('olive'), body: { name, auto_init: true, private: name === 'priv' } });
    t.equal(r.statusCode, 201, r.body);
    ids[name] = String(r.json().id);
    for (const [user, permission] of [['rita', 'read'], ['walt', 'write'], ['adam', 'admin']]) {
      const put = await call(app, { method: 'PUT', url: `/api/v1/repos/guild/${name}/collaborators/${user}`, ...as('olive'), body: { permission } });
      t.equal(put.statusCode, 204, put.body);
    }
  }
  for (const actor of ACTORS) {
    const b = await call(app, { method: 'POST', url: '/api/v1/repos/guild/pub/branches', ...as('olive'), body: { new_branch_name: `del-${actor}` } });
    t.equal(b.statusCode, 201, b.body);
  }
  t.equal((await call(app, { method: 'POST', url: '/api/v1/repos/guild/priv/branch_protections', ...as('olive'), body: { rule_name: 'main' } })).statusCode, 201);

  for (const row of authorizationRows) {
    for (const actor of ACTORS) {
      const vars = { actor, pubId: ids.pub!, privId: ids.priv! };
      const body = row.body === undefined ? undefined : JSON.parse(fill(JSON.stringify(row.body), vars));
      const res = await app.inject({ method: row.method, url: fill(row.url, vars), headers: HEADERS[actor], ...(body ? { payload: body } : {}) });
      t.equal(res.statusCode, row.expect[actor], `${row.name} as ${actor}${res.statusCode >= 400 ? `: ${res.body.slice(0, 160)}` : ''}`);
    }
  }

  await t.test('blocks: a blocked user cannot be made a collaborator', async (t) => {
    const r = await call(app, { method: 'PUT', url: '/api/v1/repos/guild/pub/collaborators/bart', ...as('olive'), body: {} });
    t.equal(r.statusCode, 403);
  });

  await t.test('collaborator answers', async (t) => {
    const perm = await call(app, { url: '/api/v1/repos/guild/pub/collaborators/walt/permission', ...as('olive') });
    t.match(perm.json(), { permission: 'write', role_name: 'write', user: { login: 'walt' } });
    const unknown = await call(app, { url: '/api/v1/repos/guild/pub/collaborators/nobody', ...as('olive') });
    t.equal(unknown.statusCode, 422);
    const notCollab = await call(app, { url: '/api/v1/repos/guild/pub/collaborators/nora', ...as('olive') });
    t.equal(notCollab.statusCode, 404);
    const list = await call(app, { url: '/api/v1/repos/guild/pub/collaborators', ...as('olive') });
    t.equal(list.headers['x-total-count'], '3');
    const archive = await call(app, { method: 'PATCH', url: '/api/v1/repos/guild/pub', ...as('olive'), body: { archived: true } });
    t.equal(archive.statusCode, 200);
    const locked = await call(app, { method: 'POST', url: '/api/v1/repos/guild/pub/branches', ...as('walt'), body: { new_branch_name: 'late' } });
    t.equal(locked.statusCode, 423, 'archived repositories answer 423 to writes');
  });
});

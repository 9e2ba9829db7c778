// Walks the authorization table: every repository endpoint as every kind of caller.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestServices } from '../helper.js';
import { nowUnix } from '../../db/time.js';
import { ACTORS, authorizationRows, type Actor } from './authorization-table.js';
import { call, cloneUrl, fixtureToken, gitSandbox, makeUser, PASSWORD, tokenAuthHeader, type Call } from './fixtures.js';

/** Each actor's credentials: an access token of all scopes (the table is about roles, not sign-in methods). */
async function actorHeaders(app: Parameters<typeof fixtureToken>[0]): Promise<Record<Actor, Record<string, string>>> {
  const token = (user: string) => tokenAuthHeader(app, user);
  return {
    anonymous: {},
    noAccess: await token('nora'),
    reader: await token('rita'),
    writer: await token('walt'),
    adminCollaborator: await token('adam'),
    teamMember: await token('tina'),
    siteAdmin: await token('sam'),
    blocked: await token('bart'),
    sudo: { ...(await token('sam')), sudo: 'walt' },
  };
}

function fill(text: string, vars: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

t.test('every repository endpoint answers each kind of caller as the table says', async (t) => {
  const { app, db, baseUrl } = await startTestServices(t, { temporal: true, listen: true });
  for (const name of ['olive', 'rita', 'walt', 'adam', 'tina', 'nora', 'bart', 'extra']) await makeUser(db, name);
  await makeUser(db, 'sam', { admin: true });
  const HEADERS = await actorHeaders(app);

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

  // What the issue and pull request rows act on (see the table's header), made by olive.
  const must = async (c: Omit<Call, 'as'>, status: number) => {
    const r = await call(app, { ...c, as: 'olive' });
    t.equal(r.statusCode, status, `${c.method ?? 'GET'} ${c.url}: ${r.body.slice(0, 200)}`);
    return r.json();
  };
  const shared: Record<string, string> = {};
  const perActor: Record<string, Partial<Record<Actor, string>>> = {};
  const own = (key: string, actor: Actor, value: unknown) => { (perActor[key] ??= {})[actor] = String(value); };
  const { home, git } = gitSandbox(t);
  for (const repo of ['pub', 'priv'] as const) {
    const api = `/api/v1/repos/guild/${repo}`;
    const dir = join(home, repo);
    const run = async (args: string[], cwd = dir) => {
      const r = await git(args, cwd);
      if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    };
    await run(['clone', '-q', cloneUrl(baseUrl, `/guild/${repo}.git`, 'olive', (await fixtureToken(app, 'olive')) ?? PASSWORD), dir], home);
    shared[`${repo}Sha`] = await run(['rev-parse', 'origin/main']);
    // One commit on its own file per branch, all pushed at once.
    const branches = ['feature', ...ACTORS.flatMap((a) => [`pr-${a}`, `m-${a}`, ...(repo === 'pub' ? [`a-${a}`] : [])])];
    for (const name of branches) {
      await run(['checkout', '-q', '-B', name, 'origin/main']);
      writeFileSync(join(dir, `${name}.txt`), `${name}\n`);
      await run(['add', `${name}.txt`]);
      await run(['commit', '-q', '-m', `add ${name}`]);
    }
    await run(['push', '-q', 'origin', ...branches.map((b) => `${b}:refs/heads/${b}`)]);

    shared[`${repo}Label`] = String((await must({ method: 'POST', url: `${api}/labels`, body: { name: 'bug', color: '#ee0701' } }, 201)).id);
    await must({ method: 'POST', url: `${api}/milestones`, body: { title: 'm1' } }, 201);
    shared[`${repo}Issue`] = String((await must({ method: 'POST', url: `${api}/issues`, body: { title: 'world issue' } }, 201)).number);
    shared[`${repo}Pull`] = String((await must({ method: 'POST', url: `${api}/pulls`, body: { title: 'world pull', head: 'feature', base: 'main' } }, 201)).number);
    for (const actor of ACTORS) {
      own(`${repo}DepIssue`, actor, (await must({ method: 'POST', url: `${api}/issues`, body: { title: `dep-${actor}` } }, 201)).number);
      own(`${repo}MergePull`, actor, (await must({ method: 'POST', url: `${api}/pulls`, body: { title: `merge ${actor}`, head: `m-${actor}`, base: 'main' } }, 201)).number);
      if (repo !== 'pub') continue;
      own('delLabel', actor, (await must({ method: 'POST', url: `${api}/labels`, body: { name: `del-${actor}`, color: '#ee0701' } }, 201)).id);
      await must({ method: 'POST', url: `${api}/milestones`, body: { title: `mdel-${actor}` } }, 201);
    }
  }
  // Auto-merges that wait for a check nobody reports, one per actor, scheduled by olive.
  await must({ method: 'POST', url: '/api/v1/repos/guild/pub/branches', body: { new_branch_name: 'guarded' } }, 201);
  await must({ method: 'POST', url: '/api/v1/repos/guild/pub/branch_protections', body: { rule_name: 'guarded', enable_status_check: true, status_check_contexts: ['ci'] } }, 201);
  for (const actor of ACTORS) {
    const index = (await must({ method: 'POST', url: '/api/v1/repos/guild/pub/pulls', body: { title: `auto ${actor}`, head: `a-${actor}`, base: 'guarded' } }, 201)).number;
    own('autoPull', actor, index);
    const r = await call(app, { method: 'POST', url: `/api/v1/repos/guild/pub/pulls/${index}/merge`, as: 'olive', body: { Do: 'merge', merge_when_checks_succeed: true } });
    t.equal(r.statusCode, 201, `schedule auto-merge of ${index}: ${r.body}`);
  }
  shared.mergedPull = perActor.pubMergePull!.writer!;
  shared.privMergedPull = perActor.privMergePull!.writer!;

  for (const row of authorizationRows) {
    for (const actor of ACTORS) {
      const mine = Object.fromEntries(Object.entries(perActor).map(([k, v]) => [k, v[actor]!]));
      const vars = { ...shared, ...mine, actor, pubId: ids.pub!, privId: ids.priv! };
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

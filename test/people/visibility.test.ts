// Property: the SQL that lists and searches use to decide which repositories a viewer may see
// (db/repo-visibility.ts) agrees with the permission layer's answer for one repository
// (core/permissions.ts repoAccessMode), for every viewer and repository of generated worlds of
// users, organizations, teams, team grants and collaborators, on MariaDB and on SQLite.
import t from 'tap';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { repoAccessMode } from '../../core/permissions.js';
import { reposStore, type RepoRow } from '../../db/repos.js';
import { whereRepoVisibleTo } from '../../db/repo-visibility.js';
import { teamsStore } from '../../db/teams.js';
import { USER_TYPE, usersStore, type UserRow } from '../../db/users.js';
import { startTestServices } from '../helper.js';

const VISIBILITY = fc.constantFrom<'public' | 'limited' | 'private'>('public', 'limited', 'private');

const worldShape = fc.record({
  users: fc.array(fc.record({ visibility: VISIBILITY, restricted: fc.boolean(), admin: fc.boolean() }), { minLength: 2, maxLength: 5 }),
  orgs: fc.array(VISIBILITY, { minLength: 1, maxLength: 3 }),
  repos: fc.array(fc.record({ owner: fc.nat(), private: fc.boolean() }), { minLength: 1, maxLength: 8 }),
  teams: fc.array(fc.record({ org: fc.nat(), permission: fc.constantFrom('read', 'write', 'admin', 'owner'), all: fc.boolean(), members: fc.array(fc.nat(), { maxLength: 3 }), repos: fc.array(fc.nat(), { maxLength: 3 }) }), { maxLength: 4 }),
  collaborators: fc.array(fc.record({ user: fc.nat(), repo: fc.nat(), mode: fc.constantFrom('read', 'write', 'admin') }), { maxLength: 4 }),
});

type Shape = typeof worldShape extends fc.Arbitrary<infer T> ? T : never;

let generation = 0;

/** Builds the world in fresh rows (names unique per run) and returns its viewers and repositories. */
async function build(db: Knex, shape: Shape): Promise<{ viewers: Array<UserRow | null>; repos: RepoRow[] }> {
  const run = ++generation;
  const users = usersStore(db);
  const people: UserRow[] = [];
  for (const [i, u] of shape.users.entries()) {
    const id = await users.insert({ name: `u${run}x${i}`, email: `u${run}x${i}@example.com`, passwd_hash: '', visibility: u.visibility, restricted: u.restricted, is_admin: u.admin && i === 0 });
    people.push((await users.byId(id))!);
  }
  const orgs: UserRow[] = [];
  for (const [i, visibility] of shape.orgs.entries()) {
    const id = await users.insert({ name: `o${run}x${i}`, email: '', passwd_hash: '', type: USER_TYPE.organization, visibility });
    orgs.push((await users.byId(id))!);
  }
  const owners = [...people, ...orgs];
  const repos: RepoRow[] = [];
  for (const [i, r] of shape.repos.entries()) {
    const owner = owners[r.owner % owners.length]!;
    const id = await reposStore(db).insert({ owner_id: owner.id, name: `r${i}`, is_private: r.private });
    repos.push((await reposStore(db).byId(id))!);
  }
  for (const [i, team] of shape.teams.entries()) {
    const org = orgs[team.org % orgs.length]!;
    const row = await teamsStore(db).insert({ org_id: org.id, name: `t${i}`, description: '', permission: team.permission as 'read', includes_all_repositories: team.all, can_create_org_repo: false, units: {} });
    for (const m of new Set(team.members.map((x) => people[x % people.length]!.id))) await teamsStore(db).addMember(row.id, m);
    const theirs = repos.filter((r) => r.owner_id === org.id);
    for (const r of new Set(team.repos.flatMap((x) => (theirs.length ? [theirs[x % theirs.length]!.id] : [])))) await db('team_repos').insert({ team_id: row.id, repo_id: r });
  }
  const seen = new Set<string>();
  for (const c of shape.collaborators) {
    const user = people[c.user % people.length]!;
    const repo = repos[c.repo % repos.length]!;
    if (seen.has(`${user.id}/${repo.id}`)) continue;
    seen.add(`${user.id}/${repo.id}`);
    await db('collaborations').insert({ repo_id: repo.id, user_id: user.id, mode: c.mode, created_unix: 0 });
  }
  return { viewers: [null, ...people], repos };
}

async function disagreements(db: Knex, viewers: Array<UserRow | null>, repos: RepoRow[]): Promise<string[]> {
  const problems: string[] = [];
  const ids = repos.map((r) => r.id);
  for (const viewer of viewers) {
    const q = db('repositories as r').join('users as o', 'o.id', 'r.owner_id').whereIn('r.id', ids).select('r.id');
    const bySql = new Set((await whereRepoVisibleTo(q, viewer)).map((r: { id: unknown }) => Number(r.id)));
    for (const repo of repos) {
      const owner = (await usersStore(db).byId(repo.owner_id))!;
      const byRule = (await repoAccessMode(db, repo, owner, viewer)) !== 'none';
      if (byRule !== bySql.has(repo.id)) problems.push(`${viewer?.name ?? 'anonymous'} on ${owner.name}/${repo.name}: rule ${byRule}, sql ${!byRule}`);
    }
  }
  return problems;
}

for (const dbType of ['mysql', 'sqlite3'] as const) {
  t.test(`visibility in SQL agrees with the permission layer (${dbType})`, async (t) => {
    const { db } = await startTestServices(t, { dbType });
    let checked = 0;
    await fc.assert(fc.asyncProperty(worldShape, async (shape) => {
      const { viewers, repos } = await build(db, shape);
      checked += viewers.length * repos.length;
      const problems = await disagreements(db, viewers, repos);
      if (problems.length) throw new Error(problems.join('\n'));
    }), { numRuns: dbType === 'mysql' ? 25 : 10, seed: 20261125 });
    t.ok(checked > 100, `compared ${checked} viewer and repository pairs`);
  });
}

// Changing and removing teams, searching them, and which repositories a team reaches
// (routers/api/v1/org/team.go EditTeam, DeleteTeam, SearchTeam, the team repository routes, and
// routers/api/v1/repo/teams.go).
import type { Knex } from 'knex';
import { ForbiddenError, MethodNotAllowedError, NotFoundError, UnprocessableError } from './errors.js';
import { atLeast, repoAccessMode, type RepoContext } from './permissions.js';
import { teamNameProblem, teamUnitsFor } from './teams.js';
import { orgMembersStore } from '../db/org-members.js';
import { reposStore, type RepoRow } from '../db/repos.js';
import { teamReposStore } from '../db/team-repos.js';
import { teamsStore, type TeamRow } from '../db/teams.js';
import { USER_TYPE, usersStore, type UserRow } from '../db/users.js';

export interface TeamEdit {
  name?: string | undefined;
  description?: string | undefined;
  includes_all_repositories?: boolean | undefined;
  permission?: string | undefined;
  units?: string[] | undefined;
  units_map?: Record<string, string> | undefined;
  can_create_org_repo?: boolean | undefined;
}

/** Gitea's ParseAccessMode for a team: read, write and admin; anything else is no access. */
function teamLevel(value: string): 'read' | 'write' | 'admin' | 'none' {
  return value === 'read' || value === 'write' || value === 'admin' ? value : 'none';
}

/**
 * PATCH /teams/{id}. As in Gitea: an empty name keeps the name; the Owners team keeps its
 * permission and can always create repositories; `includes_all_repositories` changes only
 * together with a permission; units change only when given, and admin teams get every unit.
 */
export async function editTeam(db: Knex, team: TeamRow, edit: TeamEdit): Promise<TeamRow> {
  const problem = edit.name ? teamNameProblem(edit.name) : null;
  if (problem) throw new UnprocessableError(problem);
  const next: TeamRow = { ...team, units: { ...team.units } };
  const isOwners = team.permission === 'owner';
  if (edit.can_create_org_repo !== undefined) next.can_create_org_repo = isOwners || edit.can_create_org_repo;
  if (edit.name) next.name = edit.name;
  if (edit.description !== undefined) next.description = edit.description;
  let requested: 'read' | 'write' | 'admin' | 'none' | undefined;
  if (!isOwners && edit.permission) {
    requested = teamLevel(edit.permission);
    if (edit.includes_all_repositories !== undefined) next.includes_all_repositories = edit.includes_all_repositories;
  }
  if (isOwners || requested === 'admin') {
    const admin = teamUnitsFor({ name: next.name, permission: 'admin' });
    next.units = admin.units;
    if (!isOwners) next.permission = 'admin';
  } else if (edit.units_map && Object.keys(edit.units_map).length > 0) {
    Object.assign(next, teamUnitsFor({ name: next.name, unitsMap: edit.units_map }));
  } else if (edit.units && edit.units.length > 0) {
    Object.assign(next, teamUnitsFor({ name: next.name, permission: requested ?? '', units: edit.units }));
  } else if (requested !== undefined && team.permission === 'admin') {
    // Leaving admin without new units: every unit at the new level.
    Object.assign(next, teamUnitsFor({ name: next.name, permission: requested === 'none' ? 'read' : requested }));
  }
  const teams = teamsStore(db);
  if (await teams.nameTakenByOther(team.org_id, next.name, team.id)) {
    // Gitea answers this with a 500; the text is its own.
    throw new UnprocessableError(`team already exists [org_id: ${team.org_id}, name: ${next.name.toLowerCase()}]`);
  }
  await teams.update(next);
  return (await teams.byId(team.id))!;
}

/**
 * DELETE /teams/{id}: the team, its memberships and repository grants go; members who are left in
 * no team of the organization lose their public membership flag. The Owners team stays (Gitea's
 * API would delete it and leave the organization without owners).
 */
export async function deleteTeam(db: Knex, team: TeamRow): Promise<void> {
  if (team.permission === 'owner') throw new UnprocessableError('the Owners team cannot be deleted');
  await db.transaction(async (trx) => {
    const members = await trx('team_members').where({ team_id: team.id }).select('user_id');
    await teamsStore(db).remove(team.id, trx);
    for (const m of members as Array<{ user_id: unknown }>) await orgMembersStore(db).forgetIfLeft(team.org_id, Number(m.user_id), trx);
  });
}

/**
 * The repository named `name` of the team's organization, for the team repository routes (404
 * when none). As in Gitea, the path's {org} is not consulted: the team decides the organization.
 */
export async function teamRepoByName(db: Knex, team: TeamRow, name: string): Promise<RepoRow> {
  const repo = await reposStore(db).byOwnerAndName(team.org_id, name);
  if (!repo) throw new NotFoundError();
  return repo;
}

/** PUT/DELETE /teams/{id}/repos/{org}/{repo}: the doer needs admin access to the repository. */
export async function changeTeamRepo(db: Knex, team: TeamRow, repo: RepoRow, doer: UserRow, add: boolean): Promise<void> {
  const org = (await usersStore(db).byId(team.org_id))!;
  if (!atLeast(await repoAccessMode(db, repo, org, doer), 'admin')) throw new ForbiddenError('Must have admin-level access to the repository');
  // A team that includes all repositories keeps each of them (Gitea's RemoveRepositoryFromTeam does nothing).
  if (add) await teamReposStore(db).add(team, repo);
  else if (!team.includes_all_repositories) await teamReposStore(db).remove(team, repo);
}

/** The repository routes about teams answer 405 for repositories not owned by an organization. */
export function requireOrgRepo(ctx: RepoContext): void {
  if (ctx.owner.type !== USER_TYPE.organization) throw new MethodNotAllowedError('repo is not owned by an organization');
}

/** The organization's team named in the path, with Gitea's not-found text. */
export async function orgTeamByName(db: Knex, ctx: RepoContext, name: string): Promise<TeamRow> {
  const team = await teamsStore(db).byOrgAndName(ctx.owner.id, name);
  if (!team) throw new NotFoundError(`team does not exist [org_id ${ctx.owner.id}, team_id 0, name: ${name}]`);
  return team;
}

/**
 * PUT/DELETE /repos/{owner}/{repo}/teams/{team}: repository admins (writers of the route) when the
 * organization lets them, its owners otherwise; adding a team twice or removing one that is not
 * there is 422.
 */
export async function changeRepoTeam(db: Knex, ctx: RepoContext, teamName: string, add: boolean): Promise<void> {
  requireOrgRepo(ctx);
  const adminsMayChange = await teamsStore(db).repoAdminChangeTeamAccess(ctx.owner.id);
  if (!adminsMayChange && !atLeast(ctx.mode, 'owner')) throw new ForbiddenError('user is nor repo admin nor owner');
  const team = await orgTeamByName(db, ctx, teamName);
  const store = teamReposStore(db);
  const has = await store.has(team, ctx.repo);
  if (add) {
    if (has) throw new UnprocessableError(`team '${team.name}' is already added to repo`);
    await store.add(team, ctx.repo);
  } else {
    if (!has) throw new UnprocessableError(`team '${team.name}' was not added to repo`);
    if (!team.includes_all_repositories) await store.remove(team, ctx.repo);
  }
}

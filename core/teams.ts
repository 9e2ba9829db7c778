// Teams of an organization: permission levels, repository units, members (Gitea's
// routers/api/v1/org/team.go and models/organization/team*.go rules).
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import { BLOCKED_USER_MESSAGE, isBlocked } from './blocks.js';
import { isUniqueViolation } from '../db/connection.js';
import { teamsStore, type TeamPermission, type TeamRow } from '../db/teams.js';
import { USER_TYPE, usersStore, type UserRow } from '../db/users.js';

/** Gitea's repository unit keys (AllRepoUnitTypes), in its order. */
export const REPO_UNIT_KEYS = [
  'repo.code', 'repo.issues', 'repo.pulls', 'repo.releases', 'repo.wiki',
  'repo.ext_wiki', 'repo.ext_issues', 'repo.projects', 'repo.packages', 'repo.actions',
] as const;

// External trackers and wikis are links, never more than readable (Gitea caps them at read).
const READ_ONLY_UNITS: ReadonlySet<string> = new Set(['repo.ext_wiki', 'repo.ext_issues']);
const MODE_RANK: Record<string, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 };

function parseAccessMode(value: string): string {
  const mode = String(value).toLowerCase();
  return mode in MODE_RANK ? mode : 'none';
}

/** Every unit at `mode` (external ones read-only): the owners and admin teams, and our default. */
function allUnitsAt(mode: TeamPermission): Record<string, string> {
  const units: Record<string, string> = {};
  for (const key of REPO_UNIT_KEYS) units[key] = READ_ONLY_UNITS.has(key) ? 'read' : mode;
  return units;
}

export function ownerTeamUnits(): Record<string, string> {
  return allUnitsAt('owner');
}

/** Unit keys in Gitea's order, unknown keys dropped (Gitea cannot store them either). */
function canonicalUnits(units: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of REPO_UNIT_KEYS) if (units[key] !== undefined) out[key] = units[key]!;
  return out;
}

export interface CreateTeamInput {
  name: string;
  description?: string | undefined;
  includesAllRepositories?: boolean | undefined;
  /** read, write or admin; anything else means no access outside the units given (Gitea's ParseAccessMode). */
  permission?: string | undefined;
  units?: string[] | undefined;
  unitsMap?: Record<string, string> | undefined;
  canCreateOrgRepo?: boolean | undefined;
}

const TEAM_NAME = /^[\w.-]+$/;

/** Gitea's binding messages for a team name (the Go field is `Name`). */
export function teamNameProblem(name: string): string | null {
  if (name === '') return '[Name]: Required';
  if (!TEAM_NAME.test(name)) return '[Name]: AlphaDashDot';
  return null;
}

/**
 * Admin teams get every unit at admin. Below admin, a units_map sets each unit's level and
 * `units` gives the listed units the team permission (read or write, else none), as Gitea 1.26
 * does. The stored permission, which repository access here is computed from, is the lowest
 * level of the team's code-hosting units (at least read). Deliberate difference: with neither,
 * Gitea answers 500 ("units permission should not be empty"); we give every unit the permission.
 */
export function teamUnitsFor(input: CreateTeamInput): { permission: TeamPermission; units: Record<string, string> } {
  const requested = parseAccessMode(input.permission ?? '');
  if (requested === 'admin') return { permission: 'admin', units: allUnitsAt('admin') };
  const listLevel = requested === 'read' || requested === 'write' ? requested : 'none';
  const units: Record<string, string> = {};
  const map = input.unitsMap ?? {};
  if (Object.keys(map).length > 0) {
    for (const [key, value] of Object.entries(map)) {
      const lower = key.toLowerCase();
      if ((REPO_UNIT_KEYS as readonly string[]).includes(lower)) units[lower] = parseAccessMode(value) === 'owner' ? 'none' : parseAccessMode(value);
    }
  } else if (input.units && input.units.length > 0) {
    for (const key of input.units) {
      const lower = key.toLowerCase();
      if ((REPO_UNIT_KEYS as readonly string[]).includes(lower)) units[lower] = listLevel;
    }
  } else {
    return { permission: listLevel === 'none' ? 'read' : listLevel, units: allUnitsAt(listLevel === 'none' ? 'read' : listLevel) };
  }
  let lowest = 0;
  for (const [key, mode] of Object.entries(units)) {
    const rank = MODE_RANK[mode]!;
    if (!READ_ONLY_UNITS.has(key) && rank > 0 && (lowest === 0 || rank < lowest)) lowest = rank;
  }
  const permission = (['read', 'write', 'admin'] as const)[Math.min(Math.max(lowest, 1), 3) - 1]!;
  return { permission, units: canonicalUnits(units) };
}

export async function createTeam(db: Knex, org: UserRow, input: CreateTeamInput): Promise<TeamRow> {
  const problem = teamNameProblem(input.name);
  if (problem) throw new UnprocessableError(problem);
  const teams = teamsStore(db);
  const exists = `team already exists [org_id: ${org.id}, name: ${input.name.toLowerCase()}]`;
  if (await teams.nameTaken(org.id, input.name)) throw new UnprocessableError(exists);
  const { permission, units } = teamUnitsFor(input);
  try {
    return await teams.insert({
      org_id: org.id,
      name: input.name,
      description: input.description ?? '',
      permission,
      includes_all_repositories: input.includesAllRepositories ?? false,
      can_create_org_repo: input.canCreateOrgRepo ?? false,
      units,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new UnprocessableError(exists);
    throw err;
  }
}

/** The team by id, or 404. */
export async function teamById(db: Knex, id: number): Promise<TeamRow> {
  const team = await teamsStore(db).byId(id);
  if (!team) throw new NotFoundError();
  return team;
}

/**
 * Gitea's reqTeamMembership: site admins, organization owners and the team's members pass; other
 * organization members get 403, everybody else 404 (the team is not theirs to know about).
 */
export async function requireTeamAccess(db: Knex, team: TeamRow, doer: UserRow): Promise<void> {
  if (doer.is_admin) return;
  const teams = teamsStore(db);
  if (await teams.isOrgOwner(team.org_id, doer.id)) return;
  if (await teams.isMember(team.id, doer.id)) return;
  if (await teams.isOrgMember(team.org_id, doer.id)) throw new ForbiddenError('Must be a team member');
  throw new NotFoundError();
}

/** Changing a team's members needs an owner; on a team route Gitea hides the team (404) from others. */
export async function requireTeamOwner(db: Knex, team: TeamRow, doer: UserRow): Promise<void> {
  if (doer.is_admin) return;
  if (!(await teamsStore(db).isOrgOwner(team.org_id, doer.id))) throw new NotFoundError();
}

async function memberByName(db: Knex, username: string): Promise<UserRow> {
  const user = await usersStore(db).byName(username);
  if (!user) throw new NotFoundError();
  // Gitea would add an organization as a member and break its permission model; refuse it clearly.
  if (user.type !== USER_TYPE.user) throw new UnprocessableError(`${user.name} is an organization, not a user`);
  return user;
}

/** Adds a member (idempotent). A user the organization has blocked cannot join (403). */
export async function addTeamMember(db: Knex, team: TeamRow, username: string): Promise<void> {
  const user = await memberByName(db, username);
  if (await isBlocked(db, team.org_id, user.id)) throw new ForbiddenError(BLOCKED_USER_MESSAGE);
  try {
    await teamsStore(db).addMember(team.id, user.id);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err; // a concurrent add of the same member already did it
  }
}

/**
 * Removes a member (idempotent). The last member of the Owners team stays: Gitea refuses with
 * ErrLastOrgOwner but answers 500; we answer 422 with its text.
 */
export async function removeTeamMember(db: Knex, team: TeamRow, username: string): Promise<void> {
  const user = await memberByName(db, username);
  const teams = teamsStore(db);
  await db.transaction(async (trx) => {
    await teams.lock(team.id, trx);
    if (team.permission === 'owner' && (await teams.isMember(team.id, user.id, trx)) && (await teams.memberCount(team.id, trx)) <= 1) {
      throw new UnprocessableError(`user is the last member of owner team [uid: ${user.id}]`);
    }
    await teams.removeMember(team.id, user.id, trx);
  });
}

export async function listTeamMembers(db: Knex, team: TeamRow, limit: number, offset: number): Promise<{ users: UserRow[]; total: number }> {
  const teams = teamsStore(db);
  const [users, total] = await Promise.all([teams.members(team.id, limit, offset), teams.memberCount(team.id)]);
  return { users, total };
}

export async function listTeams(db: Knex, orgId: number, limit: number, offset: number): Promise<{ teams: TeamRow[]; total: number }> {
  const store = teamsStore(db);
  const [teams, total] = await Promise.all([store.listByOrg(orgId, limit, offset), store.countByOrg(orgId)]);
  return { teams, total };
}

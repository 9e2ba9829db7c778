// The people around a repository that Gitea lists by name: who may be asked to review
// (services/pull/reviewer.go GetReviewers), who may be assigned (models/repo/user_repo.go
// GetRepoAssignees), and who holds a grant at all (access.GetUsersWithUnitAccess), the last for
// showing allow-lists. A grant is a collaboration, membership of an organization team that reaches
// the repository, or (for a user's repository) ownership.
import type { Knex } from 'knex';
import type { RepoContext } from './permissions.js';
import { reposStore } from '../db/repos.js';
import { teamReposStore } from '../db/team-repos.js';
import { toUserRow, USER_TYPE, type UserRow } from '../db/users.js';

type Place = Pick<RepoContext, 'repo' | 'owner'>;
type CollaboratorMode = 'read' | 'write' | 'admin';

const MODES_FROM: Record<CollaboratorMode, CollaboratorMode[]> = {
  read: ['read', 'write', 'admin'], write: ['write', 'admin'], admin: ['admin'],
};

const isOrganization = (place: Place) => place.owner.type === USER_TYPE.organization;

/** Ids of collaborators at `minMode` or above, and of members of the organization's teams that reach the repository. */
async function grantedUserIds(db: Knex, place: Place, minMode: CollaboratorMode): Promise<Set<number>> {
  const ids = new Set<number>();
  const collaborators = await db('collaborations').where('repo_id', place.repo.id).whereIn('mode', MODES_FROM[minMode]).select('user_id');
  for (const row of collaborators) ids.add(Number(row.user_id));
  if (isOrganization(place)) {
    const teams = await teamReposStore(db).teamsOfRepo(place.owner.id, place.repo.id);
    if (teams.length > 0) {
      const members = await db('team_members').whereIn('team_id', teams.map((t) => t.id)).distinct('user_id');
      for (const row of members) ids.add(Number(row.user_id));
    }
  }
  return ids;
}

/** The users with these ids, by name (Gitea orders by name; lower_name keeps MariaDB and SQLite alike). */
async function usersByName(db: Knex, ids: Set<number>, opts: { activeOnly: boolean }): Promise<UserRow[]> {
  if (ids.size === 0) return [];
  const query = db('users').whereIn('id', [...ids]).andWhere('type', USER_TYPE.user).orderBy('lower_name');
  if (opts.activeOnly) query.andWhere('is_active', true);
  return (await query).map((r: Record<string, unknown>) => toUserRow(r)!);
}

/** A user repository's owner comes last, after the others by name, as Gitea appends it. */
function withOwnerLast(place: Place, users: UserRow[], ids: Set<number>, exceptId = 0): UserRow[] {
  if (isOrganization(place) || ids.has(place.owner.id) || place.owner.id === exceptId) return users;
  return [...users, place.owner];
}

/** Who may be asked to review a pull request of the repository (all but the poster, `posterId`). */
export async function repoReviewers(db: Knex, place: Place, posterId = 0): Promise<UserRow[]> {
  const ids = await grantedUserIds(db, place, 'read');
  ids.delete(posterId);
  return withOwnerLast(place, await usersByName(db, ids, { activeOnly: true }), ids, posterId);
}

/** Who may be assigned to the repository's issues and pull requests. */
export async function repoAssignees(db: Knex, place: Place): Promise<UserRow[]> {
  const ids = await grantedUserIds(db, place, 'write');
  return withOwnerLast(place, await usersByName(db, ids, { activeOnly: true }), ids);
}

/** Everybody with a grant on the repository, by name: allow-lists show only these. */
export async function repoGrantees(db: Knex, place: Place): Promise<UserRow[]> {
  const ids = await grantedUserIds(db, place, 'read');
  if (!isOrganization(place)) ids.add(place.owner.id);
  return usersByName(db, ids, { activeOnly: false });
}

/**
 * Whether `doer` may choose reviewers for the repository's pull requests (Gitea's
 * CanDoerChangeReviewRequests): the pull request's poster (`posterId`, none when 0), the owner, a
 * collaborator, or a member of a team that reaches the repository; nobody in an archived
 * repository. Site administrators are not special here, as in Gitea.
 */
export async function mayChooseReviewers(db: Knex, place: Place, doer: UserRow, posterId = 0): Promise<boolean> {
  if (place.repo.is_archived) return false;
  if (doer.id === posterId || doer.id === place.owner.id) return true;
  if (await reposStore(db).collaboratorGrant(place.repo.id, doer.id)) return true;
  return isOrganization(place) && (await reposStore(db).teamGrants(place.repo.id, place.owner.id, doer.id)).length > 0;
}

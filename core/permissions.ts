// The one answer to "may this doer do this to this repository": site admins, owners,
// organization owners and teams, collaborators, visibility, restricted users and public-only tokens.
import type { Knex } from 'knex';
import { ForbiddenError, LockedError, NotFoundError } from './errors.js';
import { reposStore, type RepoRow } from '../db/repos.js';
import { repoWithOwnerByNames, type RepoWithOwner } from '../db/repo-lookups.js';
import { isOrgMember } from './organizations.js';
import { usersStore, USER_TYPE, type UserRow } from '../db/users.js';

export type AccessMode = 'none' | 'read' | 'write' | 'admin' | 'owner';

const RANK: Record<AccessMode, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 };

export function atLeast(mode: AccessMode, needed: AccessMode): boolean {
  return RANK[mode] >= RANK[needed];
}

function max(a: AccessMode, b: AccessMode): AccessMode {
  return RANK[a] >= RANK[b] ? a : b;
}

function teamPermissionToMode(permission: string): AccessMode {
  return (['read', 'write', 'admin', 'owner'] as const).find((m) => m === permission) ?? 'none';
}

/** What anybody may do without a grant: read public repositories of visible owners. */
function baselineMode(repo: RepoRow, owner: UserRow, doer: UserRow | null): AccessMode {
  if (repo.is_private) return 'none';
  if (doer?.restricted) return 'none'; // restricted users see only what they are granted
  if (owner.visibility === 'private') return 'none'; // members only, decided by grants below
  if (owner.visibility === 'limited' && !doer) return 'none';
  return 'read';
}

export async function repoAccessMode(db: Knex, repo: RepoRow, owner: UserRow, doer: UserRow | null): Promise<AccessMode> {
  if (!doer) return baselineMode(repo, owner, null);
  if (doer.is_admin) return 'owner';
  if (owner.type === USER_TYPE.user && owner.id === doer.id) return 'owner';
  let mode = baselineMode(repo, owner, doer);
  const repos = reposStore(db);
  if (owner.type === USER_TYPE.organization) {
    for (const permission of await repos.teamGrants(repo.id, owner.id, doer.id)) mode = max(mode, teamPermissionToMode(permission));
    if (owner.visibility === 'private' && !repo.is_private && mode === 'none' && (await isOrgMember(db, owner.id, doer.id))) mode = 'read';
  }
  const grant = await repos.collaboratorGrant(repo.id, doer.id);
  if (grant) mode = max(mode, grant);
  return mode;
}

export interface RepoContext {
  repo: RepoRow;
  owner: UserRow;
  /** The doer's access; never 'none' (such repositories are answered 404). */
  mode: AccessMode;
}

export interface RepoLookup {
  ownerName: string;
  repoName: string;
  doer: UserRow | null;
  /** Set when the request used a public-only token. */
  publicOnly?: boolean;
}

/**
 * Loads a repository for a request. A repository the doer may not read does not exist for them
 * (404, never 403), as in Gitea.
 */
export async function loadRepository(db: Knex, lookup: RepoLookup): Promise<RepoContext> {
  // Owner and repository by their names in one round trip: every repository route starts here.
  return admitToRepository(db, await repoWithOwnerByNames(db, lookup.ownerName, lookup.repoName), lookup);
}

/** The doer's context in a repository already read: 404 when it is not there or unseen, 403 for a public-only token on a private one. */
export async function admitToRepository(db: Knex, found: RepoWithOwner | undefined, lookup: Pick<RepoLookup, 'doer' | 'publicOnly'>): Promise<RepoContext> {
  if (!found) throw new NotFoundError();
  const { repo, owner } = found;
  const mode = await repoAccessMode(db, repo, owner, lookup.doer);
  if (mode === 'none') throw new NotFoundError();
  if (lookup.publicOnly && repo.is_private) throw new ForbiddenError('token scope is limited to public repos');
  return { repo, owner, mode };
}

export function requireMode(ctx: RepoContext, needed: AccessMode, message = 'user should have a permission to write to a repo'): void {
  if (!atLeast(ctx.mode, needed)) throw new ForbiddenError(message);
}

/** Writes to an archived repository answer 423, as Gitea's archived guard does. */
export function assertNotArchived(repo: RepoRow): void {
  if (repo.is_archived) throw new LockedError('repo is archived');
}


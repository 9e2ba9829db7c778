// Organizations: creation (with the Owners team), who may see an account, and the membership
// facts the permission model stands on (Gitea's models/organization, models/user visibility).
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import { usernameProblem } from './auth/usernames.js';
import { isUniqueViolation } from '../db/connection.js';
import { teamsStore, type TeamRow } from '../db/teams.js';
import { USER_TYPE, usersStore, type UserRow } from '../db/users.js';
import { ownerTeamUnits } from './teams.js';

/** Whether `userId` is in the organization's Owners team (any team with `owner` permission). */
export async function isOrgOwner(db: Knex, orgId: number, userId: number): Promise<boolean> {
  return teamsStore(db).isOrgOwner(orgId, userId);
}

/** Whether `userId` belongs to any team of the organization. */
export async function isOrgMember(db: Knex, orgId: number, userId: number): Promise<boolean> {
  return teamsStore(db).isOrgMember(orgId, userId);
}

/** The teams of the organization `userId` is a member of, each with its permission and units. */
export async function teamsOfUserInOrg(db: Knex, orgId: number, userId: number): Promise<TeamRow[]> {
  return teamsStore(db).ofUserInOrg(orgId, userId);
}

/**
 * Who may see an account (Gitea's IsUserVisibleToViewer for users, HasOrgOrUserVisible for
 * organizations): site admins and the account itself always; public ones everybody; limited ones
 * signed-in viewers (restricted viewers only through a shared organization); private users only
 * people who share an organization with them; private organizations only their members.
 */
export async function accountVisibleTo(db: Knex, account: UserRow, viewer: UserRow | null): Promise<boolean> {
  if (viewer && (viewer.is_admin || viewer.id === account.id)) return true;
  if (account.visibility === 'public' && !(viewer?.restricted && account.type === USER_TYPE.organization)) return true;
  if (!viewer) return false;
  const teams = teamsStore(db);
  if (account.type === USER_TYPE.organization) {
    if (account.visibility === 'private' || viewer.restricted) return teams.isOrgMember(account.id, viewer.id);
    return true;
  }
  if (account.visibility === 'limited' && !viewer.restricted) return true;
  return teams.shareAnOrganization(account.id, viewer.id);
}

export interface CreateOrganizationInput {
  username: string;
  fullName?: string | undefined;
  email?: string | undefined;
  description?: string | undefined;
  website?: string | undefined;
  location?: string | undefined;
  visibility?: 'public' | 'limited' | 'private' | '' | undefined;
  repoAdminChangeTeamAccess?: boolean | undefined;
}

export const OWNER_TEAM_NAME = 'Owners';

/**
 * Creates the organization, its Owners team (owner permission, all repositories, may create
 * repositories) and puts the creator in it, in one transaction.
 */
export async function createOrganization(db: Knex, creator: UserRow, input: CreateOrganizationInput): Promise<UserRow> {
  const problem = usernameProblem(input.username);
  if (problem) throw new UnprocessableError(problem.message);
  const exists = `user already exists [name: ${input.username}]`;
  const users = usersStore(db);
  if (await users.byName(input.username)) throw new UnprocessableError(exists);
  try {
    const id = await db.transaction(async (trx) => {
      const orgId = await users.insert({
        name: input.username,
        email: input.email ?? '',
        passwd_hash: '',
        type: USER_TYPE.organization,
        full_name: input.fullName ?? '',
        description: input.description ?? '',
        website: input.website ?? '',
        location: input.location ?? '',
        visibility: input.visibility || 'public',
      }, trx);
      const teams = teamsStore(db);
      if (input.repoAdminChangeTeamAccess) await teams.setRepoAdminChangeTeamAccess(orgId, true, trx);
      const owners = await teams.insert({
        org_id: orgId,
        name: OWNER_TEAM_NAME,
        description: '',
        permission: 'owner',
        includes_all_repositories: true,
        can_create_org_repo: true,
        units: ownerTeamUnits(),
      }, trx);
      await teams.addMember(owners.id, creator.id, trx);
      return orgId;
    });
    return (await users.byId(id))!;
  } catch (err) {
    if (isUniqueViolation(err)) throw new UnprocessableError(exists);
    throw err;
  }
}

/** The organization named `name` as the viewer may see it: 404 when unknown, not an org, or hidden. */
export async function visibleOrganization(db: Knex, name: string, viewer: UserRow | null): Promise<UserRow> {
  const org = await usersStore(db).byName(name);
  if (!org || org.type !== USER_TYPE.organization || !(await accountVisibleTo(db, org, viewer))) throw new NotFoundError();
  return org;
}

/** Gitea's reqOrgOwnership for a route on the organization itself: 403 for non-owners. */
export async function requireOrgOwner(db: Knex, org: UserRow, doer: UserRow): Promise<void> {
  if (doer.is_admin) return;
  if (!(await isOrgOwner(db, org.id, doer.id))) throw new ForbiddenError('Must be an organization owner');
}

/** Gitea's reqOrgMembership: 403 for non-members. */
export async function requireOrgMember(db: Knex, org: UserRow, doer: UserRow): Promise<void> {
  if (doer.is_admin) return;
  if (!(await isOrgMember(db, org.id, doer.id))) throw new ForbiddenError('Must be an organization member');
}

/** `public-only` tokens may only touch public organizations (Gitea's checkTokenPublicOnly). */
export function assertPublicForToken(account: UserRow, publicOnly: boolean | undefined): void {
  if (!publicOnly || account.visibility === 'public') return;
  throw new ForbiddenError(account.type === USER_TYPE.organization ? 'token scope is limited to public orgs' : 'token scope is limited to public users');
}

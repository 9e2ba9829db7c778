// Organization membership rules (routers/api/v1/org/member.go, services/org/user.go): who sees
// which members, checking and concealing memberships, removing a member from every team.
import type { Knex } from 'knex';
import { ForbiddenError, UnprocessableError } from './errors.js';
import { orgMembersStore } from '../db/org-members.js';
import { teamsStore } from '../db/teams.js';
import type { UserRow } from '../db/users.js';

type Page = { limit: number; offset: number };

/**
 * GET /orgs/{org}/members and /public_members: members and admins see every member (a restricted
 * member only public ones and their teammates); everybody else, and members on the public list,
 * only public memberships.
 */
export async function listOrgMembers(db: Knex, org: UserRow, doer: UserRow | null, page: Page, publicList: boolean): Promise<{ users: UserRow[]; total: number }> {
  const isMember = !publicList && doer !== null && (await teamsStore(db).isOrgMember(org.id, doer.id));
  const listing = {
    // As in Gitea, a site admin sees every member even on the public list.
    publicOnly: doer === null || !(isMember || doer.is_admin),
    teammatesOf: isMember && doer?.restricted ? doer.id : undefined,
  };
  const store = orgMembersStore(db);
  const [users, total] = await Promise.all([store.list(org.id, listing, page), store.count(org.id, listing)]);
  return { users, total };
}

export type MembershipAnswer = 'member' | 'not-member' | 'ask-public';

/**
 * GET /orgs/{org}/members/{username}: members and admins learn the answer; a user asking about
 * themselves from outside hears "no"; everybody else is sent to the public membership check.
 */
export async function checkOrgMembership(db: Knex, org: UserRow, doer: UserRow | null, target: UserRow): Promise<MembershipAnswer> {
  const teams = teamsStore(db);
  if (doer) {
    if (doer.is_admin || (await teams.isOrgMember(org.id, doer.id))) return (await teams.isOrgMember(org.id, target.id)) ? 'member' : 'not-member';
    if (doer.id === target.id) return 'not-member';
  }
  return 'ask-public';
}

export async function isPublicOrgMember(db: Knex, org: UserRow, target: UserRow): Promise<boolean> {
  return orgMembersStore(db).isPublicMember(org.id, target.id);
}

/**
 * PUT/DELETE /orgs/{org}/public_members/{username}: the doer must be a member (or an admin) and
 * change their own membership, unless they own the organization.
 */
export async function setMembershipPublic(db: Knex, org: UserRow, doer: UserRow, target: UserRow, isPublic: boolean): Promise<void> {
  const teams = teamsStore(db);
  if (!doer.is_admin && !(await teams.isOrgMember(org.id, doer.id))) throw new ForbiddenError('Must be an organization member');
  if (target.id !== doer.id && !doer.is_admin && !(await teams.isOrgOwner(org.id, doer.id))) throw new ForbiddenError('Cannot change member visibility');
  await orgMembersStore(db).setPublic(org.id, target.id, isPublic);
}

/**
 * Removes the user from every team of the organization (nothing when not a member). The last
 * owner stays: Gitea refuses with ErrLastOrgOwner but answers 500; here 422 with its text.
 */
export async function removeOrgMember(db: Knex, org: UserRow, target: UserRow): Promise<void> {
  const teams = teamsStore(db);
  await db.transaction(async (trx) => {
    const mine = await teams.ofUserInOrg(org.id, target.id, trx);
    for (const team of mine) await teams.lock(team.id, trx);
    for (const team of mine) {
      if (team.permission === 'owner' && (await teams.memberCount(team.id, trx)) <= 1) {
        throw new UnprocessableError(`user is the last member of owner team [uid: ${target.id}]`);
      }
    }
    for (const team of mine) await teams.removeMember(team.id, target.id, trx);
    await orgMembersStore(db).forgetIfLeft(org.id, target.id, trx);
  });
}

export interface OrgPermissions {
  is_owner: boolean;
  is_admin: boolean;
  can_write: boolean;
  can_read: boolean;
  can_create_repository: boolean;
}

const RANK: Record<string, number> = { read: 1, write: 2, admin: 3, owner: 4 };

/** GET /users/{u}/orgs/{org}/permissions: the user's highest team permission, spelled out. */
export async function orgPermissionsOf(db: Knex, org: UserRow, user: UserRow): Promise<OrgPermissions> {
  const teams = await teamsStore(db).ofUserInOrg(org.id, user.id);
  const level = Math.max(0, ...teams.map((t) => RANK[t.permission] ?? 0));
  return {
    is_owner: level > 3,
    is_admin: level > 2,
    can_write: level > 1,
    can_read: level > 0,
    can_create_repository: teams.some((t) => t.permission === 'owner' || t.can_create_org_repo),
  };
}

/**
 * GET /users/{u}/orgs and /user/orgs: admins and the user see every membership and visibility;
 * other signed-in callers public memberships of public and limited organizations; anonymous
 * callers and public-only tokens public ones of public organizations.
 */
export async function listOrgsOf(db: Knex, user: UserRow, doer: UserRow | null, publicOnly: boolean, page: Page) {
  const full = doer !== null && (doer.is_admin || doer.id === user.id);
  let visibilities = full ? ['public', 'limited', 'private'] : doer ? ['public', 'limited'] : ['public'];
  if (publicOnly) visibilities = ['public'];
  return orgMembersStore(db).orgsOf(user.id, { includeConcealed: full, visibilities }, page);
}

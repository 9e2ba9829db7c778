// Blocking: a user, or an organization through its owners, blocks a user (Gitea's
// services/user/block.go). The effects on repositories, issues and pull requests (collaborations,
// assignments, reviews) are enforced where those live; they ask `isBlocked`.
import type { Knex } from 'knex';
import { BadRequestError } from './errors.js';
import { blocksStore } from '../db/blocks.js';
import { teamsStore } from '../db/teams.js';
import { USER_TYPE, type UserRow } from '../db/users.js';

// Gitea's error texts (models/user/block.go), answered with 400.
export const BLOCK_ORGANIZATION_MESSAGE = 'cannot block an organization';
export const CANNOT_BLOCK_MESSAGE = 'cannot block the user';
export const CANNOT_UNBLOCK_MESSAGE = 'cannot unblock the user';
/** The 403 text for an action refused because of a block (Gitea's ErrBlockedUser). */
export const BLOCKED_USER_MESSAGE = 'user is blocked';

/** Whether `blocker` (a user or an organization) has blocked `blockee`. */
export async function isBlocked(db: Knex, blockerId: number, blockeeId: number): Promise<boolean> {
  return blocksStore(db).exists(blockerId, blockeeId);
}

/** Whether either of two accounts has blocked the other (Gitea refuses interactions both ways). */
export async function isBlockedEitherWay(db: Knex, a: number, b: number): Promise<boolean> {
  return blocksStore(db).eitherWay(a, b);
}

/** Who may act for `blocker`: the user themself, a site admin, or an owner of the organization. */
async function mayActFor(db: Knex, doer: UserRow, blocker: UserRow): Promise<boolean> {
  if (doer.is_admin) return true;
  if (blocker.type === USER_TYPE.organization) return teamsStore(db).isOrgOwner(blocker.id, doer.id);
  return doer.id === blocker.id;
}

export async function blockUser(db: Knex, doer: UserRow, blocker: UserRow, blockee: UserRow, note: string): Promise<void> {
  if (blockee.type === USER_TYPE.organization) throw new BadRequestError(BLOCK_ORGANIZATION_MESSAGE);
  const refused =
    blocker.id === blockee.id ||
    doer.id === blockee.id ||
    (await isBlocked(db, blocker.id, blockee.id)) ||
    // An organization cannot block its own members: remove them from its teams first.
    (blocker.type === USER_TYPE.organization && (await teamsStore(db).isOrgMember(blocker.id, blockee.id))) ||
    !(await mayActFor(db, doer, blocker));
  if (refused) throw new BadRequestError(CANNOT_BLOCK_MESSAGE);
  try {
    await blocksStore(db).insert(blocker.id, blockee.id, note);
  } catch (err) {
    // A concurrent identical block: the primary key decides, the loser hears "cannot block".
    if (await isBlocked(db, blocker.id, blockee.id)) throw new BadRequestError(CANNOT_BLOCK_MESSAGE);
    throw err;
  }
}

export async function unblockUser(db: Knex, doer: UserRow, blocker: UserRow, blockee: UserRow): Promise<void> {
  if (blockee.type === USER_TYPE.organization) throw new BadRequestError(BLOCK_ORGANIZATION_MESSAGE);
  const refused = doer.id === blockee.id || !(await isBlocked(db, blocker.id, blockee.id)) || !(await mayActFor(db, doer, blocker));
  if (refused) throw new BadRequestError(CANNOT_UNBLOCK_MESSAGE);
  await blocksStore(db).remove(blocker.id, blockee.id);
}

export async function listBlocked(db: Knex, blockerId: number, limit: number, offset: number): Promise<{ users: UserRow[]; total: number }> {
  const store = blocksStore(db);
  const [users, total] = await Promise.all([store.blockees(blockerId, limit, offset), store.count(blockerId)]);
  return { users, total };
}

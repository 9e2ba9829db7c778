// Reactions on issues, pull requests and their comments (Gitea's services/issue/reaction.go and
// routers/api/v1/repo/issue_reaction.go): the allowed set, locks and blocks.
import type { Knex } from 'knex';
import { ForbiddenError } from './errors.js';
import { atLeast, type RepoContext } from './permissions.js';
import { BLOCKED_USER_MESSAGE } from './blocks.js';
import { blockedByAny } from './comments.js';
import { reactionsStore, type ReactionRow, type ReactionTarget } from '../db/reactions.js';
import type { CommentRow } from '../db/comments.js';
import type { IssueRow } from '../db/issues.js';
import type { UserRow } from '../db/users.js';

/** Gitea's default `[ui] REACTIONS`. */
export const ALLOWED_REACTIONS: readonly string[] = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'];

export function targetOf(issue: IssueRow, comment?: CommentRow): ReactionTarget {
  return { issueId: issue.id, commentId: comment?.id ?? 0 };
}

/** On a locked issue only writers may react (Gitea's "no permission to change reaction"). */
function assertMayReact(ctx: RepoContext, issue: IssueRow): void {
  if (issue.is_locked && !atLeast(ctx.mode, 'write')) throw new ForbiddenError('no permission to change reaction');
}

/**
 * Adds the doer's reaction. `created` is false when they had already reacted so (Gitea answers 200
 * with it then, 201 for a new one). The issue's poster, the repository's owner and, on a comment,
 * its poster may have blocked the doer.
 */
export async function addReaction(db: Knex, ctx: RepoContext, issue: IssueRow, comment: CommentRow | undefined, doer: UserRow, type: string): Promise<{ row: ReactionRow; created: boolean }> {
  assertMayReact(ctx, issue);
  if (!ALLOWED_REACTIONS.includes(type)) throw new ForbiddenError(`'${type.slice(0, 100)}' is not an allowed reaction`);
  if (await blockedByAny(db, doer, [issue.poster_id, ctx.owner.id, comment?.poster_id ?? null])) throw new ForbiddenError(BLOCKED_USER_MESSAGE);
  return reactionsStore(db).insertOnce(targetOf(issue, comment), type, doer.id);
}

/** Removes the doer's reaction of that type; nothing to remove is not an error (204 either way). */
export async function removeReaction(db: Knex, ctx: RepoContext, issue: IssueRow, comment: CommentRow | undefined, doer: UserRow, type: string): Promise<void> {
  assertMayReact(ctx, issue);
  await reactionsStore(db).remove(targetOf(issue, comment), type, doer.id);
}

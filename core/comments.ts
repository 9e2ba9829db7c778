// Issue comments, including the records merges and branch deletions leave on a pull request.
import { isBlocked } from './blocks.js';
import type { Knex } from 'knex';
import { ForbiddenError, UnprocessableError } from './errors.js';
import { atLeast, type RepoContext } from './permissions.js';
import { issuesStore, type CommentRow, type IssueRow } from '../db/issues.js';
import type { UserRow } from '../db/users.js';

/**
 * Kinds of comment rows; only `comment` counts in an issue's `comments` number, as in Gitea. The
 * timeline (api/serializers/timeline.ts) names each the way Gitea does: add a new kind there too.
 */
export type CommentType = 'comment' | 'merge_pull' | 'delete_branch' | 'close' | 'reopen' | 'change_target_branch'
  | 'schedule_auto_merge' | 'cancel_auto_merge' | string;

export const MAX_COMMENT_LENGTH = 65535;

export async function addComment(
  trx: Knex,
  input: { issueId: number; posterId: number | null; type: CommentType; content: string },
): Promise<CommentRow> {
  const store = issuesStore(trx);
  const id = await store.insertComment({ issue_id: input.issueId, poster_id: input.posterId, type: input.type, content: input.content }, trx);
  if (input.type === 'comment') {
    await trx('issues').where({ id: input.issueId }).increment('num_comments', 1);
  }
  return (await store.commentById(id, trx))!;
}

/** A person's comment through the API: readers may comment, locked issues only writers, never the blocked. */
export async function postComment(db: Knex, ctx: RepoContext, issue: IssueRow, doer: UserRow, body: string): Promise<CommentRow> {
  if (!body.trim()) throw new UnprocessableError('[body]: Required');
  if (body.length > MAX_COMMENT_LENGTH) throw new UnprocessableError(`[body]: MaxSize(${MAX_COMMENT_LENGTH})`);
  if (issue.is_locked && !atLeast(ctx.mode, 'write')) throw new ForbiddenError('this issue is locked');
  if (await isBlocked(db, ctx.owner.id, doer.id)) throw new ForbiddenError('user is blocked by the repository owner');
  if (issue.poster_id !== null && await isBlocked(db, issue.poster_id, doer.id)) throw new ForbiddenError('user is blocked by the issue poster');
  return db.transaction((trx) => addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'comment', content: body }));
}

// Issue comments, including the records merges and branch deletions leave on a pull request: who
// may write, edit and delete them (Gitea's routers/api/v1/repo/issue_comment.go rules).
import { BLOCKED_USER_MESSAGE, isBlocked } from './blocks.js';
import type { Knex } from 'knex';
import { BadRequestError, ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import { atLeast, type RepoContext } from './permissions.js';
import { commentsStore, CONVERSATION_TYPES, type CommentRow, type NewComment } from '../db/comments.js';
import { issuesStore, type IssueRow } from '../db/issues.js';
import type { UserRow } from '../db/users.js';
import { nowUnix } from '../db/time.js';

/**
 * Kinds of comment rows; `comment` and `review` count in an issue's `comments` number, as in Gitea.
 * The timeline (api/serializers/timeline.ts) names each the way Gitea does: add a new kind there too.
 */
export type CommentType = 'comment' | 'merge_pull' | 'delete_branch' | 'close' | 'reopen' | 'change_target_branch'
  | 'schedule_auto_merge' | 'cancel_auto_merge' | 'label' | 'review' | 'code' | 'review_request' | 'dismiss_review' | string;

/** Gitea's CommentType.HasContentSupport: the kinds whose body a person wrote and may edit. */
const TEXT_TYPES: ReadonlySet<string> = new Set(['comment', 'code', 'review', 'dismiss_review']);

export const MAX_COMMENT_LENGTH = 65535;

/** Writes a comment row, recounts the conversation and touches the issue, as Gitea's CreateComment does. */
export async function addComment(trx: Knex, input: { issueId: number; posterId: number | null; type: CommentType; content: string } & Partial<NewComment>): Promise<CommentRow> {
  const store = commentsStore(trx);
  const { issueId, posterId, ...rest } = input;
  const id = await store.insert({ ...rest, issue_id: issueId, poster_id: posterId }, trx);
  if (CONVERSATION_TYPES.includes(input.type)) await store.recountIssueComments(issueId, trx);
  await trx('issues').where({ id: issueId }).update({ updated_unix: nowUnix() });
  return (await store.byId(id, trx))!;
}

/** A person's comment through the API: readers may comment, locked issues only writers, never the blocked. */
export async function postComment(db: Knex, ctx: RepoContext, issue: IssueRow, doer: UserRow, body: string): Promise<CommentRow> {
  if (!body.trim()) throw new UnprocessableError('[body]: Required');
  if (body.length > MAX_COMMENT_LENGTH) throw new UnprocessableError(`[body]: MaxSize(${MAX_COMMENT_LENGTH})`);
  if (issue.is_locked && !atLeast(ctx.mode, 'write') && !doer.is_admin) throw new ForbiddenError('You cannot comment on a locked issue.');
  if (await isBlocked(db, ctx.owner.id, doer.id)) throw new ForbiddenError('user is blocked by the repository owner');
  if (issue.poster_id !== null && await isBlocked(db, issue.poster_id, doer.id)) throw new ForbiddenError('user is blocked by the issue poster');
  return db.transaction((trx) => addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'comment', content: body }));
}

/** Gitea's IsUserBlockedBy: whether any of these accounts blocked the doer (site admins never are). */
export async function blockedByAny(db: Knex, doer: UserRow, blockerIds: Array<number | null>): Promise<boolean> {
  if (doer.is_admin) return false;
  for (const id of new Set(blockerIds)) if (id !== null && await isBlocked(db, id, doer.id)) return true;
  return false;
}

export interface LoadedComment {
  comment: CommentRow;
  issue: IssueRow;
}

/** A comment of any kind on an issue or pull request of this repository; 404 otherwise. */
export async function loadRepoComment(db: Knex, repoId: number, id: number): Promise<LoadedComment> {
  const comment = await commentsStore(db).byIdInRepo(repoId, id);
  const issue = comment ? await issuesStore(db).byId(comment.issue_id) : undefined;
  if (!comment || !issue) throw new NotFoundError('comment does not exist');
  return { comment, issue };
}

/** Gitea lets the poster and the repository's writers change a comment; others get a bare 403. */
function mayChange(ctx: RepoContext, comment: CommentRow, doer: UserRow): boolean {
  return comment.poster_id === doer.id || atLeast(ctx.mode, 'write');
}

export function hasText(comment: CommentRow): boolean {
  return TEXT_TYPES.has(comment.type);
}

export type EditOutcome = { kind: 'forbidden' } | { kind: 'not-text' } | { kind: 'edited'; comment: CommentRow };

/**
 * Edits a comment's body. As in Gitea, an event row (no text of its own) answers 204 and a stranger
 * a bare 403; the body is swapped only if nobody changed it since it was read.
 */
export async function editComment(db: Knex, ctx: RepoContext, loaded: LoadedComment, doer: UserRow, body: string): Promise<EditOutcome> {
  const { comment, issue } = loaded;
  if (!mayChange(ctx, comment, doer)) return { kind: 'forbidden' };
  if (!hasText(comment)) return { kind: 'not-text' };
  if (body.length > MAX_COMMENT_LENGTH) throw new UnprocessableError(`[body]: MaxSize(${MAX_COMMENT_LENGTH})`);
  if (body === comment.content) return { kind: 'edited', comment };
  // Gitea lets a blocked repository admin still edit (moderation).
  if (!atLeast(ctx.mode, 'admin') && await blockedByAny(db, doer, [issue.poster_id, ctx.owner.id])) throw new ForbiddenError(BLOCKED_USER_MESSAGE);
  const store = commentsStore(db);
  if (!(await store.updateContent(comment.id, comment.content_version, body))) {
    throw new BadRequestError('the comment was changed by someone else; reload it and apply your change again');
  }
  return { kind: 'edited', comment: (await store.byId(comment.id))! };
}

export type DeleteOutcome = 'forbidden' | 'not-text' | 'deleted';

/** Deletes a comment with its reactions; the conversation count follows. Events cannot be deleted (400). */
export async function deleteComment(db: Knex, ctx: RepoContext, loaded: LoadedComment, doer: UserRow): Promise<DeleteOutcome> {
  const { comment } = loaded;
  if (!mayChange(ctx, comment, doer)) return 'forbidden';
  if (!hasText(comment)) return 'not-text';
  await db.transaction(async (trx) => {
    const store = commentsStore(trx);
    await store.remove([comment.id], trx);
    await store.recountIssueComments(comment.issue_id, trx);
  });
  return 'deleted';
}

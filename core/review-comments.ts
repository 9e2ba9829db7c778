// Code comments of a review (Gitea's services/pull/review.go createCodeComment): a comment on a
// line of the pull request's diff keeps the file, the line (negative on the old side), the commit
// that last changed the line and the diff hunk around it. Git is read before any row is written.
import type { Knex } from 'knex';
import { BadRequestError, ForbiddenError } from './errors.js';
import { atLeast, type RepoContext } from './permissions.js';
import { isOfficialReviewer } from './review-official.js';
import { cutDiffAroundLine, CODE_COMMENT_LINES, patchForUnchangedLines } from './review-hunk.js';
import { commentsStore, type CommentRow } from '../db/comments.js';
import type { IssueRow } from '../db/issues.js';
import type { UserRow } from '../db/users.js';
import { blameLine, fileDiff, fileLines } from '../git/review-lines.js';

/** A comment as a client sends it: `new_position` is a line of the new file, `old_position` of the old one. */
export interface NewCodeComment {
  path?: string;
  body?: string;
  new_position?: number;
  old_position?: number;
}

/** Gitea's signed line: the old side wins when given. */
export function signedLine(c: NewCodeComment): number {
  const old = c.old_position ?? 0;
  return old > 0 ? -old : c.new_position ?? 0;
}

export interface PlannedCodeComment {
  path: string;
  body: string;
  line: number;
  commitSha: string;
  patch: string;
}

export interface DiffPoints {
  repoPath: string;
  /** The pull request's merge base and current head (refs/pull/N/head). */
  mergeBase: string;
  headSha: string;
  /** The commit the review is written against (its commit_id). */
  reviewCommit: string;
}

/**
 * The commit and diff hunk of one comment, as Gitea computes them: for a new-side line the commit
 * that last changed it (blame at the review's commit); the hunk of the merge base..head diff cut
 * around the line, or, for a line the diff does not touch, the file's lines above it.
 */
export async function planCodeComment(points: DiffPoints, c: NewCodeComment, earlier?: Pick<PlannedCodeComment, 'commitSha' | 'patch'>): Promise<PlannedCodeComment> {
  const path = c.path ?? '';
  const body = c.body ?? '';
  const line = signedLine(c);
  // Another comment of this review on the same line shares its commit and hunk.
  if (earlier && line > 0) return { path, body, line, commitSha: earlier.commitSha, patch: earlier.patch };
  let commitSha = line > 0 ? (await blameLine(points.repoPath, points.reviewCommit, path, line)) ?? '' : '';
  if (!commitSha) commitSha = points.headSha;
  const unsigned = Math.abs(line);
  let patch = points.mergeBase && line !== 0
    ? cutDiffAroundLine(await fileDiff(points.repoPath, points.mergeBase, points.headSha, path), unsigned, line < 0)
    : '';
  if (!patch && line !== 0) {
    const start = Math.max(unsigned - CODE_COMMENT_LINES, 1);
    patch = patchForUnchangedLines(path, start, (await fileLines(points.repoPath, commitSha, path, start, unsigned)) ?? []);
  }
  return { path, body, line, commitSha, patch };
}

/** Writes planned comments under a review (inside the caller's transaction). */
export async function insertCodeComments(trx: Knex, issue: IssueRow, reviewId: number, doer: UserRow, planned: PlannedCodeComment[]): Promise<void> {
  const store = commentsStore(trx);
  for (const p of planned) {
    await store.insert({
      issue_id: issue.id, poster_id: doer.id, type: 'code', content: p.body, review_id: reviewId,
      tree_path: p.path, line: p.line, commit_sha: p.commitSha, patch: p.patch,
    }, trx);
  }
}

/** Code comments of the review: its own reviewer's view of a pending one, everyone's of a submitted one. */
export async function codeCommentsOf(db: Knex, reviewId: number): Promise<CommentRow[]> {
  return commentsStore(db).ofReview(reviewId, ['code']);
}

/**
 * Resolves or unresolves a code comment's conversation (Gitea's MarkConversation): the pull
 * request's poster, writers and official reviewers may; archived repositories refuse.
 */
export async function markConversation(db: Knex, ctx: RepoContext, issue: IssueRow, comment: CommentRow, doer: UserRow, resolve: boolean): Promise<void> {
  if (!issue.is_pull) throw new BadRequestError('comment does not belong to a pull request');
  if (comment.type !== 'code') throw new BadRequestError('comment is not a review comment');
  const allowed = !ctx.repo.is_archived
    && (issue.poster_id === doer.id || atLeast(ctx.mode, 'write') || await isOfficialReviewer(db, ctx, issue, doer));
  if (!allowed) throw new ForbiddenError('user should have permission to resolve comment');
  if (resolve === (comment.resolve_doer_id !== null)) return;
  await commentsStore(db).setResolver(comment.id, resolve ? doer.id : null);
}

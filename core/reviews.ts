// Pull request reviews (Gitea's routers/api/v1/repo/pull_review.go, services/pull/review.go and
// models/issues/review.go): creating one with code comments, one pending review per reviewer,
// submitting it, deleting, dismissing, and the approval state a branch protection rule asks about.
import { BLOCKED_USER_MESSAGE } from './blocks.js';
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import { atLeast, type RepoContext } from './permissions.js';
import { addComment, blockedByAny } from './comments.js';
import { isOfficialReviewer } from './review-official.js';
import { insertCodeComments, planCodeComment, signedLine, type DiffPoints, type NewCodeComment, type PlannedCodeComment } from './review-comments.js';
import { commentsStore } from '../db/comments.js';
import { reviewsStore, type ReviewRow, type ReviewType } from '../db/reviews.js';
import type { IssueRow } from '../db/issues.js';
import { USER_TYPE, type UserRow } from '../db/users.js';
import { pullHeadRef, resolveRef } from '../git/index.js';

export const REVIEW_EVENTS = ['APPROVED', 'REQUEST_CHANGES', 'COMMENT', 'PENDING', 'REQUEST_REVIEW'] as const;
const VERDICTS: readonly ReviewType[] = ['APPROVED', 'REQUEST_CHANGES'];

export interface ReviewPull {
  issue: IssueRow;
  /** refs/pull/N/head as it stands: what Gitea calls the head commit of a review. */
  headSha: string;
  mergeBase: string;
  hasMerged: boolean;
}

/** The pull request behind an issue, with its current head; 404 for a plain issue. */
export async function loadReviewPull(db: Knex, repoPath: string, issue: IssueRow): Promise<ReviewPull> {
  const pull = issue.is_pull ? await reviewsStore(db).pullOfIssue(issue.id) : undefined;
  if (!pull) throw new NotFoundError('pull request does not exist');
  const headSha = (await resolveRef(repoPath, pullHeadRef(issue.index)).catch(() => null)) ?? pull.head_commit_id;
  return { issue, headSha, mergeBase: pull.merge_base, hasMerged: pull.has_merged };
}

/**
 * The review type an event asks for, with Gitea's checks: an approval or change request of one's
 * own pull request is refused; a change request and a pending review need a body; a comment needs
 * a body or code comments. Any other event (none, PENDING, an unknown word) is a pending review.
 */
export function reviewTypeFor(issue: IssueRow, doer: UserRow, event: string | undefined, body: string | undefined, hasComments: boolean): ReviewType {
  const hasBody = (body ?? '').trim().length > 0;
  const named = event ?? '';
  let type: ReviewType = 'PENDING';
  let needsBody = true;
  if (named === 'APPROVED') {
    if (issue.poster_id === doer.id) throw new UnprocessableError('approve your own pull is not allowed');
    type = 'APPROVED';
    needsBody = false;
  } else if (named === 'REQUEST_CHANGES') {
    if (issue.poster_id === doer.id) throw new UnprocessableError('reject your own pull is not allowed');
    type = 'REQUEST_CHANGES';
  } else if (named === 'COMMENT') {
    type = 'COMMENT';
    needsBody = false;
    if (!hasBody && !hasComments) throw new UnprocessableError(`review event ${named} requires a body or a comment`);
  }
  if (needsBody && !hasBody) throw new UnprocessableError(`review event ${named.slice(0, 40)} requires a body`);
  return type;
}

export interface ReviewSubmission {
  type: ReviewType;
  body: string;
  commitId: string;
}

/**
 * Gitea's SubmitReview: the reviewer's pending review becomes this review (or a new one is made),
 * earlier verdicts stop being official and are dismissed by a new verdict, the reviewer's and
 * (for a verdict) their teams' review requests are answered, and a `review` row goes on the
 * timeline. Runs inside the caller's transaction.
 */
async function submitIn(trx: Knex, ctx: RepoContext, pull: ReviewPull, doer: UserRow, s: ReviewSubmission): Promise<number> {
  const { issue } = pull;
  const store = reviewsStore(trx);
  const verdict = VERDICTS.includes(s.type);
  const stale = verdict && s.commitId !== pull.headSha;
  let official = false;
  if (verdict) {
    await store.unofficializeReviewer(issue.id, doer.id, trx);
    official = await isOfficialReviewer(trx, ctx, issue, doer);
  }
  const pending = await store.pendingOf(issue.id, doer.id, trx);
  let reviewId: number;
  if (!pending) {
    if (s.type !== 'APPROVED' && !s.body.trim()) throw new UnprocessableError('Review content is empty');
    if (s.type !== 'PENDING') await store.removeRequestsOf(issue.id, doer.id, trx);
    if (verdict) await store.dismissEarlierVerdicts(issue.id, doer.id, trx);
    reviewId = await store.insert({ issue_id: issue.id, reviewer_id: doer.id, type: s.type, content: s.body, commit_id: s.commitId, official, stale }, trx);
  } else {
    const codeComments = (await commentsStore(trx).countCodeComments([pending.id], trx)).get(pending.id) ?? 0;
    if (s.type !== 'APPROVED' && codeComments === 0 && !s.body.trim()) throw new UnprocessableError('Review content is empty');
    reviewId = pending.id;
    await store.update(reviewId, { type: s.type, content: s.body, official, commit_id: s.commitId, stale }, trx);
    if (s.type !== 'PENDING') await store.removeRequestsOf(issue.id, doer.id, trx);
  }
  await addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'review', content: s.body, review_id: reviewId });
  if (verdict && ctx.owner.type === USER_TYPE.organization) {
    for (const request of await store.teamRequests(issue.id, trx)) {
      const member = await trx('team_members').where({ team_id: request.reviewer_team_id, user_id: doer.id }).first('team_id');
      if (member) await store.remove(request.id, trx);
    }
  }
  return reviewId;
}

function assertOpenForVerdict(pull: ReviewPull, type: ReviewType): void {
  if (VERDICTS.includes(type) && (pull.issue.is_closed || pull.hasMerged)) throw new UnprocessableError("can't submit review for a closed or merged PR");
}

export interface NewReview {
  event?: string;
  body?: string;
  commit_id?: string;
  comments?: NewCodeComment[];
}

/**
 * POST .../reviews: code comments go into the reviewer's pending review (made if there is none),
 * which is then submitted as the event says. A second pending POST returns the same review.
 */
export async function createReview(db: Knex, repoPath: string, ctx: RepoContext, pull: ReviewPull, doer: UserRow, input: NewReview): Promise<ReviewRow> {
  const comments = input.comments ?? [];
  const type = reviewTypeFor(pull.issue, doer, input.event, input.body, comments.length > 0);
  if (await blockedByAny(db, doer, [ctx.owner.id, pull.issue.poster_id])) throw new ForbiddenError(BLOCKED_USER_MESSAGE);
  assertOpenForVerdict(pull, type);
  const commitId = input.commit_id || pull.headSha;
  const existingPending = await reviewsStore(db).pendingOf(pull.issue.id, doer.id);
  const points: DiffPoints = { repoPath, mergeBase: pull.mergeBase, headSha: pull.headSha, reviewCommit: existingPending?.commit_id || commitId };
  const earlier = existingPending ? await commentsStore(db).ofReview(existingPending.id, ['code']) : [];
  const planned: PlannedCodeComment[] = [];
  for (const c of comments) {
    // A line already commented in this review (earlier, or earlier in this request) shares its commit and hunk.
    const line = signedLine(c);
    const same = earlier.find((e) => e.tree_path === (c.path ?? '') && e.line === line)
      ?? planned.find((p) => p.path === (c.path ?? '') && p.line === line);
    planned.push(await planCodeComment(points, c, same && ('commitSha' in same ? same : { commitSha: same.commit_sha, patch: same.patch })));
  }
  const id = await db.transaction(async (trx) => {
    if (planned.length > 0) {
      const pending = await reviewsStore(trx).pendingOf(pull.issue.id, doer.id, trx);
      const reviewId = pending?.id ?? await reviewsStore(trx).insert({ issue_id: pull.issue.id, reviewer_id: doer.id, type: 'PENDING', content: '', commit_id: commitId, official: false }, trx);
      await insertCodeComments(trx, pull.issue, reviewId, doer, planned);
    }
    return submitIn(trx, ctx, pull, doer, { type, body: input.body ?? '', commitId });
  });
  return (await reviewsStore(db).byId(id))!;
}

/** POST .../reviews/{id}: submits the reviewer's pending review against the current head. */
export async function submitPendingReview(db: Knex, ctx: RepoContext, pull: ReviewPull, review: ReviewRow, doer: UserRow, input: { event?: string; body?: string }): Promise<ReviewRow> {
  if (review.type !== 'PENDING') throw new UnprocessableError('only a pending review can be submitted');
  const hasComments = ((await commentsStore(db).countCodeComments([review.id])).get(review.id) ?? 0) > 0;
  const type = reviewTypeFor(pull.issue, doer, input.event, input.body, hasComments);
  if (type === 'PENDING') throw new UnprocessableError('review stay pending');
  assertOpenForVerdict(pull, type);
  const id = await db.transaction((trx) => submitIn(trx, ctx, pull, doer, { type, body: input.body ?? '', commitId: pull.headSha }));
  return (await reviewsStore(db).byId(id))!;
}

/**
 * A review of this pull request, as its viewer may see it: another reviewer's pending review does
 * not exist for them (site admins see every one).
 */
export async function loadReview(db: Knex, pull: ReviewPull, id: number, viewer: UserRow | null): Promise<ReviewRow> {
  const review = await reviewsStore(db).byId(id);
  if (!review || review.issue_id !== pull.issue.id) throw new NotFoundError('review does not exist');
  if (review.type === 'PENDING' && !(viewer && (viewer.is_admin || viewer.id === review.reviewer_id))) throw new NotFoundError('review does not exist');
  return review;
}

/** Only the reviewer or a site admin deletes a review, with its code comments and timeline rows. */
export async function deleteReview(db: Knex, review: ReviewRow, doer: UserRow): Promise<void> {
  if (!doer.is_admin && doer.id !== review.reviewer_id) throw new ForbiddenError('only the reviewer may delete this review');
  if (review.type === 'REQUEST_REVIEW') throw new UnprocessableError('review request can not be deleted using this method');
  await db.transaction(async (trx) => {
    const comments = commentsStore(trx);
    const rows = await comments.ofReview(review.id, ['code', 'review', 'dismiss_review'], trx);
    await comments.remove(rows.map((r) => r.id), trx);
    await reviewsStore(trx).remove(review.id, trx);
    await comments.recountIssueComments(review.issue_id, trx);
    if (review.official && review.reviewer_id !== null) await restoreLatestOfficial(trx, review.issue_id, review.reviewer_id);
  });
}

/** The reviewer's latest verdict or request becomes official again (Gitea's restoreLatestOfficialReview). */
export async function restoreLatestOfficial(trx: Knex, issueId: number, reviewerId: number): Promise<void> {
  const latest = await reviewsStore(trx).latestVerdictOrRequest(issueId, reviewerId, trx);
  if (latest) await reviewsStore(trx).setOfficial(latest.id, true, trx);
}

/**
 * Dismisses (or restores) a verdict: repository admins only; closed or merged pull requests
 * refuse. `priors` dismisses the reviewer's other verdicts too. A dismissal leaves a
 * `dismiss_review` row with the message.
 */
export async function dismissReview(db: Knex, ctx: RepoContext, pull: ReviewPull, review: ReviewRow, doer: UserRow, dismiss: boolean, opts: { message?: string; priors?: boolean } = {}): Promise<ReviewRow> {
  if (!VERDICTS.includes(review.type)) throw new ForbiddenError("not need to dismiss this review because it's type is not Approve or change request");
  if (pull.issue.is_closed || pull.hasMerged) throw new ForbiddenError("can't dismiss a review associated to a closed or merged PR");
  await db.transaction(async (trx) => {
    const store = reviewsStore(trx);
    if (review.dismissed !== dismiss) await store.update(review.id, { dismissed: dismiss }, trx);
    if (dismiss && opts.priors && review.reviewer_id !== null) await store.dismissVerdictsOf(review.issue_id, review.reviewer_id, trx);
    if (dismiss) await addComment(trx, { issueId: pull.issue.id, posterId: doer.id, type: 'dismiss_review', content: opts.message ?? '', review_id: review.id });
  });
  return (await reviewsStore(db).byId(review.id))!;
}

export function assertRepoAdmin(ctx: RepoContext): void {
  if (!atLeast(ctx.mode, 'admin')) throw new ForbiddenError('Must be repo admin');
}

export interface ProtectionReviewRules {
  required_approvals?: number;
  block_on_rejected_reviews?: boolean;
  dismiss_stale_approvals?: boolean;
  ignore_stale_approvals?: boolean;
  /** When non-empty, only these users' approvals count (approvals_whitelist_username resolved to ids). */
  approvals_whitelist_user_ids?: number[];
}

export interface ApprovalState {
  /** Official, non-dismissed approvals that count towards `required_approvals`. */
  approvals: number;
  required: number;
  /** An official, non-dismissed "request changes" that is the reviewer's latest verdict. */
  rejected: boolean;
  /** approvals >= required (and not rejected when the rule blocks on rejections). */
  satisfied: boolean;
  approvers: number[];
  rejecters: number[];
}

/**
 * What the reviews of a pull request say for a branch protection rule at `headSha`. Each reviewer's
 * latest verdict counts once; approvals given on an older head do not count when the rule says
 * stale approvals are ignored or dismissed.
 */
export async function approvalState(db: Knex, issueId: number, headSha: string, protection: ProtectionReviewRules = {}): Promise<ApprovalState> {
  const latest = new Map<number, ReviewRow>();
  for (const r of await reviewsStore(db).all(issueId)) {
    if (r.reviewer_id === null || !r.official || r.dismissed) continue;
    if (!VERDICTS.includes(r.type)) continue;
    latest.set(r.reviewer_id, r);
  }
  const whitelist = protection.approvals_whitelist_user_ids ?? [];
  const staleDoesNotCount = Boolean(protection.ignore_stale_approvals || protection.dismiss_stale_approvals);
  const approvers: number[] = [];
  const rejecters: number[] = [];
  for (const [reviewer, r] of latest) {
    if (r.type === 'REQUEST_CHANGES') rejecters.push(reviewer);
    else if (!(staleDoesNotCount && (r.stale || r.commit_id !== headSha)) && (whitelist.length === 0 || whitelist.includes(reviewer))) approvers.push(reviewer);
  }
  const required = protection.required_approvals ?? 0;
  const rejected = rejecters.length > 0;
  const satisfied = approvers.length >= required && !(protection.block_on_rejected_reviews && rejected);
  return { approvals: approvers.length, required, rejected, satisfied, approvers, rejecters };
}

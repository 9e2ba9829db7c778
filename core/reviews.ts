// Pull request reviews as far as required approvals need them: verdicts, who is official, and the
// approval state a branch protection rule asks about.
import { isBlocked } from './blocks.js';
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import { atLeast, type RepoContext } from './permissions.js';
import { reviewsStore, type ReviewRow, type ReviewType } from '../db/reviews.js';
import type { IssueRow } from '../db/issues.js';
import type { UserRow } from '../db/users.js';

export const REVIEW_EVENTS = ['APPROVED', 'REQUEST_CHANGES', 'COMMENT', 'PENDING'] as const;

export interface NewReview {
  event?: string;
  body?: string;
  commit_id?: string;
}

/** Records a review. Official when the reviewer may write to the base repository, as Gitea decides without a whitelist. */
export async function submitReview(db: Knex, ctx: RepoContext, issue: IssueRow, doer: UserRow, input: NewReview): Promise<ReviewRow> {
  const pull = await reviewsStore(db).pullOfIssue(issue.id);
  if (!issue.is_pull || !pull) throw new NotFoundError('pull request does not exist');
  const event = (input.event ?? '').toUpperCase() || 'PENDING';
  if (!(REVIEW_EVENTS as readonly string[]).includes(event)) throw new UnprocessableError(`unknown review event: ${event.slice(0, 40)}`);
  const type = event as ReviewType;
  const body = input.body ?? '';
  if ((type === 'REQUEST_CHANGES' || type === 'COMMENT') && !body.trim()) {
    throw new UnprocessableError(`review event ${type} requires a body or comment`);
  }
  if (issue.poster_id === doer.id && type === 'APPROVED') throw new UnprocessableError('approve your own pull is not allowed');
  if (issue.poster_id === doer.id && type === 'REQUEST_CHANGES') throw new UnprocessableError('reject your own pull is not allowed');
  if (await isBlocked(db, ctx.owner.id, doer.id)) throw new ForbiddenError('user is blocked by the repository owner');
  const official = (type === 'APPROVED' || type === 'REQUEST_CHANGES') && atLeast(ctx.mode, 'write');
  const id = await db.transaction(async (trx) => {
    const store = reviewsStore(trx);
    if (official && doer.id) await store.unofficializeVerdicts(issue.id, doer.id, trx);
    return store.insert({
      issue_id: issue.id, reviewer_id: doer.id, type, content: body,
      commit_id: input.commit_id || pull.head_commit_id, official,
    }, trx);
  });
  return (await reviewsStore(db).byId(id))!;
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
    if (r.type !== 'APPROVED' && r.type !== 'REQUEST_CHANGES') continue;
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

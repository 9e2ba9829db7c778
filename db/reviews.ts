// Store for pull request reviews, pending ones and review requests included (Gitea keeps all
// three in its review table: a request is a review of type REQUEST_REVIEW).
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export type ReviewType = 'APPROVED' | 'REQUEST_CHANGES' | 'COMMENT' | 'PENDING' | 'REQUEST_REVIEW';

export interface ReviewRow {
  id: number;
  issue_id: number;
  reviewer_id: number | null;
  /** Set on a request addressed to a team (then reviewer_id is null). */
  reviewer_team_id: number | null;
  type: ReviewType;
  content: string;
  commit_id: string;
  official: boolean;
  stale: boolean;
  dismissed: boolean;
  created_unix: number;
  updated_unix: number;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toReviewRow(raw: Record<string, unknown>): ReviewRow {
  return {
    id: Number(raw.id), issue_id: Number(raw.issue_id),
    reviewer_id: nullableNumber(raw.reviewer_id), reviewer_team_id: nullableNumber(raw.reviewer_team_id),
    type: String(raw.type) as ReviewType, content: String(raw.content ?? ''), commit_id: String(raw.commit_id ?? ''),
    official: Boolean(raw.official), stale: Boolean(raw.stale), dismissed: Boolean(raw.dismissed),
    created_unix: Number(raw.created_unix), updated_unix: Number(raw.updated_unix),
  };
}

// Gitea lists reviews by creation time, then id.
const ORDER = [{ column: 'created_unix' }, { column: 'id' }];
const VERDICTS = ['APPROVED', 'REQUEST_CHANGES'];

export type NewReview = Pick<ReviewRow, 'issue_id' | 'type' | 'content' | 'commit_id' | 'official'>
  & Partial<Pick<ReviewRow, 'reviewer_id' | 'reviewer_team_id' | 'stale'>>;

export function reviewsStore(db: Knex) {
  return {
    async list(issueId: number, page: { limit: number; offset: number }, trx: Knex = db): Promise<ReviewRow[]> {
      return (await trx('reviews').where({ issue_id: issueId }).orderBy(ORDER).limit(page.limit).offset(page.offset)).map(toReviewRow);
    },
    async count(issueId: number, trx: Knex = db): Promise<number> {
      const row = await trx('reviews').where({ issue_id: issueId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async all(issueId: number, trx: Knex = db): Promise<ReviewRow[]> {
      return (await trx('reviews').where({ issue_id: issueId }).orderBy('id')).map(toReviewRow);
    },
    /** Every review of these issues, oldest change first (the requested reviewers of a page of pull requests). */
    async ofIssues(issueIds: number[], trx: Knex = db): Promise<ReviewRow[]> {
      if (issueIds.length === 0) return [];
      return (await trx('reviews').whereIn('issue_id', issueIds).orderBy([{ column: 'updated_unix' }, { column: 'id' }])).map(toReviewRow);
    },
    async byId(id: number, trx: Knex = db): Promise<ReviewRow | undefined> {
      const row = await trx('reviews').where({ id }).first();
      return row ? toReviewRow(row) : undefined;
    },
    async byIds(ids: number[], trx: Knex = db): Promise<ReviewRow[]> {
      if (ids.length === 0) return [];
      return (await trx('reviews').whereIn('id', ids)).map(toReviewRow);
    },
    /** The reviewer's pending review of the issue (Gitea keeps at most one per reviewer). */
    async pendingOf(issueId: number, reviewerId: number, trx: Knex = db): Promise<ReviewRow | undefined> {
      const row = await trx('reviews').where({ issue_id: issueId, reviewer_id: reviewerId, type: 'PENDING' }).orderBy(ORDER).first();
      return row ? toReviewRow(row) : undefined;
    },
    /** The reviewer's latest verdict or request (Gitea's GetReviewByIssueIDAndUserID). */
    async latestVerdictOrRequest(issueId: number, reviewerId: number, trx: Knex = db): Promise<ReviewRow | undefined> {
      const row = await trx('reviews').where({ issue_id: issueId, reviewer_id: reviewerId }).whereIn('type', [...VERDICTS, 'REQUEST_REVIEW']).orderBy('id', 'desc').first();
      return row ? toReviewRow(row) : undefined;
    },
    async teamRequest(issueId: number, teamId: number, trx: Knex = db): Promise<ReviewRow | undefined> {
      const row = await trx('reviews').where({ issue_id: issueId, reviewer_team_id: teamId }).orderBy('id', 'desc').first();
      return row ? toReviewRow(row) : undefined;
    },
    async teamRequests(issueId: number, trx: Knex = db): Promise<ReviewRow[]> {
      return (await trx('reviews').where({ issue_id: issueId, type: 'REQUEST_REVIEW' }).whereNotNull('reviewer_team_id')).map(toReviewRow);
    },
    async insert(fields: NewReview, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('reviews').insert({ stale: false, ...fields, dismissed: false, created_unix: now, updated_unix: now });
      return Number(id);
    },
    async update(id: number, fields: Partial<Pick<ReviewRow, 'type' | 'content' | 'commit_id' | 'official' | 'stale' | 'dismissed'>>, trx: Knex = db): Promise<void> {
      await trx('reviews').where({ id }).update({ ...fields, updated_unix: nowUnix() });
    },
    async remove(id: number, trx: Knex = db): Promise<void> {
      await trx('reviews').where({ id }).delete();
    },
    /** A new verdict or request makes the reviewer's earlier reviews unofficial (Gitea resets them all). */
    async unofficializeReviewer(issueId: number, reviewerId: number, trx: Knex = db): Promise<void> {
      await trx('reviews').where({ issue_id: issueId, reviewer_id: reviewerId }).update({ official: false });
    },
    /** A new verdict dismisses the reviewer's earlier verdicts, as Gitea's CreateReview does. */
    async dismissEarlierVerdicts(issueId: number, reviewerId: number, trx: Knex = db): Promise<void> {
      await trx('reviews').where({ issue_id: issueId, reviewer_id: reviewerId }).whereIn('type', VERDICTS).update({ dismissed: true });
    },
    /** Dismisses every non-dismissed verdict of the reviewer (a dismissal with `priors`). */
    async dismissVerdictsOf(issueId: number, reviewerId: number, trx: Knex = db): Promise<void> {
      await trx('reviews').where({ issue_id: issueId, reviewer_id: reviewerId, dismissed: false }).whereIn('type', VERDICTS).update({ dismissed: true });
    },
    /** A submitted review answers the reviewer's requests. */
    async removeRequestsOf(issueId: number, reviewerId: number, trx: Knex = db): Promise<void> {
      await trx('reviews').where({ issue_id: issueId, reviewer_id: reviewerId, type: 'REQUEST_REVIEW' }).delete();
    },
    async setOfficial(id: number, official: boolean, trx: Knex = db): Promise<void> {
      await trx('reviews').where({ id }).update({ official });
    },
    async pullOfIssue(issueId: number, trx: Knex = db): Promise<{ head_commit_id: string; base_branch: string; merge_base: string; has_merged: boolean } | undefined> {
      const row = await trx('pull_requests').where({ issue_id: issueId }).first('head_commit_id', 'base_branch', 'merge_base', 'has_merged');
      return row ? { head_commit_id: String(row.head_commit_id), base_branch: String(row.base_branch), merge_base: String(row.merge_base ?? ''), has_merged: Boolean(row.has_merged) } : undefined;
    },
  };
}

// Store for pull request reviews.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export type ReviewType = 'APPROVED' | 'REQUEST_CHANGES' | 'COMMENT' | 'PENDING';

export interface ReviewRow {
  id: number;
  issue_id: number;
  reviewer_id: number | null;
  type: ReviewType;
  content: string;
  commit_id: string;
  official: boolean;
  stale: boolean;
  dismissed: boolean;
  created_unix: number;
  updated_unix: number;
}

function toReviewRow(raw: Record<string, unknown>): ReviewRow {
  return {
    id: Number(raw.id), issue_id: Number(raw.issue_id),
    reviewer_id: raw.reviewer_id === null || raw.reviewer_id === undefined ? null : Number(raw.reviewer_id),
    type: String(raw.type) as ReviewType, content: String(raw.content ?? ''), commit_id: String(raw.commit_id ?? ''),
    official: Boolean(raw.official), stale: Boolean(raw.stale), dismissed: Boolean(raw.dismissed),
    created_unix: Number(raw.created_unix), updated_unix: Number(raw.updated_unix),
  };
}

export function reviewsStore(db: Knex) {
  return {
    async list(issueId: number, page: { limit: number; offset: number }, trx: Knex = db): Promise<ReviewRow[]> {
      return (await trx('reviews').where({ issue_id: issueId }).orderBy('id').limit(page.limit).offset(page.offset)).map(toReviewRow);
    },
    async count(issueId: number, trx: Knex = db): Promise<number> {
      const row = await trx('reviews').where({ issue_id: issueId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async all(issueId: number, trx: Knex = db): Promise<ReviewRow[]> {
      return (await trx('reviews').where({ issue_id: issueId }).orderBy('id')).map(toReviewRow);
    },
    async byId(id: number, trx: Knex = db): Promise<ReviewRow | undefined> {
      const row = await trx('reviews').where({ id }).first();
      return row ? toReviewRow(row) : undefined;
    },
    async insert(fields: Pick<ReviewRow, 'issue_id' | 'reviewer_id' | 'type' | 'content' | 'commit_id' | 'official'>, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('reviews').insert({ ...fields, stale: false, dismissed: false, created_unix: now, updated_unix: now });
      return Number(id);
    },
    /** A reviewer's newer verdict replaces their older one: only the latest stays official. */
    async unofficializeVerdicts(issueId: number, reviewerId: number, trx: Knex = db): Promise<void> {
      await trx('reviews').where({ issue_id: issueId, reviewer_id: reviewerId, official: true })
        .whereIn('type', ['APPROVED', 'REQUEST_CHANGES']).update({ official: false });
    },
    async pullOfIssue(issueId: number, trx: Knex = db): Promise<{ head_commit_id: string; base_branch: string; has_merged: boolean } | undefined> {
      const row = await trx('pull_requests').where({ issue_id: issueId }).first('head_commit_id', 'base_branch', 'has_merged');
      return row ? { head_commit_id: String(row.head_commit_id), base_branch: String(row.base_branch), has_merged: Boolean(row.has_merged) } : undefined;
    },
  };
}

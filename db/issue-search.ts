// Issues and pull requests across repositories (Gitea's issue indexer search with the database
// indexer): the repositories are given as a query of repository ids, the filters as Gitea names
// them; newest first, counted and paged in the database.
import type { Knex } from 'knex';
import { likePattern, toIssueRow, type IssueRow } from './issues.js';

export interface IssueSearch {
  /** A query that selects the ids of the repositories to search. */
  repoIds: Knex.QueryBuilder;
  isPull?: boolean | undefined;
  isClosed?: boolean | undefined;
  /** Issues with at least one of these labels (none given: no label filter). */
  anyLabelIds?: number[] | undefined;
  milestoneIds?: number[] | undefined;
  keyword?: string | undefined;
  posterId?: number | undefined;
  assigneeId?: number | undefined;
  mentionedId?: number | undefined;
  reviewRequestedId?: number | undefined;
  reviewedId?: number | undefined;
  updatedAfterUnix?: number | undefined;
  updatedBeforeUnix?: number | undefined;
}

function conditions(db: Knex, s: IssueSearch): Knex.QueryBuilder {
  const q = db('issues as i').whereIn('i.repo_id', s.repoIds);
  if (s.isPull !== undefined) q.andWhere('i.is_pull', s.isPull);
  if (s.isClosed !== undefined) q.andWhere('i.is_closed', s.isClosed);
  if (s.anyLabelIds && s.anyLabelIds.length > 0) q.whereIn('i.id', db('issue_labels').whereIn('label_id', s.anyLabelIds).select('issue_id'));
  if (s.milestoneIds && s.milestoneIds.length > 0) q.whereIn('i.milestone_id', s.milestoneIds);
  if (s.keyword) {
    const pattern = likePattern(s.keyword);
    q.where((w) => w.whereRaw("i.title LIKE ? ESCAPE '!'", [pattern]).orWhereRaw("i.content LIKE ? ESCAPE '!'", [pattern])
      .orWhereIn('i.id', db('comments').whereRaw("content LIKE ? ESCAPE '!'", [pattern]).select('issue_id')));
  }
  if (s.posterId !== undefined) q.andWhere('i.poster_id', s.posterId);
  if (s.assigneeId !== undefined) q.whereIn('i.id', db('issue_assignees').where('assignee_id', s.assigneeId).select('issue_id'));
  if (s.mentionedId !== undefined) q.whereIn('i.id', db('issue_users').where({ user_id: s.mentionedId, is_mentioned: true }).select('issue_id'));
  if (s.reviewRequestedId !== undefined) q.whereIn('i.id', db('reviews').where({ reviewer_id: s.reviewRequestedId, type: 'REQUEST_REVIEW' }).select('issue_id'));
  if (s.reviewedId !== undefined) q.whereIn('i.id', db('reviews').where('reviewer_id', s.reviewedId).whereIn('type', ['APPROVED', 'REQUEST_CHANGES', 'COMMENT']).select('issue_id'));
  if (s.updatedAfterUnix !== undefined) q.andWhere('i.updated_unix', '>=', s.updatedAfterUnix);
  if (s.updatedBeforeUnix !== undefined) q.andWhere('i.updated_unix', '<=', s.updatedBeforeUnix);
  return q;
}

export async function searchIssues(db: Knex, s: IssueSearch, page: { limit: number; offset: number }): Promise<{ issues: IssueRow[]; total: number }> {
  const [count, rows] = await Promise.all([
    conditions(db, s).count({ n: 'i.id' }).first(),
    conditions(db, s).select('i.*').orderBy([{ column: 'i.created_unix', order: 'desc' }, { column: 'i.id', order: 'desc' }]).limit(page.limit).offset(page.offset),
  ]);
  return { issues: (rows as Array<Record<string, unknown>>).map((r) => toIssueRow(r)!), total: Number(count?.n ?? 0) };
}

/** Ids of labels with any of these names (repository and organization labels alike). */
export async function labelIdsNamed(db: Knex, names: string[]): Promise<number[]> {
  if (names.length === 0) return [];
  return (await db('labels').whereIn('name', names).select('id')).map((r: { id: unknown }) => Number(r.id));
}

/** Ids of milestones with any of these names. */
export async function milestoneIdsNamed(db: Knex, names: string[]): Promise<number[]> {
  if (names.length === 0) return [];
  return (await db('milestones').whereIn('name', names).select('id')).map((r: { id: unknown }) => Number(r.id));
}

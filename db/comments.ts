// Store for comment rows: people's comments, the events issues record (close, merge, label...),
// reviews' own rows and their code comments. One table, as Gitea keeps them.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export interface CommentRow {
  id: number;
  issue_id: number;
  poster_id: number | null;
  type: string;
  content: string;
  created_unix: number;
  updated_unix: number;
  review_id: number | null;
  tree_path: string;
  /** The commented line: negative on the old side of the diff, as Gitea stores it. */
  line: number;
  patch: string;
  commit_sha: string;
  resolve_doer_id: number | null;
  invalidated: boolean;
  label_id: number | null;
  assignee_id: number | null;
  assignee_team_id: number | null;
  removed_assignee: boolean;
  content_version: number;
}

export type NewComment = Pick<CommentRow, 'issue_id' | 'poster_id' | 'type' | 'content'>
  & Partial<Pick<CommentRow, 'review_id' | 'tree_path' | 'line' | 'patch' | 'commit_sha' | 'invalidated' | 'label_id' | 'assignee_id' | 'assignee_team_id' | 'removed_assignee'>>;

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** SQLite hands booleans back as 0/1 and MySQL bigints may arrive as strings: normalise once. */
export function toCommentRow(raw: Record<string, unknown>): CommentRow {
  return {
    id: Number(raw.id), issue_id: Number(raw.issue_id), poster_id: nullableNumber(raw.poster_id), type: String(raw.type),
    content: String(raw.content), created_unix: Number(raw.created_unix), updated_unix: Number(raw.updated_unix),
    review_id: nullableNumber(raw.review_id), tree_path: String(raw.tree_path ?? ''), line: Number(raw.line ?? 0),
    patch: String(raw.patch ?? ''), commit_sha: String(raw.commit_sha ?? ''), resolve_doer_id: nullableNumber(raw.resolve_doer_id),
    invalidated: Boolean(raw.invalidated), label_id: nullableNumber(raw.label_id), assignee_id: nullableNumber(raw.assignee_id),
    assignee_team_id: nullableNumber(raw.assignee_team_id), removed_assignee: Boolean(raw.removed_assignee),
    content_version: Number(raw.content_version ?? 0),
  };
}

/** Gitea's `since`/`before` on comments: bounds on when a row was last updated, both inclusive. */
export interface CommentRange {
  sinceUnix?: number;
  beforeUnix?: number;
}

// Gitea orders comments by creation, then id (rows made within one second keep their order).
export const COMMENT_ORDER = [{ column: 'comments.created_unix' }, { column: 'comments.id' }];

/** The comment types Gitea counts in an issue's `comments` number (ConversationCountedCommentType). */
export const CONVERSATION_TYPES = ['comment', 'review'];

function inRange(q: Knex.QueryBuilder, range: CommentRange): Knex.QueryBuilder {
  if (range.sinceUnix !== undefined) q.andWhere('comments.updated_unix', '>=', range.sinceUnix);
  if (range.beforeUnix !== undefined) q.andWhere('comments.updated_unix', '<=', range.beforeUnix);
  return q;
}

export interface RepoCommentFilter extends CommentRange {
  repoId: number;
  type: string;
  /** Only the comments of pull requests (true) or of issues (false); both when undefined. */
  isPull?: boolean;
}

function repoComments(trx: Knex, f: RepoCommentFilter): Knex.QueryBuilder {
  const q = trx('comments').join('issues', 'issues.id', 'comments.issue_id')
    .where('issues.repo_id', f.repoId).andWhere('comments.type', f.type);
  if (f.isPull !== undefined) q.andWhere('issues.is_pull', f.isPull);
  return inRange(q, f);
}

export function commentsStore(db: Knex) {
  return {
    async insert(fields: NewComment, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('comments').insert({ ...fields, created_unix: now, updated_unix: now });
      return Number(id);
    },
    async byId(id: number, trx: Knex = db): Promise<CommentRow | undefined> {
      const r = await trx('comments').where({ id }).first();
      return r ? toCommentRow(r) : undefined;
    },
    async byIds(ids: number[], trx: Knex = db): Promise<CommentRow[]> {
      if (ids.length === 0) return [];
      return (await trx('comments').whereIn('id', ids)).map(toCommentRow);
    },
    /** A comment of any issue of the repository; undefined when the id names nothing there. */
    async byIdInRepo(repoId: number, id: number, trx: Knex = db): Promise<CommentRow | undefined> {
      const r = await trx('comments').join('issues', 'issues.id', 'comments.issue_id')
        .where({ 'comments.id': id, 'issues.repo_id': repoId }).first('comments.*');
      return r ? toCommentRow(r) : undefined;
    },
    async listInRepo(f: RepoCommentFilter, page: { limit: number; offset: number }, trx: Knex = db): Promise<CommentRow[]> {
      const rows = await repoComments(trx, f).select('comments.*').orderBy(COMMENT_ORDER).limit(page.limit).offset(page.offset);
      return rows.map(toCommentRow);
    },
    async countInRepo(f: RepoCommentFilter, trx: Knex = db): Promise<number> {
      const row = await repoComments(trx, f).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /** Changes the body only when nobody changed it since `version` was read; false when they did. */
    async updateContent(id: number, version: number, content: string, trx: Knex = db): Promise<boolean> {
      const n = await trx('comments').where({ id, content_version: version })
        .update({ content, content_version: version + 1, updated_unix: nowUnix() });
      return Number(n) > 0;
    },
    async remove(ids: number[], trx: Knex = db): Promise<void> {
      if (ids.length === 0) return;
      await trx('reactions').whereIn('comment_id', ids).delete();
      await trx('comments').whereIn('id', ids).delete();
    },
    /** Rows of a review of the given types (its `review` row, its `code` comments, its dismissals). */
    async ofReview(reviewId: number, types: string[], trx: Knex = db): Promise<CommentRow[]> {
      return (await trx('comments').where({ review_id: reviewId }).whereIn('type', types).orderBy(COMMENT_ORDER)).map(toCommentRow);
    },
    /** Code comments per review, for a page of reviews. */
    async countCodeComments(reviewIds: number[], trx: Knex = db): Promise<Map<number, number>> {
      const out = new Map<number, number>();
      if (reviewIds.length === 0) return out;
      const rows = await trx('comments').whereIn('review_id', reviewIds).andWhere('type', 'code').groupBy('review_id').select('review_id').count({ n: '*' });
      for (const r of rows as Array<{ review_id: unknown; n: unknown }>) out.set(Number(r.review_id), Number(r.n));
      return out;
    },
    /** The id of each review's own `review` row (its html_url anchor). */
    async reviewRowIds(reviewIds: number[], trx: Knex = db): Promise<Map<number, number>> {
      const out = new Map<number, number>();
      if (reviewIds.length === 0) return out;
      const rows = await trx('comments').whereIn('review_id', reviewIds).andWhere('type', 'review').groupBy('review_id').select('review_id').min({ id: 'id' });
      for (const r of rows as Array<{ review_id: unknown; id: unknown }>) out.set(Number(r.review_id), Number(r.id));
      return out;
    },
    async setResolver(id: number, userId: number | null, trx: Knex = db): Promise<void> {
      await trx('comments').where({ id }).update({ resolve_doer_id: userId });
    },
    /** Recounts the issue's conversation (Gitea's UpdateIssueNumComments). */
    async recountIssueComments(issueId: number, trx: Knex = db): Promise<void> {
      const row = await trx('comments').where({ issue_id: issueId }).whereIn('type', CONVERSATION_TYPES).count({ n: '*' }).first();
      await trx('issues').where({ id: issueId }).update({ num_comments: Number(row?.n ?? 0) });
    },
  };
}

// Store for issues (pull requests are issues too), their labels, assignees, comments and dependencies.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';
import { commentsStore, COMMENT_ORDER, toCommentRow, type CommentRange, type CommentRow, type NewComment } from './comments.js';

export type { CommentRange, CommentRow } from './comments.js';

export interface IssueRow {
  id: number;
  repo_id: number;
  index: number;
  poster_id: number | null;
  title: string;
  content: string;
  content_version: number;
  is_pull: boolean;
  is_closed: boolean;
  is_locked: boolean;
  milestone_id: number | null;
  deadline_unix: number | null;
  num_comments: number;
  priority: number;
  created_unix: number;
  updated_unix: number;
  closed_unix: number | null;
  /** The branch or tag the issue is about (Gitea's issue.ref); '' when none. */
  ref: string;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** SQLite hands booleans back as 0/1 and MySQL bigints may arrive as strings: normalise once. */
export function toIssueRow(raw: Record<string, unknown> | undefined): IssueRow | undefined {
  if (!raw) return undefined;
  const row: Record<string, unknown> = { ...raw };
  for (const c of ['id', 'repo_id', 'index', 'content_version', 'num_comments', 'priority', 'created_unix', 'updated_unix']) row[c] = Number(row[c]);
  for (const c of ['is_pull', 'is_closed', 'is_locked']) row[c] = Boolean(row[c]);
  for (const c of ['poster_id', 'milestone_id', 'deadline_unix', 'closed_unix']) row[c] = nullableNumber(row[c]);
  row.ref = String(row.ref ?? '');
  return row as unknown as IssueRow;
}

function commentsOf(trx: Knex, issueId: number, range: CommentRange): Knex.QueryBuilder {
  const q = trx('comments').where({ issue_id: issueId });
  if (range.sinceUnix !== undefined) q.andWhere('updated_unix', '>=', range.sinceUnix);
  if (range.beforeUnix !== undefined) q.andWhere('updated_unix', '<=', range.beforeUnix);
  return q;
}

export interface IssueFilter {
  repoId: number;
  isPull?: boolean;
  isClosed?: boolean;
  labelIds?: number[];
  milestoneIds?: number[];
  posterId?: number;
  assigneeId?: number;
  keyword?: string;
  sinceUnix?: number;
  beforeUnix?: number;
}

/** `%text%` with LIKE's wildcards taken literally; '!' escapes because MariaDB and SQLite agree on it. */
export function likePattern(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

function applyFilter(q: Knex.QueryBuilder, f: IssueFilter): Knex.QueryBuilder {
  q.where('issues.repo_id', f.repoId);
  if (f.isPull !== undefined) q.andWhere('issues.is_pull', f.isPull);
  if (f.isClosed !== undefined) q.andWhere('issues.is_closed', f.isClosed);
  if (f.posterId !== undefined) q.andWhere('issues.poster_id', f.posterId);
  if (f.milestoneIds) q.whereIn('issues.milestone_id', f.milestoneIds.length ? f.milestoneIds : [-1]);
  if (f.keyword) q.andWhereRaw("issues.title LIKE ? ESCAPE '!'", [likePattern(f.keyword)]);
  if (f.sinceUnix !== undefined) q.andWhere('issues.updated_unix', '>=', f.sinceUnix);
  if (f.beforeUnix !== undefined) q.andWhere('issues.updated_unix', '<=', f.beforeUnix);
  if (f.assigneeId !== undefined) {
    q.whereExists((s) => s.select(1).from('issue_assignees').whereRaw('issue_assignees.issue_id = issues.id').andWhere('issue_assignees.assignee_id', f.assigneeId!));
  }
  // Every requested label must be on the issue.
  for (const labelId of f.labelIds ?? []) {
    q.whereExists((s) => s.select(1).from('issue_labels').whereRaw('issue_labels.issue_id = issues.id').andWhere('issue_labels.label_id', labelId));
  }
  return q;
}

export function issuesStore(db: Knex) {
  return {
    async byId(id: number, trx: Knex = db): Promise<IssueRow | undefined> {
      return toIssueRow(await trx('issues').where({ id }).first());
    },
    async byIds(ids: number[], trx: Knex = db): Promise<IssueRow[]> {
      if (ids.length === 0) return [];
      return (await trx('issues').whereIn('id', ids)).map((r: Record<string, unknown>) => toIssueRow(r)!);
    },
    async byIndex(repoId: number, index: number, trx: Knex = db): Promise<IssueRow | undefined> {
      return toIssueRow(await trx('issues').where({ repo_id: repoId, index }).first());
    },
    async insert(fields: Omit<IssueRow, 'id' | 'content_version' | 'num_comments' | 'priority' | 'is_locked' | 'created_unix' | 'updated_unix' | 'ref'> & { ref?: string }, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('issues').insert({ ...fields, created_unix: now, updated_unix: now });
      return Number(id);
    },
    async update(id: number, fields: Partial<Omit<IssueRow, 'id'>>, trx: Knex = db): Promise<void> {
      await trx('issues').where({ id }).update({ ...fields, updated_unix: nowUnix() });
    },
    /** Changes the body only when nobody changed it since `version` was read; false when they did. */
    async updateContent(id: number, version: number, content: string, trx: Knex = db): Promise<boolean> {
      const n = await trx('issues').where({ id, content_version: version })
        .update({ content, content_version: version + 1, updated_unix: nowUnix() });
      return Number(n) > 0;
    },
    async list(filter: IssueFilter, page: { limit: number; offset: number }, trx: Knex = db): Promise<IssueRow[]> {
      const rows = await applyFilter(trx('issues').select('issues.*'), filter)
        .orderBy([{ column: 'issues.created_unix', order: 'desc' }, { column: 'issues.id', order: 'desc' }])
        .limit(page.limit).offset(page.offset);
      return rows.map((r: Record<string, unknown>) => toIssueRow(r)!);
    },
    async count(filter: IssueFilter, trx: Knex = db): Promise<number> {
      const row = await applyFilter(trx('issues').count({ n: '*' }), filter).first();
      return Number(row?.n ?? 0);
    },
    async labelIdsOf(issueIds: number[], trx: Knex = db): Promise<Map<number, number[]>> {
      const out = new Map<number, number[]>();
      if (issueIds.length === 0) return out;
      for (const r of await trx('issue_labels').whereIn('issue_id', issueIds).orderBy('label_id')) {
        const list = out.get(Number(r.issue_id)) ?? [];
        list.push(Number(r.label_id));
        out.set(Number(r.issue_id), list);
      }
      return out;
    },
    async replaceLabels(issueId: number, labelIds: number[], trx: Knex = db): Promise<void> {
      await trx('issue_labels').where({ issue_id: issueId }).delete();
      if (labelIds.length) await trx('issue_labels').insert([...new Set(labelIds)].map((label_id) => ({ issue_id: issueId, label_id })));
    },
    async assigneeIdsOf(issueIds: number[], trx: Knex = db): Promise<Map<number, number[]>> {
      const out = new Map<number, number[]>();
      if (issueIds.length === 0) return out;
      for (const r of await trx('issue_assignees').whereIn('issue_id', issueIds).orderBy('assignee_id')) {
        const list = out.get(Number(r.issue_id)) ?? [];
        list.push(Number(r.assignee_id));
        out.set(Number(r.issue_id), list);
      }
      return out;
    },
    async replaceAssignees(issueId: number, userIds: number[], trx: Knex = db): Promise<void> {
      await trx('issue_assignees').where({ issue_id: issueId }).delete();
      if (userIds.length) await trx('issue_assignees').insert([...new Set(userIds)].map((assignee_id) => ({ issue_id: issueId, assignee_id })));
    },
    /** A comment row (db/comments.ts keeps them; here for the merge's own record). */
    async insertComment(fields: NewComment, trx: Knex = db): Promise<number> {
      return commentsStore(trx).insert(fields, trx);
    },
    /** The issue's conversation: rows of type `comment` only (events are the timeline's). */
    async comments(issueId: number, range: CommentRange, trx: Knex = db): Promise<CommentRow[]> {
      return (await commentsOf(trx, issueId, range).andWhere('type', 'comment').orderBy(COMMENT_ORDER)).map(toCommentRow);
    },
    /** One page of the issue's comment rows, oldest first (the timeline: code comments are the reviews'). */
    async commentPage(issueId: number, range: CommentRange, page: { limit: number; offset: number }, trx: Knex = db): Promise<CommentRow[]> {
      return (await commentsOf(trx, issueId, range).whereNot('type', 'code').orderBy(COMMENT_ORDER).limit(page.limit).offset(page.offset)).map(toCommentRow);
    },
    async countComments(issueId: number, range: CommentRange, trx: Knex = db): Promise<number> {
      const row = await commentsOf(trx, issueId, range).whereNot('type', 'code').count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async dependencyIds(issueId: number, trx: Knex = db): Promise<number[]> {
      const rows = await trx('issue_dependencies').where({ issue_id: issueId }).orderBy('dependency_id');
      return rows.map((r: { dependency_id: unknown }) => Number(r.dependency_id));
    },
    async hasDependency(issueId: number, dependencyId: number, trx: Knex = db): Promise<boolean> {
      return Boolean(await trx('issue_dependencies').where({ issue_id: issueId, dependency_id: dependencyId }).first('issue_id'));
    },
    async addDependency(issueId: number, dependencyId: number, trx: Knex = db): Promise<void> {
      await trx('issue_dependencies').insert({ issue_id: issueId, dependency_id: dependencyId, created_unix: nowUnix() });
    },
    async removeDependency(issueId: number, dependencyId: number, trx: Knex = db): Promise<boolean> {
      return Number(await trx('issue_dependencies').where({ issue_id: issueId, dependency_id: dependencyId }).delete()) > 0;
    },
    /** Open issues that block `issueId`. */
    async openBlockers(issueId: number, trx: Knex = db): Promise<IssueRow[]> {
      const rows = await trx('issues').join('issue_dependencies as d', 'd.dependency_id', 'issues.id')
        .where('d.issue_id', issueId).andWhere('issues.is_closed', false).select('issues.*').orderBy('issues.id');
      return rows.map((r: Record<string, unknown>) => toIssueRow(r)!);
    },
  };
}

export type IssuesStore = ReturnType<typeof issuesStore>;

// Listing a repository's pull requests (GET /repos/{owner}/{repo}/pulls): filters and the six sort
// orders of Gitea's pull request list, answered from the issue list indexes
// (issues_list_created / _updated / _comments on repo_id, is_pull, is_closed, <sort column>).
import type { Knex } from 'knex';
import type { PullRecordExtras } from '../../db/repo-lookups.js';
import { BadRequestError, UnprocessableError } from '../errors.js';
import { toIssueRow, type IssueRow } from '../../db/issues.js';
import { pullsStore, type PullRow } from '../../db/pulls.js';
import { usersStore } from '../../db/users.js';

export const PULL_SORTS = ['oldest', 'recentupdate', 'leastupdate', 'mostcomment', 'leastcomment', 'priority'] as const;
export type PullSort = (typeof PULL_SORTS)[number];
export type PullStateFilter = 'open' | 'closed' | 'all';

export interface PullListFilter {
  repoId: number;
  state: PullStateFilter;
  sort?: string;
  milestoneId?: number;
  labelIds?: number[];
  posterId?: number;
}

export interface PullListItem {
  issue: IssueRow;
  pull: PullRow;
  /** Labels, assignees and queue entry when they were read with the rows (a single record's one round trip). */
  extras?: PullRecordExtras;
}

/**
 * `labels` values must be integers. Gitea answers 500 for anything else; a client's typo is a 422
 * with the offending value here.
 */
export function parseLabelIds(values: string[] | undefined): number[] | undefined {
  if (!values || values.length === 0) return undefined;
  const out: number[] = [];
  for (const raw of values) {
    for (const part of raw.split(',')) {
      const v = part.trim();
      if (v === '') continue;
      if (!/^-?\d{1,15}$/.test(v)) throw new UnprocessableError(`labels: '${v.slice(0, 40)}' is not an integer label id`);
      out.push(Number(v));
    }
  }
  return out.length ? out : undefined;
}

/** The `poster` filter is a user name; an unknown one is the client's mistake (400, as Gitea). */
export async function posterIdOf(db: Knex, name: string | undefined): Promise<number | undefined> {
  if (!name) return undefined;
  const user = await usersStore(db).byName(name);
  if (!user) throw new BadRequestError(`user does not exist [name: ${name}]`);
  return user.id;
}

/**
 * Gitea's sortIssuesSession orders for pull request lists. Ties are broken by id (ids grow with
 * creation time, so this is Gitea's created_unix, id tie-break) so that the single-direction orders
 * walk an index (repo_id, is_pull, is_closed, column, id) instead of sorting the repository's rows.
 */
function orderFor(sort: string | undefined): Array<{ column: string; order: 'asc' | 'desc' }> {
  const d = (column: string) => ({ column: `issues.${column}`, order: 'desc' as const });
  const a = (column: string) => ({ column: `issues.${column}`, order: 'asc' as const });
  switch (sort) {
    case 'oldest': return [a('created_unix'), a('id')];
    case 'recentupdate': return [d('updated_unix'), d('id')];
    case 'leastupdate': return [a('updated_unix'), a('id')];
    case 'mostcomment': return [d('num_comments'), d('id')];
    case 'leastcomment': return [a('num_comments'), d('id')];
    case 'priority': return [d('priority'), d('id')];
    default: return [d('created_unix'), d('id')];
  }
}

export function filteredPullIssues(db: Knex, f: PullListFilter): Knex.QueryBuilder {
  const q = db('issues').where('issues.repo_id', f.repoId).andWhere('issues.is_pull', true);
  if (f.state !== 'all') q.andWhere('issues.is_closed', f.state === 'closed');
  if (f.milestoneId) q.andWhere('issues.milestone_id', f.milestoneId);
  if (f.posterId !== undefined) q.andWhere('issues.poster_id', f.posterId);
  // Every requested label must be on the pull request (Gitea's label filter is an AND).
  for (const labelId of f.labelIds ?? []) {
    q.whereExists((s) => s.select(1).from('issue_labels').whereRaw('issue_labels.issue_id = issues.id').andWhere('issue_labels.label_id', labelId));
  }
  return q;
}

/** The SQL of the page query, for the benchmark's EXPLAIN. */
export function pullPageQuery(db: Knex, f: PullListFilter, page: { limit: number; offset: number }): Knex.QueryBuilder {
  return filteredPullIssues(db, f).select('issues.*').orderBy(orderFor(f.sort)).limit(page.limit).offset(page.offset);
}

export async function listPulls(db: Knex, f: PullListFilter, page: { limit: number; offset: number }): Promise<{ items: PullListItem[]; total: number }> {
  const [rows, countRow] = await Promise.all([
    pullPageQuery(db, f, page),
    filteredPullIssues(db, f).count({ n: '*' }).first(),
  ]);
  const issues = (rows as Array<Record<string, unknown>>).map((r) => toIssueRow(r)!);
  const pulls = await pullsStore(db).byIssueIds(issues.map((i) => i.id));
  const items: PullListItem[] = [];
  for (const issue of issues) {
    const pull = pulls.get(issue.id);
    if (pull) items.push({ issue, pull });
  }
  return { items, total: Number((countRow as { n?: unknown } | undefined)?.n ?? 0) };
}

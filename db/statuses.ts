// Store for commit statuses: one row per report, numbered per (repository, sha).
import type { Knex } from 'knex';
import { nowUnix } from './time.js';
import { selectFirstRow } from './hot-query.js';

const KNOWS_COMMIT_SQL = 'SELECT (EXISTS (SELECT 1 FROM pull_requests WHERE base_repo_id = ? AND head_commit_id = ?)'
  + ' OR EXISTS (SELECT 1 FROM commit_statuses WHERE repo_id = ? AND sha = ?)) AS known';

export type CommitStatusState = 'pending' | 'success' | 'error' | 'failure' | 'warning' | 'skipped';

export interface StatusRow {
  id: number;
  repo_id: number;
  sha: string;
  index: number;
  state: CommitStatusState;
  target_url: string;
  description: string;
  context: string;
  creator_id: number | null;
  created_unix: number;
}

function toStatusRow(raw: Record<string, unknown>): StatusRow {
  return {
    id: Number(raw.id), repo_id: Number(raw.repo_id), sha: String(raw.sha), index: Number(raw.index),
    state: String(raw.state) as CommitStatusState, target_url: String(raw.target_url ?? ''),
    description: String(raw.description ?? ''), context: String(raw.context ?? ''),
    creator_id: raw.creator_id === null || raw.creator_id === undefined ? null : Number(raw.creator_id),
    created_unix: Number(raw.created_unix),
  };
}

export type StatusSort = 'oldest' | 'recentupdate' | 'leastupdate' | 'leastindex' | 'highestindex';

// Gitea's orders (models/git/commit_status.go ToOrders), its inversions included: `leastindex`
// lists the highest index first and `highestindex` the lowest. Rows of one second keep the order
// of their ids, as MariaDB hands them to Gitea. There is no separate update time: a status is
// never changed after it is made.
const NEWEST_FIRST = [{ column: 'created_unix', order: 'desc' as const }, { column: 'id', order: 'asc' as const }];
const OLDEST_FIRST = [{ column: 'created_unix', order: 'asc' as const }, { column: 'id', order: 'asc' as const }];
const ORDER: Record<StatusSort | 'default', Array<{ column: string; order: 'asc' | 'desc' }>> = {
  oldest: OLDEST_FIRST,
  recentupdate: NEWEST_FIRST,
  leastupdate: OLDEST_FIRST,
  leastindex: [{ column: 'index', order: 'desc' }],
  highestindex: [{ column: 'index', order: 'asc' }],
  default: NEWEST_FIRST,
};

/** The states Gitea filters by; any other `state` value lists every status. */
const FILTERABLE_STATES: ReadonlySet<string> = new Set(['pending', 'success', 'error', 'failure', 'warning']);

function sortOf(sort: string | undefined): StatusSort | 'default' {
  return sort !== undefined && Object.hasOwn(ORDER, sort) ? (sort as StatusSort) : 'default';
}

export function statusesStore(db: Knex) {
  return {
    async byId(id: number, trx: Knex = db): Promise<StatusRow | undefined> {
      const raw = await trx('commit_statuses').where({ id }).first();
      return raw ? toStatusRow(raw) : undefined;
    },
    /**
     * Inserts with the next per-sha index. Two concurrent reporters may pick the same index; the
     * unique key refuses the second and the caller retries.
     */
    async insert(fields: Omit<StatusRow, 'id' | 'index' | 'created_unix'>, trx: Knex = db): Promise<StatusRow> {
      const row = await trx('commit_statuses').where({ repo_id: fields.repo_id, sha: fields.sha }).max({ m: 'index' }).first();
      const index = Number(row?.m ?? 0) + 1;
      const record = { ...fields, index, created_unix: nowUnix() };
      const [id] = await trx('commit_statuses').insert(record);
      return { ...record, id: Number(id) };
    },
    async list(repoId: number, sha: string, opts: { state?: string; sort?: string; limit: number; offset: number }, trx: Knex = db): Promise<StatusRow[]> {
      const q = trx('commit_statuses').where({ repo_id: repoId, sha });
      if (opts.state && FILTERABLE_STATES.has(opts.state)) q.andWhere('state', opts.state);
      const rows = await q.orderBy(ORDER[sortOf(opts.sort)]).limit(opts.limit).offset(opts.offset);
      return rows.map(toStatusRow);
    },
    async count(repoId: number, sha: string, state: string | undefined, trx: Knex = db): Promise<number> {
      const q = trx('commit_statuses').where({ repo_id: repoId, sha });
      if (state && FILTERABLE_STATES.has(state)) q.andWhere('state', state);
      const row = await q.count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /**
     * The newest report of each context, lowest index first. With a page, as Gitea pages them: the
     * contexts reported most recently first, then the page's rows in index order.
     */
    async latestByContext(repoId: number, sha: string, page?: { limit: number; offset: number }, trx: Knex = db): Promise<StatusRow[]> {
      const latest = trx('commit_statuses as m').where({ 'm.repo_id': repoId, 'm.sha': sha }).groupBy('m.context').max({ i: 'm.index' });
      const indexes = page
        ? (await latest.orderBy('i', 'desc').limit(page.limit).offset(page.offset)).map((r: { i?: unknown }) => Number(r.i))
        : null;
      if (indexes?.length === 0) return [];
      const rows = await trx('commit_statuses as s')
        .where({ 's.repo_id': repoId, 's.sha': sha })
        .whereIn('s.index', indexes ?? trx('commit_statuses as m').where({ 'm.repo_id': repoId, 'm.sha': sha }).groupBy('m.context').max('m.index'))
        .orderBy('s.index')
        .select('s.*');
      return rows.map(toStatusRow);
    },
    async countContexts(repoId: number, sha: string, trx: Knex = db): Promise<number> {
      const row = await trx('commit_statuses').where({ repo_id: repoId, sha }).countDistinct({ n: 'context' }).first();
      return Number(row?.n ?? 0);
    },
    /**
     * Whether the database already knows `sha` as a commit of the repository: the head of a pull
     * request into it (refs/pull/N/head keeps it there; the row follows the reference), or a
     * commit statuses were reported on before.
     */
    async knowsCommit(repoId: number, sha: string): Promise<boolean> {
      // One statement on the driver (db/hot-query.ts): CI posts a status per check per commit.
      const row = await selectFirstRow(db, KNOWS_COMMIT_SQL, [repoId, sha, repoId, sha]);
      return Number(row?.known ?? 0) === 1;
    },
    /** Open pull requests whose head is `sha`, in `repoId` as base or as head repository. */
    async openPullsWithHead(repoId: number, sha: string, trx: Knex = db): Promise<Array<{ baseRepoId: number; index: number }>> {
      const rows = await trx('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
        .where('p.head_commit_id', sha)
        .andWhere((q) => q.where('p.base_repo_id', repoId).orWhere('p.head_repo_id', repoId))
        .andWhere('i.is_closed', false).andWhere('p.has_merged', false)
        .select('p.base_repo_id', 'p.index');
      return rows.map((r: Record<string, unknown>) => ({ baseRepoId: Number(r.base_repo_id), index: Number(r.index) }));
    },
  };
}

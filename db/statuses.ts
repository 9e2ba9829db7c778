// Store for commit statuses: one row per report, numbered per (repository, sha).
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

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

const ORDER: Record<StatusSort | 'default', Array<{ column: string; order: 'asc' | 'desc' }>> = {
  oldest: [{ column: 'created_unix', order: 'asc' }, { column: 'index', order: 'asc' }],
  recentupdate: [{ column: 'created_unix', order: 'desc' }, { column: 'index', order: 'desc' }],
  leastupdate: [{ column: 'created_unix', order: 'asc' }, { column: 'index', order: 'asc' }],
  leastindex: [{ column: 'index', order: 'asc' }],
  highestindex: [{ column: 'index', order: 'desc' }],
  default: [{ column: 'created_unix', order: 'desc' }, { column: 'index', order: 'desc' }],
};

export function statusesStore(db: Knex) {
  return {
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
    async list(repoId: number, sha: string, opts: { state?: string; sort?: StatusSort; limit: number; offset: number }, trx: Knex = db): Promise<StatusRow[]> {
      const q = trx('commit_statuses').where({ repo_id: repoId, sha });
      if (opts.state) q.andWhere('state', opts.state);
      const rows = await q.orderBy(ORDER[opts.sort ?? 'default']).limit(opts.limit).offset(opts.offset);
      return rows.map(toStatusRow);
    },
    async count(repoId: number, sha: string, state: string | undefined, trx: Knex = db): Promise<number> {
      const q = trx('commit_statuses').where({ repo_id: repoId, sha });
      if (state) q.andWhere('state', state);
      const row = await q.count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /** The newest report of each context, ordered by context index of first appearance. */
    async latestByContext(repoId: number, sha: string, trx: Knex = db): Promise<StatusRow[]> {
      const rows = await trx('commit_statuses as s')
        .where({ 's.repo_id': repoId, 's.sha': sha })
        .whereIn('s.index', trx('commit_statuses as m').where({ 'm.repo_id': repoId, 'm.sha': sha }).groupBy('m.context').max('m.index'))
        .orderBy('s.index')
        .select('s.*');
      return rows.map(toStatusRow);
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

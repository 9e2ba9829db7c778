// Store for a repository's milestones; issue counts are computed from the issues themselves so they
// can never drift from the truth.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';
import { likePattern } from './issues.js';

export interface MilestoneRow {
  id: number;
  repo_id: number;
  name: string;
  content: string;
  is_closed: boolean;
  deadline_unix: number | null;
  closed_unix: number | null;
  created_unix: number;
  updated_unix: number;
  num_issues: number;
  num_closed_issues: number;
}

function toMilestoneRow(raw: Record<string, unknown>): MilestoneRow {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: Number(raw.id), repo_id: Number(raw.repo_id), name: String(raw.name), content: String(raw.content ?? ''),
    is_closed: Boolean(raw.is_closed), deadline_unix: n(raw.deadline_unix), closed_unix: n(raw.closed_unix),
    created_unix: Number(raw.created_unix), updated_unix: Number(raw.updated_unix),
    num_issues: Number(raw.live_issues ?? 0), num_closed_issues: Number(raw.live_closed_issues ?? 0),
  };
}

export interface MilestoneFilter {
  repoId: number;
  isClosed?: boolean;
  name?: string;
}

function withCounts(trx: Knex): Knex.QueryBuilder {
  return trx('milestones').select(
    'milestones.*',
    trx.raw('(SELECT COUNT(*) FROM issues i WHERE i.milestone_id = milestones.id) AS live_issues'),
    trx.raw('(SELECT COUNT(*) FROM issues i WHERE i.milestone_id = milestones.id AND i.is_closed = ?) AS live_closed_issues', [true]),
  );
}

function applyFilter(q: Knex.QueryBuilder, f: MilestoneFilter): Knex.QueryBuilder {
  q.where('milestones.repo_id', f.repoId);
  if (f.isClosed !== undefined) q.andWhere('milestones.is_closed', f.isClosed);
  if (f.name) q.andWhereRaw("milestones.name LIKE ? ESCAPE '!'", [likePattern(f.name)]);
  return q;
}

export function milestonesStore(db: Knex) {
  return {
    async list(f: MilestoneFilter, page: { limit: number; offset: number }, trx: Knex = db): Promise<MilestoneRow[]> {
      const rows = await applyFilter(withCounts(trx), f).orderBy([{ column: 'milestones.deadline_unix' }, { column: 'milestones.id' }]).limit(page.limit).offset(page.offset);
      return rows.map(toMilestoneRow);
    },
    async count(f: MilestoneFilter, trx: Knex = db): Promise<number> {
      const row = await applyFilter(trx('milestones').count({ n: '*' }), f).first();
      return Number(row?.n ?? 0);
    },
    async byId(repoId: number, id: number, trx: Knex = db): Promise<MilestoneRow | undefined> {
      const row = await withCounts(trx).where({ 'milestones.repo_id': repoId, 'milestones.id': id }).first();
      return row ? toMilestoneRow(row) : undefined;
    },
    async byName(repoId: number, name: string, trx: Knex = db): Promise<MilestoneRow | undefined> {
      const row = await withCounts(trx).where({ 'milestones.repo_id': repoId, 'milestones.name': name }).orderBy('milestones.id').first();
      return row ? toMilestoneRow(row) : undefined;
    },
    async byIds(ids: number[], trx: Knex = db): Promise<MilestoneRow[]> {
      if (ids.length === 0) return [];
      return (await withCounts(trx).whereIn('milestones.id', ids)).map(toMilestoneRow);
    },
    async insert(fields: Pick<MilestoneRow, 'repo_id' | 'name' | 'content' | 'is_closed' | 'deadline_unix' | 'closed_unix'>, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('milestones').insert({ ...fields, created_unix: now, updated_unix: now });
      return Number(id);
    },
    async update(id: number, fields: Partial<Pick<MilestoneRow, 'name' | 'content' | 'is_closed' | 'deadline_unix' | 'closed_unix'>>, trx: Knex = db): Promise<void> {
      await trx('milestones').where({ id }).update({ ...fields, updated_unix: nowUnix() });
    },
    async remove(id: number, trx: Knex = db): Promise<void> {
      await trx('milestones').where({ id }).delete();
    },
  };
}

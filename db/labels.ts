// Store for labels of a repository or of an organization.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export interface LabelRow {
  id: number;
  repo_id: number | null;
  org_id: number | null;
  name: string;
  /** Stored as `#rrggbb`, as Gitea stores it. */
  color: string;
  description: string;
  exclusive: boolean;
  is_archived: boolean;
  created_unix: number;
}

export type LabelOwner = { repoId: number } | { orgId: number };

export function toLabelRow(raw: Record<string, unknown>): LabelRow {
  return {
    id: Number(raw.id),
    repo_id: raw.repo_id === null || raw.repo_id === undefined ? null : Number(raw.repo_id),
    org_id: raw.org_id === null || raw.org_id === undefined ? null : Number(raw.org_id),
    name: String(raw.name),
    color: String(raw.color),
    description: String(raw.description ?? ''),
    exclusive: Boolean(raw.exclusive),
    is_archived: Boolean(raw.is_archived),
    created_unix: Number(raw.created_unix),
  };
}

function ownerWhere(owner: LabelOwner): Record<string, number> {
  return 'repoId' in owner ? { repo_id: owner.repoId } : { org_id: owner.orgId };
}

export function labelsStore(db: Knex) {
  return {
    async list(owner: LabelOwner, page: { limit: number; offset: number }, trx: Knex = db): Promise<LabelRow[]> {
      const rows = await trx('labels').where(ownerWhere(owner)).orderBy([{ column: 'name' }, { column: 'id' }]).limit(page.limit).offset(page.offset);
      return rows.map(toLabelRow);
    },
    async count(owner: LabelOwner, trx: Knex = db): Promise<number> {
      const row = await trx('labels').where(ownerWhere(owner)).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async byId(owner: LabelOwner, id: number, trx: Knex = db): Promise<LabelRow | undefined> {
      const row = await trx('labels').where({ ...ownerWhere(owner), id }).first();
      return row ? toLabelRow(row) : undefined;
    },
    /** A label of any repository or organization. */
    async byIdAnywhere(id: number, trx: Knex = db): Promise<LabelRow | undefined> {
      const row = await trx('labels').where({ id }).first();
      return row ? toLabelRow(row) : undefined;
    },
    async byIds(ids: number[], trx: Knex = db): Promise<LabelRow[]> {
      if (ids.length === 0) return [];
      return (await trx('labels').whereIn('id', ids).orderBy([{ column: 'name' }, { column: 'id' }])).map(toLabelRow);
    },
    /** Labels usable on issues of a repository: its own plus its organization's. */
    async usableIn(repoId: number, orgId: number | null, trx: Knex = db): Promise<LabelRow[]> {
      const q = trx('labels').where({ repo_id: repoId });
      if (orgId !== null) q.orWhere({ org_id: orgId });
      return (await q.orderBy('id')).map(toLabelRow);
    },
    async insert(owner: LabelOwner, fields: Pick<LabelRow, 'name' | 'color' | 'description' | 'exclusive' | 'is_archived'>, trx: Knex = db): Promise<number> {
      const [id] = await trx('labels').insert({ ...fields, ...ownerWhere(owner), created_unix: nowUnix() });
      return Number(id);
    },
    async update(id: number, fields: Partial<Pick<LabelRow, 'name' | 'color' | 'description' | 'exclusive' | 'is_archived'>>, trx: Knex = db): Promise<void> {
      if (Object.keys(fields).length) await trx('labels').where({ id }).update(fields);
    },
    async remove(id: number, trx: Knex = db): Promise<void> {
      await trx('labels').where({ id }).delete();
    },
  };
}

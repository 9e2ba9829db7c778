// Store for tag protection rules: one row per rule, the allow-lists as JSON arrays of ids.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export interface ProtectedTagRow {
  id: number;
  repo_id: number;
  name_pattern: string;
  allowlist_user_ids: number[];
  allowlist_team_ids: number[];
  created_unix: number;
  updated_unix: number;
}

function ids(raw: unknown): number[] {
  try {
    const parsed: unknown = JSON.parse(String(raw ?? '[]'));
    return Array.isArray(parsed) ? parsed.map(Number).filter(Number.isFinite) : [];
  } catch {
    return [];
  }
}

function toRow(raw: Record<string, unknown> | undefined): ProtectedTagRow | undefined {
  if (!raw) return undefined;
  return {
    id: Number(raw.id),
    repo_id: Number(raw.repo_id),
    name_pattern: String(raw.name_pattern),
    allowlist_user_ids: ids(raw.allowlist_user_ids),
    allowlist_team_ids: ids(raw.allowlist_team_ids),
    created_unix: Number(raw.created_unix),
    updated_unix: Number(raw.updated_unix),
  };
}

export type ProtectedTagFields = Pick<ProtectedTagRow, 'name_pattern' | 'allowlist_user_ids' | 'allowlist_team_ids'>;

export function protectedTagsStore(db: Knex) {
  return {
    /** Every rule of a repository, oldest first (the order Gitea checks them in). */
    async list(repoId: number, trx: Knex = db): Promise<ProtectedTagRow[]> {
      const rows = await trx('protected_tags').where({ repo_id: repoId }).orderBy('id');
      return rows.map((r: Record<string, unknown>) => toRow(r)!);
    },
    /** A rule of this repository; another repository's rule is not found. */
    async byId(repoId: number, id: number, trx: Knex = db): Promise<ProtectedTagRow | undefined> {
      return toRow(await trx('protected_tags').where({ id, repo_id: repoId }).first());
    },
    async byPattern(repoId: number, pattern: string, trx: Knex = db): Promise<ProtectedTagRow | undefined> {
      return toRow(await trx('protected_tags').where({ repo_id: repoId, name_pattern: pattern }).first());
    },
    async insert(repoId: number, fields: ProtectedTagFields, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('protected_tags').insert({
        repo_id: repoId, name_pattern: fields.name_pattern, created_unix: now, updated_unix: now,
        allowlist_user_ids: JSON.stringify(fields.allowlist_user_ids), allowlist_team_ids: JSON.stringify(fields.allowlist_team_ids),
      });
      return Number(id);
    },
    async update(id: number, fields: ProtectedTagFields, trx: Knex = db): Promise<void> {
      await trx('protected_tags').where({ id }).update({
        name_pattern: fields.name_pattern, updated_unix: nowUnix(),
        allowlist_user_ids: JSON.stringify(fields.allowlist_user_ids), allowlist_team_ids: JSON.stringify(fields.allowlist_team_ids),
      });
    },
    async remove(id: number, trx: Knex = db): Promise<void> {
      await trx('protected_tags').where({ id }).delete();
    },
  };
}

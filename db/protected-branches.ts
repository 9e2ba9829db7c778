// Store for branch protection rules: one row per rule, its options kept as JSON.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export interface ProtectedBranchRow<S = Record<string, unknown>> {
  id: number;
  repo_id: number;
  rule_name: string;
  priority: number;
  settings: S;
  created_unix: number;
  updated_unix: number;
}

function toRow<S>(raw: Record<string, unknown> | undefined): ProtectedBranchRow<S> | undefined {
  if (!raw) return undefined;
  return {
    id: Number(raw.id),
    repo_id: Number(raw.repo_id),
    rule_name: String(raw.rule_name),
    priority: Number(raw.priority),
    settings: JSON.parse(String(raw.settings)) as S,
    created_unix: Number(raw.created_unix),
    updated_unix: Number(raw.updated_unix),
  };
}

export function protectedBranchesStore<S = Record<string, unknown>>(db: Knex) {
  return {
    /** Every rule of a repository, by priority then id (the order rules are matched in). */
    async list(repoId: number, trx: Knex = db): Promise<ProtectedBranchRow<S>[]> {
      const rows = await trx('protected_branches').where({ repo_id: repoId }).orderBy([{ column: 'priority' }, { column: 'id' }]);
      return rows.map((r: Record<string, unknown>) => toRow<S>(r)!);
    },
    async byRuleName(repoId: number, ruleName: string, trx: Knex = db): Promise<ProtectedBranchRow<S> | undefined> {
      return toRow<S>(await trx('protected_branches').where({ repo_id: repoId, rule_name: ruleName }).first());
    },
    async insert(repoId: number, ruleName: string, priority: number, settings: S, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('protected_branches').insert({
        repo_id: repoId, rule_name: ruleName, priority, settings: JSON.stringify(settings), created_unix: now, updated_unix: now,
      });
      return Number(id);
    },
    async update(id: number, fields: { priority?: number; settings?: S }, trx: Knex = db): Promise<void> {
      const change: Record<string, unknown> = { updated_unix: nowUnix() };
      if (fields.priority !== undefined) change.priority = fields.priority;
      if (fields.settings !== undefined) change.settings = JSON.stringify(fields.settings);
      await trx('protected_branches').where({ id }).update(change);
    },
    /** A rule follows its branch when the branch is renamed. */
    async rename(id: number, ruleName: string, trx: Knex = db): Promise<void> {
      await trx('protected_branches').where({ id }).update({ rule_name: ruleName, updated_unix: nowUnix() });
    },
    async remove(id: number, trx: Knex = db): Promise<void> {
      await trx('protected_branches').where({ id }).delete();
    },
  };
}

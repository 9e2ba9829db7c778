// Store for repositories and their access grants (collaborators, team grants).
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export interface RepoRow {
  id: number;
  owner_id: number;
  lower_name: string;
  name: string;
  description: string;
  website: string;
  default_branch: string;
  is_private: boolean;
  is_archived: boolean;
  is_empty: boolean;
  is_template: boolean;
  fork_id: number | null;
  num_forks: number;
  has_issues: boolean;
  has_pull_requests: boolean;
  has_wiki: boolean;
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_manual_merge: boolean;
  autodetect_manual_merge: boolean;
  allow_rebase_update: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  ignore_whitespace_conflicts: boolean;
  created_unix: number;
  updated_unix: number;
  archived_unix: number;
  /** JSON array of the SPDX ids found in LICENSE (core/repo-licenses.ts), and the blob they were read from. */
  licenses: string;
  license_blob_id: string;
}

const NUMBER_COLUMNS = ['id', 'owner_id', 'num_forks', 'created_unix', 'updated_unix', 'archived_unix'];
const BOOLEAN_COLUMNS = [
  'is_private', 'is_archived', 'is_empty', 'is_template', 'has_issues', 'has_pull_requests', 'has_wiki',
  'allow_merge_commits', 'allow_rebase', 'allow_rebase_explicit', 'allow_squash_merge', 'allow_fast_forward_only_merge',
  'allow_manual_merge', 'autodetect_manual_merge', 'allow_rebase_update', 'default_delete_branch_after_merge',
  'default_allow_maintainer_edit', 'ignore_whitespace_conflicts',
];

/** SQLite hands booleans back as 0/1 and MySQL bigints may arrive as strings: normalise once. */
export function toRepoRow(raw: Record<string, unknown> | undefined): RepoRow | undefined {
  if (!raw) return undefined;
  const row: Record<string, unknown> = { ...raw };
  for (const c of NUMBER_COLUMNS) row[c] = Number(row[c]);
  for (const c of BOOLEAN_COLUMNS) row[c] = Boolean(row[c]);
  row.fork_id = row.fork_id === null || row.fork_id === undefined ? null : Number(row.fork_id);
  return row as unknown as RepoRow;
}

export type AccessGrant = 'read' | 'write' | 'admin';

export function reposStore(db: Knex) {
  return {
    async byId(id: number, trx: Knex = db): Promise<RepoRow | undefined> {
      return toRepoRow(await trx('repositories').where({ id }).first());
    },
    async byOwnerAndName(ownerId: number, name: string, trx: Knex = db): Promise<RepoRow | undefined> {
      return toRepoRow(await trx('repositories').where({ owner_id: ownerId, lower_name: name.toLowerCase() }).first());
    },
    /** By the owner's name, so it can be read at the same time as the owner. */
    async byOwnerNameAndName(ownerName: string, name: string, trx: Knex = db): Promise<RepoRow | undefined> {
      return toRepoRow(await trx('repositories as r').join('users as u', 'u.id', 'r.owner_id')
        .where({ 'u.lower_name': ownerName.toLowerCase(), 'r.lower_name': name.toLowerCase() }).first('r.*'));
    },
    async insert(fields: Partial<RepoRow> & Pick<RepoRow, 'owner_id' | 'name'>, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('repositories').insert({ ...fields, lower_name: fields.name.toLowerCase(), created_unix: now, updated_unix: now });
      await trx('issue_indexes').insert({ repo_id: Number(id), max_index: 0 });
      return Number(id);
    },
    async update(id: number, fields: Partial<Omit<RepoRow, 'id'>>, trx: Knex = db): Promise<void> {
      await trx('repositories').where({ id }).update({ ...fields, updated_unix: nowUnix() });
    },
    async remove(id: number, trx: Knex = db): Promise<void> {
      await trx('repositories').where({ id }).delete();
    },
    /** Every repository the account owns, oldest first. */
    async ownedBy(ownerId: number, trx: Knex = db): Promise<RepoRow[]> {
      const rows = await trx('repositories').where({ owner_id: ownerId }).orderBy('id');
      return rows.map((r: Record<string, unknown>) => toRepoRow(r)!);
    },
    async countOwnedBy(ownerId: number, trx: Knex = db): Promise<number> {
      const row = await trx('repositories').where({ owner_id: ownerId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async forksOf(id: number, trx: Knex = db): Promise<RepoRow[]> {
      const rows = await trx('repositories').where({ fork_id: id }).orderBy('id');
      return rows.map((r: Record<string, unknown>) => toRepoRow(r)!);
    },
    async forkOwnedBy(baseRepoId: number, ownerId: number, trx: Knex = db): Promise<RepoRow | undefined> {
      return toRepoRow(await trx('repositories').where({ fork_id: baseRepoId, owner_id: ownerId }).first());
    },
    async collaboratorGrant(repoId: number, userId: number, trx: Knex = db): Promise<AccessGrant | null> {
      const row = await trx('collaborations').where({ repo_id: repoId, user_id: userId }).first('mode');
      return (row?.mode as AccessGrant | undefined) ?? null;
    },
    /** Team permissions the user holds on the repository through the owning organization. */
    async teamGrants(repoId: number, orgId: number, userId: number, trx: Knex = db): Promise<string[]> {
      const rows = await trx('teams as t')
        .join('team_members as m', 'm.team_id', 't.id')
        .leftJoin('team_repos as tr', function joinRepo() {
          this.on('tr.team_id', '=', 't.id').andOn('tr.repo_id', '=', trx.raw('?', [repoId]));
        })
        .where('t.org_id', orgId)
        .andWhere('m.user_id', userId)
        .andWhere((q) => q.where('t.includes_all_repositories', true).orWhereNotNull('tr.repo_id'))
        .select('t.permission');
      return rows.map((r: { permission: string }) => r.permission);
    },
  };
}

export type ReposStore = ReturnType<typeof reposStore>;

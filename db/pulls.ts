// Store for pull requests (the pull_requests row; the issue row holds title, body, state...).
import type { Knex } from 'knex';

export type MergeabilityStatus = 'conflict' | 'checking' | 'mergeable' | 'manually_merged' | 'error' | 'empty' | 'ancestor';

/** Statuses a finished check stores, each of its checked base and head; `checking` and `error` mean there is no usable answer yet. */
const SETTLED_CHECKS: ReadonlySet<string> = new Set(['mergeable', 'conflict', 'empty', 'ancestor']);

export function isSettledCheck(status: string): boolean {
  return SETTLED_CHECKS.has(status);
}

export interface PullRow {
  id: number;
  issue_id: number;
  index: number;
  base_repo_id: number;
  head_repo_id: number | null;
  base_branch: string;
  head_branch: string;
  head_commit_id: string;
  merge_base: string;
  status: MergeabilityStatus;
  conflicted_files: string[];
  checked_head: string;
  checked_base: string;
  /** The clean merge tree of checked_base and checked_head ('' when the check found none). */
  checked_tree: string;
  /** When a check was asked for because the base moved; null once a check has started. */
  recheck_requested_unix: number | null;
  has_merged: boolean;
  merged_unix: number | null;
  merger_id: number | null;
  merge_commit_sha: string | null;
  merge_style: string | null;
  allow_maintainer_edit: boolean;
  head_branch_deleted: boolean;
  additions: number;
  deletions: number;
  changed_files: number;
  /** The merge journal (see migration 0007): set before the base branch moves. */
  merge_operation_id: string | null;
  pending_merge_commit: string | null;
  pending_merge_base: string | null;
}

/** Fields of a pull request to change; conflicted_files as a list (stored as JSON). */
type PullChanges = Partial<Omit<PullRow, 'id' | 'conflicted_files'>> & { conflicted_files?: string[] };

function pullColumns(fields: PullChanges): Record<string, unknown> {
  const { conflicted_files, ...rest } = fields;
  return { ...rest, ...(conflicted_files ? { conflicted_files: JSON.stringify(conflicted_files) } : {}) };
}

export function toPullRow(raw: Record<string, unknown> | undefined): PullRow | undefined {
  if (!raw) return undefined;
  const r: Record<string, unknown> = { ...raw };
  for (const c of ['id', 'issue_id', 'index', 'base_repo_id', 'additions', 'deletions', 'changed_files']) r[c] = Number(r[c]);
  for (const c of ['head_repo_id', 'merged_unix', 'merger_id', 'recheck_requested_unix']) r[c] = r[c] === null || r[c] === undefined ? null : Number(r[c]);
  for (const c of ['has_merged', 'allow_maintainer_edit', 'head_branch_deleted']) r[c] = Boolean(r[c]);
  try {
    r.conflicted_files = typeof r.conflicted_files === 'string' && r.conflicted_files ? JSON.parse(r.conflicted_files) : [];
  } catch {
    r.conflicted_files = [];
  }
  return r as unknown as PullRow;
}

export interface NewPull {
  issue_id: number;
  index: number;
  base_repo_id: number;
  head_repo_id: number;
  base_branch: string;
  head_branch: string;
  head_commit_id: string;
  merge_base?: string;
  allow_maintainer_edit?: boolean;
}

export function pullsStore(db: Knex) {
  return {
    async byId(id: number, trx: Knex = db): Promise<PullRow | undefined> {
      return toPullRow(await trx('pull_requests').where({ id }).first());
    },
    async byIssueId(issueId: number, trx: Knex = db): Promise<PullRow | undefined> {
      return toPullRow(await trx('pull_requests').where({ issue_id: issueId }).first());
    },
    async byIndex(baseRepoId: number, index: number, trx: Knex = db): Promise<PullRow | undefined> {
      return toPullRow(await trx('pull_requests').where({ base_repo_id: baseRepoId, index }).first());
    },
    async insert(p: NewPull, trx: Knex = db): Promise<number> {
      const [id] = await trx('pull_requests').insert({ ...p, merge_base: p.merge_base ?? '', conflicted_files: '[]', status: 'checking' });
      return Number(id);
    },
    async update(id: number, fields: PullChanges, trx: Knex = db): Promise<void> {
      await trx('pull_requests').where({ id }).update(pullColumns(fields));
    },
    /**
     * `update`, unless the record's head is no longer `readHead`: a push moved it meanwhile (and
     * asks for its own check). False when nothing was written.
     */
    async updateUnlessHeadMoved(id: number, readHead: string, fields: PullChanges): Promise<boolean> {
      return Number(await db('pull_requests').where({ id, head_commit_id: readHead }).update(pullColumns(fields))) > 0;
    },
    /** Open, unmerged pull requests with this head branch (for pushes and duplicate checks). */
    async openByHead(headRepoId: number, headBranch: string, trx: Knex = db): Promise<PullRow[]> {
      const rows = await trx('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
        .where({ 'p.head_repo_id': headRepoId, 'p.head_branch': headBranch, 'p.has_merged': false, 'i.is_closed': false })
        .select('p.*');
      return rows.map((r: Record<string, unknown>) => toPullRow(r)!);
    },
    /** Open, unmerged pull requests targeting this base branch. */
    async openByBase(baseRepoId: number, baseBranch: string, trx: Knex = db): Promise<PullRow[]> {
      const rows = await trx('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
        .where({ 'p.base_repo_id': baseRepoId, 'p.base_branch': baseBranch, 'p.has_merged': false, 'i.is_closed': false })
        .select('p.*');
      return rows.map((r: Record<string, unknown>) => toPullRow(r)!);
    },
    /** The open, unmerged pull request with exactly these targets, if any (duplicate check). */
    async openWithTargets(t: PullTargets, trx: Knex = db): Promise<PullRow | undefined> {
      const row = await trx('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
        .where({
          'p.head_repo_id': t.headRepoId, 'p.head_branch': t.headBranch, 'p.base_repo_id': t.baseRepoId, 'p.base_branch': t.baseBranch,
          'p.has_merged': false, 'i.is_closed': false,
        })
        .first('p.*');
      return toPullRow(row);
    },
    /** The newest pull request (any state) with these targets: GET /pulls/{base}/{head}. */
    async latestWithTargets(t: PullTargets, trx: Knex = db): Promise<PullRow | undefined> {
      return toPullRow(await trx('pull_requests').where({
        head_repo_id: t.headRepoId, head_branch: t.headBranch, base_repo_id: t.baseRepoId, base_branch: t.baseBranch,
      }).orderBy('id', 'desc').first());
    },
    /** Pull rows of a page of issues, keyed by issue id (one query for a list). */
    async byIssueIds(issueIds: number[], trx: Knex = db): Promise<Map<number, PullRow>> {
      if (issueIds.length === 0) return new Map();
      const rows = await trx('pull_requests').whereIn('issue_id', issueIds);
      return new Map(rows.map((r: Record<string, unknown>) => { const p = toPullRow(r)!; return [p.issue_id, p] as const; }));
    },
    /** Open, unmerged pull requests whose issue depends on `issueId` (their merge is blocked by it). */
    async openDependingOn(issueId: number, trx: Knex = db): Promise<PullRow[]> {
      const rows = await trx('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
        .join('issue_dependencies as d', 'd.issue_id', 'p.issue_id')
        .where({ 'd.dependency_id': issueId, 'p.has_merged': false, 'i.is_closed': false })
        .select('p.*');
      return rows.map((r: Record<string, unknown>) => toPullRow(r)!);
    },
  };
}

export interface PullTargets {
  headRepoId: number;
  headBranch: string;
  baseRepoId: number;
  baseBranch: string;
}

export type PullsStore = ReturnType<typeof pullsStore>;

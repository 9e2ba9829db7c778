// What a stopped process may have left untold. Base moves are announced once the base is quiet
// (core/pulls/landing/when-quiet.ts), by the process that moved it, from memory; a process that
// died first took those announcements with it, as one that died between a push and its signals
// did. The stored checks say who missed one: an open pull request whose mergeability was checked
// against another commit of its base than the one the base is at. A worker tells those as it starts.
import type { Knex } from 'knex';
import { branchRef, readRefs } from '../../git/index.js';
import { repoDiskPath } from '../repositories.js';
import { markRecheckRequested, signalBaseChanged, type AfterPushResult, type PullSignaller } from '../push.js';

interface OpenPullCheck {
  id: number;
  index: number;
  base_repo_id: number;
  base_branch: string;
  checked_base: string;
  owner_name: string;
  repo_name: string;
}

/** Asks every open pull request whose stored check is of another base commit to check again. */
export async function recheckStaleMergeability(
  db: Knex, config: { APP_DATA_PATH: string }, pullWorkflows: PullSignaller | null,
): Promise<AfterPushResult> {
  const result: AfterPushResult = { headsMoved: [], basesMoved: [], problems: [] };
  const rows: OpenPullCheck[] = await db('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
    .join('repositories as r', 'r.id', 'p.base_repo_id').join('users as u', 'u.id', 'r.owner_id')
    .where('i.is_closed', false).andWhere('p.has_merged', false)
    .select('p.id', 'p.index', 'p.base_repo_id', 'p.base_branch', 'p.checked_base', 'u.name as owner_name', 'r.name as repo_name');
  const open = rows.map((row) => ({ ...row, id: Number(row.id), index: Number(row.index), base_repo_id: Number(row.base_repo_id) }));
  for (const pulls of groupBy(open, (p) => p.base_repo_id).values()) {
    const path = repoDiskPath(config, pulls[0]!.owner_name, pulls[0]!.repo_name);
    try {
      const tips = await readRefs(path, [...new Set(pulls.map((p) => branchRef(p.base_branch)))]);
      const stale = pulls.filter((p) => (tips.get(branchRef(p.base_branch)) ?? '') !== p.checked_base);
      for (const [branch, into] of groupBy(stale, (p) => p.base_branch)) {
        await signalBaseChanged(pullWorkflows, await markRecheckRequested(db, into), tips.get(branchRef(branch)) ?? '', result);
      }
    } catch (err) {
      result.problems.push(err as Error); // a repository gone from disk: the others are still told
    }
  }
  return result;
}

function groupBy<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const group = groups.get(keyOf(item));
    if (group) group.push(item);
    else groups.set(keyOf(item), [item]);
  }
  return groups;
}

// Activities of the pull request workflow: thin wrappers over core/ and db/, built by a factory
// that receives their dependencies.
import type { Db } from '../db/connection.js';
import type { PullActivities, PullSummary } from '../workflows/activity-types.js';
import type { PullKey } from '../workflows/pull-messages.js';

export interface ActivityDeps {
  db: Db;
}

export function createActivities(deps: ActivityDeps): PullActivities {
  return {
    async loadPullSummary(key: PullKey): Promise<PullSummary> {
      const row = await deps.db('issues as i')
        .leftJoin('pull_requests as p', 'p.issue_id', 'i.id')
        .where({ 'i.repo_id': key.repoId, 'i.index': key.index, 'i.is_pull': true })
        .first('i.is_closed', 'p.has_merged');
      if (!row) return { exists: false, isClosed: false, hasMerged: false };
      return { exists: true, isClosed: Boolean(row.is_closed), hasMerged: Boolean(row.has_merged) };
    },
  };
}

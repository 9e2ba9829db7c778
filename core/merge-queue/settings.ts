// The merge queue's settings, read from the branch protection that governs the base branch.
import type { Knex } from 'knex';
import { protectionFor } from '../branch-protection.js';
import { repoDiskPath } from '../repositories.js';
import type { QueueSettings } from '../../workflows/queue-messages.js';

export async function queueSettingsFor(db: Knex, repoId: number, branch: string): Promise<QueueSettings> {
  const rule = await protectionFor(db, repoId, branch);
  const s = rule?.settings;
  if (!s) return { enabled: false, style: 'merge', depth: 1, maxBatch: 1, batchWaitSeconds: 0, checkTimeoutSeconds: 3600, requiredContexts: [] };
  return {
    enabled: s.enable_merge_queue, style: s.merge_queue_merge_style, depth: s.merge_queue_depth, maxBatch: s.merge_queue_max_batch,
    batchWaitSeconds: s.merge_queue_batch_wait_seconds, checkTimeoutSeconds: s.merge_queue_check_timeout_seconds,
    requiredContexts: s.enable_status_check ? s.status_check_contexts : [],
  };
}

/** The bare repository of a repository known by id. */
export async function repoPathById(db: Knex, config: { APP_DATA_PATH: string }, repoId: number): Promise<string | null> {
  const row = await db('repositories as r').join('users as u', 'u.id', 'r.owner_id').where('r.id', repoId).first('r.name', 'u.name as owner');
  return row ? repoDiskPath(config, row.owner as string, row.name as string) : null;
}

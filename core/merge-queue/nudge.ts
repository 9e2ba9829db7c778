// Telling merge queues that something they depend on changed: a status on a speculative commit, a
// push to a queued head or to the base, a close or a retarget. The queue re-reads everything in its
// next round, so a lost nudge costs at most its poll interval.
import type { Knex } from 'knex';
import type { QueueKey } from '../../workflows/queue-messages.js';

/** What this module needs of the workflow client (PullWorkflowClient.nudgeQueue). */
export interface QueueNudger {
  nudgeQueue?(key: QueueKey, reason: string): Promise<void>;
}

export interface QueueConcern {
  repoId: number;
  /** Queues of this base branch. */
  branch?: string;
  /** Queues holding these pull requests. */
  pullIds?: number[];
  /** Queues checking this commit. */
  specCommit?: string;
}

/** Nudges each queue the change concerns; failures are logged by the caller's logger, never thrown. */
export async function nudgeQueues(db: Knex, nudger: QueueNudger | null | undefined, c: QueueConcern, reason: string, log?: { warn(obj: object, msg: string): void }): Promise<void> {
  if (!nudger?.nudgeQueue) return;
  try {
    const rows = await db('merge_queue_entries').where({ repo_id: c.repoId }).andWhere((q) => {
      q.whereRaw('1 = 0');
      if (c.branch !== undefined) q.orWhere('base_branch', c.branch);
      if (c.pullIds && c.pullIds.length > 0) q.orWhereIn('pull_id', c.pullIds);
      if (c.specCommit) q.orWhere('spec_commit', c.specCommit);
    }).distinct('base_branch');
    await Promise.all(rows.map((r: { base_branch: string }) => nudger.nudgeQueue!({ repoId: c.repoId, branch: r.base_branch }, reason)));
  } catch (err) {
    log?.warn({ err, ...c }, 'could not nudge the merge queue');
  }
}

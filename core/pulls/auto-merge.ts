// The database mirror of a scheduled auto-merge (the workflow holds the schedule itself): the row
// Gitea keeps in pull_auto_merges, and the timeline comments for scheduling and cancelling.
import { pullsStore } from '../../db/pulls.js';
import { usersStore } from '../../db/users.js';
import { nowUnix } from '../../db/time.js';
import { addComment } from '../comments.js';
import { atLeast, repoAccessMode } from '../permissions.js';
import { loadPullOperationContext, type OperationDeps } from './operation-context.js';
import type { AutoMergeSchedule, OperationOutcome, PullKey } from '../../workflows/pull-messages.js';

export async function recordAutoMergeScheduled(deps: OperationDeps, key: PullKey, schedule: AutoMergeSchedule): Promise<void> {
  const pull = await pullsStore(deps.db).byIndex(key.repoId, key.index);
  if (!pull) return;
  await deps.db.transaction(async (trx) => {
    const exists = await trx('pull_auto_merges').where({ pull_id: pull.id }).first('id');
    if (exists) return; // a retried activity: already recorded
    await trx('pull_auto_merges').insert({
      pull_id: pull.id, doer_id: schedule.doerId, merge_style: schedule.style,
      message: [schedule.title, schedule.message].filter(Boolean).join('\n\n'),
      delete_branch_after_merge: schedule.deleteBranchAfterMerge, created_unix: nowUnix(),
    });
    await addComment(trx, { issueId: pull.issue_id, posterId: schedule.doerId, type: 'schedule_auto_merge', content: schedule.style });
  });
}

export async function recordAutoMergeCancelled(deps: OperationDeps, key: PullKey, doerId: number | null, reason: string): Promise<void> {
  const pull = await pullsStore(deps.db).byIndex(key.repoId, key.index);
  if (!pull) return;
  await deps.db.transaction(async (trx) => {
    const removed = await trx('pull_auto_merges').where({ pull_id: pull.id }).delete();
    if (Number(removed) === 0) return;
    await addComment(trx, { issueId: pull.issue_id, posterId: doerId, type: 'cancel_auto_merge', content: reason });
  });
}

export async function recordAutoMergeError(deps: OperationDeps, key: PullKey, message: string): Promise<void> {
  const pull = await pullsStore(deps.db).byIndex(key.repoId, key.index);
  if (pull) await deps.db('pull_auto_merges').where({ pull_id: pull.id }).update({ error_message: message.slice(0, 1000) });
}

/** Only the user who scheduled it or a repository admin may cancel (Gitea's rule). */
export async function mayCancelAutoMerge(deps: OperationDeps, key: PullKey, doerId: number, scheduledBy: number): Promise<OperationOutcome> {
  if (doerId === scheduledBy) return { status: 204 };
  const ctx = await loadPullOperationContext(deps, key);
  const doer = await usersStore(deps.db).byId(doerId);
  if (doer && atLeast(await repoAccessMode(deps.db, ctx.baseRepo, ctx.baseOwner, doer), 'admin')) return { status: 204 };
  return { status: 403, body: { message: 'user has no permission to cancel the scheduled auto merge' } };
}

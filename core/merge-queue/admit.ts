// Joining the merge queue: the pull request must be mergeable but for its checks (the queue runs
// those on its speculative commit): permission, not WIP, no conflict, approvals, no open dependency.
import { ServiceError } from '../errors.js';
import { usersStore } from '../../db/users.js';
import { computeMergeability, currentRefs } from '../pulls/mergeability.js';
import { checkMergeReadiness, loadReadinessFacts } from '../pulls/merge-readiness.js';
import { loadPullOperationContext, type OperationDeps } from '../pulls/operation-context.js';
import { workInProgressPrefixes } from '../pulls/wip.js';
import { atLeast, repoAccessMode } from '../permissions.js';
import { insertEntry } from './entries.js';
import type { OperationOutcome } from '../../workflows/pull-messages.js';
import type { JoinRequest, QueueKey } from '../../workflows/queue-messages.js';

const refuse = (status: number, message: string) => ({ status, body: { message } });

/** 201 with the head commit the entry was queued at, or the refusal. */
export async function admitToQueue(deps: OperationDeps, key: QueueKey, req: JoinRequest, position: number): Promise<OperationOutcome & { headSha?: string; pullId?: number }> {
  let ctx;
  try {
    ctx = await loadPullOperationContext(deps, { repoId: key.repoId, index: req.index });
  } catch (err) {
    if (err instanceof ServiceError) return refuse(err.status, err.message);
    throw err;
  }
  const doer = await usersStore(deps.db).byId(req.doerId);
  if (!doer) return refuse(405, 'User not allowed to merge PR');
  if (ctx.pull.base_branch !== key.branch) return refuse(409, `the pull request targets ${ctx.pull.base_branch}, not ${key.branch}`);
  if (ctx.pull.has_merged) return refuse(405, 'the pull request is already merged');
  const [mergeability, facts] = await Promise.all([
    currentRefs(ctx).then((refs) => computeMergeability(ctx, { reuseStored: true, refs })),
    loadReadinessFacts(deps.db, ctx, doer),
  ]);
  const readiness = await checkMergeReadiness({
    db: deps.db, ctx, doer, facts, mergeability, wipPrefixes: workInProgressPrefixes(deps.config), forceMerge: false, manual: false, forQueue: true,
  });
  if (!readiness.ready) return refuse(readiness.status, readiness.message || 'the pull request cannot join the merge queue');
  const joined = await insertEntry(deps.db, key, { id: ctx.pull.id, issue_id: ctx.issue.id, index: ctx.pull.index }, doer.id, mergeability.headSha, position);
  if (!joined) return refuse(409, 'the pull request is already in the merge queue');
  return { status: 201, headSha: mergeability.headSha, pullId: ctx.pull.id };
}

/** Only who queued it or a repository admin takes an entry out (as for a scheduled auto-merge). */
export async function mayLeaveQueue(deps: OperationDeps, key: QueueKey, index: number, doerId: number, queuedBy: number): Promise<OperationOutcome> {
  if (doerId === queuedBy) return { status: 204 };
  const ctx = await loadPullOperationContext(deps, { repoId: key.repoId, index });
  const doer = await usersStore(deps.db).byId(doerId);
  if (doer && atLeast(await repoAccessMode(deps.db, ctx.baseRepo, ctx.baseOwner, doer), 'admin')) return { status: 204 };
  return refuse(403, 'user has no permission to take the pull request out of the merge queue');
}

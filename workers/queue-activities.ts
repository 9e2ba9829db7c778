// Activities of the merge queue workflow: thin wrappers over core/merge-queue. Each is safe to
// retry: joins and removals are keyed by the pull request, builds are deterministic, landing is
// journalled, and a landed entry is marked merged by an update whose id names the landing.
import { Context } from '@temporalio/activity';
import { admitToQueue, mayLeaveQueue } from '../core/merge-queue/admit.js';
import { dropLanded, publishEntries, removeEntry } from '../core/merge-queue/entries.js';
import { landBatch, landingOperationId } from '../core/merge-queue/land.js';
import { buildSpeculative, syncQueueBranches } from '../core/merge-queue/speculative.js';
import { surveyQueue } from '../core/merge-queue/survey.js';
import { faultPoint } from '../core/fault-points.js';
import { mergeUpdate } from '../workflows/pull-messages.js';
import { PullWorkflowClient } from './pull-workflow-client.js';
import type { ActivityDeps } from './activities.js';
import type { QueueActivities } from '../workflows/queue-activity-types.js';

/** Heartbeats while a git activity runs, so a dead worker's build or landing is retried elsewhere soon. */
function heartbeating<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    let context: Context | null = null;
    try {
      context = Context.current();
    } catch {
      // outside an activity (tests)
    }
    const timer = context ? setInterval(() => context!.heartbeat(), 1000) : null;
    try {
      return await fn(...args);
    } finally {
      if (timer) clearInterval(timer);
    }
  };
}

export function createQueueActivities(deps: ActivityDeps): QueueActivities {
  return {
    admitToQueue: (key, req, position) => admitToQueue(deps, key, req, position),
    mayLeaveQueue: (key, index, doerId, queuedBy) => mayLeaveQueue(deps, key, index, doerId, queuedBy),
    removeFromQueue: (key, index, doerId, reason) => removeEntry(deps.db, key, index, doerId, reason),
    surveyQueue: (key, entries, commits) => surveyQueue(deps, key, entries, commits),
    buildSpeculative: heartbeating((key, req) => buildSpeculative(deps, key, req)),
    async publishQueue(key, entries, branches) {
      await publishEntries(deps.db, key, entries);
      await syncQueueBranches(deps.db, deps.config, key, branches, null, entries);
    },
    landBatch: heartbeating((key, base, members) => landBatch(deps, key, base, members)),
    markLanded: heartbeating(async (key, tip, member) => {
      const context = Context.current();
      const pulls = PullWorkflowClient.over(context.client, {
        taskQueue: context.info.taskQueue, historyEventLimit: deps.config.TEMPORAL_HISTORY_EVENT_LIMIT, workflowIdPrefix: deps.config.TEMPORAL_WORKFLOW_ID_PREFIX,
      });
      const operationId = landingOperationId(key, tip, member.index);
      // The update id is the journalled operation id: the merge finds its journal and records it once.
      const outcome = await pulls.execute({ repoId: key.repoId, index: member.index }, mergeUpdate, [{
        doerId: member.doerId, style: member.style, title: '', message: '', mergeCommitId: '', headCommitId: '',
        mergeWhenChecksSucceed: false, forceMerge: false, deleteBranchAfterMerge: null, requestId: operationId,
      }], operationId);
      faultPoint('queue:after-mark');
      if (outcome.status === 200) await dropLanded(deps.db, key, [member.index]);
      return outcome;
    }),
  };
}

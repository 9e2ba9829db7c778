// Activities of the pull request workflow: thin wrappers over core/, built by a factory that
// receives their dependencies. Each is safe to retry (see core/pulls/merge.ts for the journal).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ServiceError, storageFailure } from '../core/errors.js';
import type { Db } from '../db/connection.js';
import { repositoriesRoot } from '../core/repositories.js';
import { refreshMergeability } from '../core/pulls/mergeability.js';
import { mergePullRequest } from '../core/pulls/merge.js';
import { deleteMergedHeadBranch } from '../core/pulls/delete-head-branch.js';
import { updatePullBranch } from '../core/pulls/update-branch.js';
import { applyChangeBase, applySetState } from '../core/pulls/state.js';
import { mayCancelAutoMerge, recordAutoMergeCancelled, recordAutoMergeError, recordAutoMergeScheduled } from '../core/pulls/auto-merge.js';
import { repositoryBranchMoved } from '../core/push.js';
import { announceWhenQuiet, baseBusyMs } from '../core/pulls/landing/index.js';
import { pullsStore } from '../db/pulls.js';
import { deletePullRequest } from '../core/issue-delete.js';
import { PullWorkflowClient } from './pull-workflow-client.js';
import type { MergeabilitySummary, PullActivities, PullSummary } from '../workflows/activity-types.js';
import type { OperationOutcome, PullKey } from '../workflows/pull-messages.js';
import { nudgeQueues } from '../core/merge-queue/nudge.js';

export interface ActivityDeps {
  db: Db;
  config: {
    APP_DATA_PATH: string; APP_URL: string; WORK_IN_PROGRESS_PREFIXES: string;
    TEMPORAL_HISTORY_EVENT_LIMIT?: number; TEMPORAL_WORKFLOW_ID_PREFIX?: string;
  };
}

/** The running activity's context; null when called outside an activity (tests). */
function activityContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

function retried(): boolean {
  return (activityContext()?.info.attempt ?? 1) > 1;
}

/**
 * Heartbeats while a git activity runs, so the server notices a dead worker within the heartbeat
 * timeout and retries the activity elsewhere (the merge journal makes that safe).
 */
function withHeartbeat<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const context = activityContext();
    // A local activity cannot heartbeat; its workflow task's timeout stands in.
    if (!context || context.info.isLocal) return fn(...args);
    const timer = setInterval(() => context.heartbeat(), 1000);
    try {
      return await fn(...args);
    } finally {
      clearInterval(timer);
    }
  };
}

/**
 * A typed refusal (404, 409...) will not change on retry, nor will a full or read-only disk within
 * the retry window: fail the activity for good, with the HTTP status as the failure's detail so the
 * workflow answers with it instead of a 500.
 */
function finalOnServiceError<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      const final = err instanceof ServiceError ? err : storageFailure(err);
      if (final) throw ApplicationFailure.create({ message: final.message, type: final.name, nonRetryable: true, details: [final.status] });
      throw err;
    }
  };
}

/** The request id an operation's arguments carry (merge, update, state and base changes do). */
function requestIdOf(args: unknown[]): string | undefined {
  for (const arg of args) {
    const id = (arg as { requestId?: unknown } | null)?.requestId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

/**
 * Logs each activity that carries an API request id when it ends, through the activity's logger
 * (which adds the workflow id, activity type and attempt): with the API's log line and the
 * workflow's "operation started", an operator follows one request end to end by its id.
 */
function logged<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const requestId = requestIdOf(args);
    const context = activityContext();
    if (!context || requestId === undefined) return fn(...args);
    const started = performance.now();
    try {
      const result = await fn(...args);
      const status = (result as { status?: unknown } | null)?.status;
      context.log.info('activity finished', { requestId, ms: Math.round(performance.now() - started), ...(typeof status === 'number' ? { status } : {}) });
      return result;
    } catch (err) {
      context.log.warn('activity failed', { requestId, ms: Math.round(performance.now() - started), error: (err as Error).message });
      throw err;
    }
  };
}

/** What a pull request's workflow describes itself with. */
async function pullSummary(db: Db, key: PullKey): Promise<PullSummary> {
  const row = await db('issues as i')
    .leftJoin('pull_requests as p', 'p.issue_id', 'i.id')
    .join('repositories as r', 'r.id', 'i.repo_id')
    .join('users as u', 'u.id', 'r.owner_id')
    .where({ 'i.repo_id': key.repoId, 'i.index': key.index, 'i.is_pull': true })
    .first('i.is_closed', 'p.has_merged', 'p.id', 'r.name as repo_name', 'u.name as owner_name');
  if (!row) return { exists: false, pullId: 0, repository: '', isClosed: false, hasMerged: false };
  return {
    exists: true, pullId: Number(row.id ?? 0), repository: `${row.owner_name}/${row.repo_name}`,
    isClosed: Boolean(row.is_closed), hasMerged: Boolean(row.has_merged),
  };
}

/** A mergeability check, as the workflow is told it (null: merged or closed). */
async function checkMergeability(deps: ActivityDeps, key: PullKey): Promise<MergeabilitySummary | null> {
  const result = await refreshMergeability(deps, key);
  return result ? { status: result.status, headSha: result.headSha } : null;
}

/** How long the pull request's base keeps moving (0: quiet, or unknown to this process). */
async function baseStillMoving(db: Db, key: PullKey): Promise<number> {
  const pull = await pullsStore(db).byIndex(key.repoId, key.index);
  return pull ? baseBusyMs(key.repoId, pull.base_branch) : 0;
}

export function createActivities(deps: ActivityDeps): PullActivities {
  const activities = buildActivities(deps);
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [name, logged(finalOnServiceError(fn as (...a: unknown[]) => Promise<unknown>))]),
  ) as unknown as PullActivities;
}

function buildActivities(deps: ActivityDeps): PullActivities {
  // Other workflows are reached through this worker's own client, on its task queue.
  const workerClient = () => {
    const context = activityContext();
    return context
      ? PullWorkflowClient.over(context.client, {
        taskQueue: context.info.taskQueue, historyEventLimit: deps.config.TEMPORAL_HISTORY_EVENT_LIMIT, workflowIdPrefix: deps.config.TEMPORAL_WORKFLOW_ID_PREFIX,
      })
      : null;
  };
  /** A queued pull request closed or retargeted: its merge queue takes the entry out (with its comment). */
  const afterQueuedChange = async (key: PullKey, outcome: OperationOutcome): Promise<OperationOutcome> => {
    if (outcome.status < 300) {
      const pull = await pullsStore(deps.db).byIndex(key.repoId, key.index);
      if (pull) await nudgeQueues(deps.db, workerClient(), { repoId: key.repoId, pullIds: [pull.id] }, `#${key.index} changed`);
    }
    return outcome;
  };
  return {
    loadPullSummary: withHeartbeat(async (key, opts) => {
      const summary = await pullSummary(deps.db, key);
      if (!opts?.refreshMergeability || !summary.exists || summary.hasMerged || summary.isClosed) return summary;
      return { ...summary, refreshed: await checkMergeability(deps, key) };
    }),
    refreshMergeability: withHeartbeat(async (key, opts) => {
      if (opts?.baseOnly) {
        const deferMs = await baseStillMoving(deps.db, key);
        if (deferMs > 0) return { status: 'deferred', headSha: '', deferMs };
      }
      return checkMergeability(deps, key);
    }),
    mergePullRequest: withHeartbeat(async (key, op) => {
      const outcome = await mergePullRequest(deps, key, op);
      if (!op.scheduleIfWaiting || !outcome.waiting) return outcome;
      await recordAutoMergeScheduled(deps, key, op.scheduleIfWaiting);
      return { ...outcome, scheduled: true };
    }),
    deleteMergedHeadBranch: withHeartbeat((key, doerId) => deleteMergedHeadBranch(deps, key, doerId, retried())),
    updatePullBranch: withHeartbeat((key, request) => updatePullBranch(deps, key, request)),
    setPullState: async (key, request) => afterQueuedChange(key, await applySetState(deps.db, key, request.doerId, request.state)),
    changePullBase: async (key, request) => afterQueuedChange(key, await applyChangeBase(deps.db, repositoriesRoot(deps.config), key, request.doerId, request.base)),
    deletePullRequest: (key) => deletePullRequest(deps, key),
    recordAutoMergeScheduled: (key, schedule) => recordAutoMergeScheduled(deps, key, schedule),
    recordAutoMergeCancelled: (key, doerId, reason) => recordAutoMergeCancelled(deps, key, doerId, reason),
    recordAutoMergeError: (key, message) => recordAutoMergeError(deps, key, message),
    mayCancelAutoMerge: (key, doerId, scheduledBy) => mayCancelAutoMerge(deps, key, doerId, scheduledBy),
    async announceBranchMoved(move) {
      const services = { db: deps.db, config: deps.config, pullWorkflows: workerClient() };
      const tell = async (parts: 'followers' | 'waiting') => {
        const result = await repositoryBranchMoved(services, move.repoId, move.branch, move.sha, parts);
        // Told again on retry: a second signal only repeats a check.
        if (result.problems.length > 0) throw result.problems[0];
      };
      // The pull requests from the branch follow it and its merge queues look again at once; those
      // waiting on it, after an auto-merge (announced in a local activity: its run ends after it),
      // once it is quiet (core/pulls/landing/when-quiet.ts): a burst of merges is told once, after it.
      await tell('followers');
      await announceWhenQuiet(move.repoId, move.branch, () => tell('waiting'), { hold: activityContext()?.info.isLocal ?? false });
    },
  };
}


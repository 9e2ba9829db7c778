// The per-pull-request workflow: one run per pull request (id pull/<base repo id>/<index>) that
// takes one operation at a time — merge, update, auto-merge, close/reopen, base change — and keeps
// mergeability fresh when the head or base moves.
//
// Versioning: a change to the commands it issues goes behind the run's code revision
// (input.revision; PULL_WORKFLOW_REVISION in workflows/pull-messages.ts), which new runs and runs
// continuing as new take, so recorded histories replay on the paths they took
// (test/merge/replay.test.ts replays every revision's). patched() would do the same for a change
// inside a running run, but each patch marker also makes the SDK upsert the TemporalChangeVersion
// search attribute, about 8 ms on a merge's answer here.
import {
  ApplicationFailure, allHandlersFinished, condition, continueAsNew, currentUpdateInfo, log, setHandler, workflowInfo,
} from '@temporalio/workflow';
import { activityFailureCause } from './activity-failure.js';
import { Mutex } from './mutex.js';
import { gitWork, localRecords, mergeWork, records } from './pull-activities.js';
import { Describer } from './description.js';
import {
  baseChangedSignal, cancelAutoMergeUpdate, changeBaseUpdate, checksChangedSignal, deleteUpdate, headChangedSignal, mergeUpdate, pingUpdate,
  reviewsChangedSignal, setStateUpdate, updateBranchUpdate, viewQuery,
  PULL_WORKFLOW_REVISION, type AutoMergeSchedule, type BranchMove, type MergeRequest, type MergeStyle, type OperationOutcome, type PullWorkflowInput,
} from './pull-messages.js';

/**
 * A run continues as new after this many history events (or when the server suggests it first), so
 * a pull request that lives for years never carries a huge history; tests pass a small limit.
 */
const HISTORY_EVENT_LIMIT = 2_000;

/**
 * A base branch that moves tends to move again soon (a queue of merges): a refresh for a base move
 * waits this long, so a burst of moves costs one mergeability check instead of one per move.
 */
const BASE_SETTLE = '1 second';

/** The longest a base-only check is put off while the base keeps moving. */
const MAX_DEFERRAL_MS = 30_000;

/** How long a merged or closed pull request's run waits for more operations before it ends. */
const LINGER = '2 seconds';

/**
 * Under revisions 1 and 2 a run its auto-merge ended waits only this long (nobody races an
 * auto-merge with requests of their own), and so ends in a later workflow task than the merge's:
 * the server refuses to end a run while signals that arrived during the task are unhandled, and
 * that failed task is replayed from scratch, its merge run again. In a burst the base-moved
 * signals nearly always had arrived. From revision 3 the run ends in its merge's own task: a base
 * move is announced once the base is quiet (core/pulls/landing/when-quiet.ts), so no base-moved
 * signal reaches the pull requests merging in a burst, and the timer cost each of them five of its
 * thirteen history events in the burst.
 */
const AFTER_AUTO_MERGE = '1 millisecond';

const MERGE_STYLES: readonly string[] = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'];

export async function pullRequestWorkflow(input: PullWorkflowInput): Promise<void> {
  const { key } = input;
  const revision = input.revision ?? 0;
  const describer = new Describer(key);
  const historyLimit = input.historyEventLimit ?? HISTORY_EVENT_LIMIT;
  const mutex = new Mutex();
  let operations = input.carried?.operations ?? 0;
  let lastOperation = input.carried?.lastOperation ?? '';
  let lastRequestId = input.carried?.lastRequestId ?? '';
  let running = '';
  let autoMerge: AutoMergeSchedule | null = input.carried?.autoMerge ?? null;
  // A new run refreshes mergeability when told the head or base moved (creation signals headChanged).
  let mergeabilityStale = input.carried?.mergeabilityStale ?? false;
  // ...and at once, unless only the base moved (see BASE_SETTLE).
  let refreshAtOnce = mergeabilityStale;
  const staleNow = () => {
    mergeabilityStale = true;
    refreshAtOnce = true;
  };
  // Branches this pull request's operations moved, to tell the other pull requests once answered;
  // `unwatched`: no caller waits for the workflow task that tells them (an auto-merge's move).
  const announcements: Array<{ move: BranchMove; unwatched: boolean }> = [];
  const announceLater = (move: BranchMove | undefined, unwatched = false) => {
    if (move) announcements.push({ move, unwatched: unwatched && revision >= 1 });
  };
  // See AFTER_AUTO_MERGE.
  let endedByAutoMerge = false;
  let autoMergeDue = autoMerge !== null;
  // Consecutive base-only checks put off because the base kept moving.
  let deferrals = 0;
  let finished = false;
  let state = 'open';
  let repository = '';
  let started = false;
  const historyTooLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit;

  // What the Temporal UI shows: search attributes to find the workflow, the memo to read it.
  const describe = () => describer.write({
    repository, state, operation: running, lastOperation, lastRequestId, autoMerge: autoMerge ? `${autoMerge.style} by user ${autoMerge.doerId}` : null,
  });
  // An activity that keeps failing (a bug, a broken disk) ends the operation with a 500 instead
  // of leaving the caller waiting; the workflow itself carries on. An operation whose first step is
  // a local activity runs it inside this workflow task: a description of it as running would be
  // replaced by the final one before anybody could read it, so none is written.
  const operation = <T>(name: string, requestId: string | undefined, fn: () => Promise<T>, opts: { firstStepLocal?: boolean } = {}): Promise<T | OperationOutcome> =>
    mutex.runExclusive(async () => {
      // The run's first activity tells it which repository and state it describes; operations wait
      // for that so the memo and search attributes they write are complete.
      // (Not awaited when already started: each workflow promise costs a captured stack trace.)
      if (!started) await condition(() => started);
      operations++;
      running = lastOperation = name;
      lastRequestId = requestId ?? '';
      if (!opts.firstStepLocal) describe();
      log.info('operation started', { operation: name, requestId: lastRequestId, updateId: currentUpdateInfo()?.id ?? null });
      try {
        return await fn();
      } catch (err) {
        const cause = activityFailureCause(err);
        if (!cause) throw err;
        // An activity's typed refusal carries its HTTP status (workers/activities.ts); anything else is a 500.
        const status = cause instanceof ApplicationFailure && typeof cause.details?.[0] === 'number' ? cause.details[0] : 500;
        log.error('operation failed', { operation: name, requestId: lastRequestId, status, error: cause.message });
        return { status, body: { message: status === 500 ? `${name} failed: ${cause.message}` : cause.message } };
      } finally {
        running = '';
        // An operation that moved a branch is described once the move is announced: the
        // announcement is the next workflow task anyway, and this one answers the caller sooner
        // without the two upserts.
        if (announcements.length === 0) describe();
      }
    });
  // Before revision 2 an operation also described itself just before it ended, in the same
  // workflow task as the description it ends with: two search attribute and memo upserts for one.
  const describeUnlessEnding = () => {
    if (revision < 2) describe();
  };
  const updateId = () => currentUpdateInfo()?.id ?? `${workflowInfo().runId}/${operations}`;

  const finishMerge = async (deleteBranch: boolean | undefined, doerId: number): Promise<OperationOutcome> => {
    state = 'merged';
    finished = true;
    autoMerge = null;
    // (The operation describes itself when it ends; before that only if another activity comes first.)
    if (deleteBranch) describe();
    if (deleteBranch) {
      const deleted = await gitWork.deleteMergedHeadBranch(key, doerId);
      if (deleted.status >= 400) return deleted;
    }
    return { status: 200 };
  };

  setHandler(pingUpdate, (request) =>
    operation('ping', request.requestId, async () => {
      const summary = await records.loadPullSummary(key);
      return { status: 200, body: { workflowId: workflowInfo().workflowId, operations, summary } };
    }),
  );

  setHandler(mergeUpdate, (request: MergeRequest) =>
    operation(request.mergeWhenChecksSucceed ? 'schedule auto-merge' : `merge (${request.style || 'merge'})`, request.requestId, async () => {
      const id = updateId();
      if (request.mergeWhenChecksSucceed && autoMerge) {
        const summary = await records.loadPullSummary(key);
        return { status: 409, body: { message: `pull request is already scheduled to auto merge when checks succeed [pull_id: ${summary.pullId}]` } };
      }
      const scheduleOf = (): AutoMergeSchedule => ({
        doerId: request.doerId, style: (request.style || 'merge') as MergeStyle, title: request.title, message: request.message,
        deleteBranchAfterMerge: request.deleteBranchAfterMerge ?? false, scheduledAt: new Date().toISOString(),
      });
      // From revision 2 the merge activity records the schedule itself when it has to wait: no
      // activity of its own, and the caller is answered in the merge's workflow task.
      const scheduleIfWaiting = request.mergeWhenChecksSucceed && revision >= 2 ? scheduleOf() : undefined;
      const outcome = await mergeWork.mergePullRequest(key, { ...request, operationId: id, scheduleIfWaiting });
      if (outcome.status === 200) {
        announceLater(outcome.moved);
        return finishMerge(outcome.deleteBranch, request.doerId);
      }
      if (request.mergeWhenChecksSucceed && outcome.waiting) {
        const schedule = scheduleIfWaiting ?? scheduleOf();
        if (!outcome.scheduled) await records.recordAutoMergeScheduled(key, schedule);
        autoMerge = schedule;
        describeUnlessEnding();
        return { status: 201 };
      }
      return { status: outcome.status, body: outcome.body };
    }, { firstStepLocal: true }),
  { validator: (request: MergeRequest) => {
    if (request.style && !MERGE_STYLES.includes(request.style)) throw new Error(`unknown merge style ${request.style}`);
  } });

  setHandler(cancelAutoMergeUpdate, (request) =>
    operation('cancel auto-merge', request.requestId, async () => {
      if (!autoMerge) return { status: 404, body: { message: 'no auto merge is scheduled for this pull request' } };
      const allowed = await records.mayCancelAutoMerge(key, request.doerId, autoMerge.doerId);
      if (allowed.status !== 204) return allowed;
      await records.recordAutoMergeCancelled(key, request.doerId, 'cancelled');
      autoMerge = null;
      autoMergeDue = false;
      describeUnlessEnding();
      return { status: 204 };
    }),
  );

  setHandler(updateBranchUpdate, (request) =>
    operation(`update (${request.style})`, request.requestId, async () => {
      const outcome = await gitWork.updatePullBranch(key, request);
      if (outcome.status === 200) {
        staleNow();
        announceLater(outcome.moved);
      }
      return { status: outcome.status, body: outcome.body };
    }),
  );

  setHandler(setStateUpdate, (request) =>
    operation(`set state ${request.state}`, request.requestId, async () => {
      const outcome = await records.setPullState(key, request);
      if (outcome.status < 300) {
        state = request.state;
        if (request.state === 'open') finished = false;
        if (request.state === 'closed' && autoMerge) {
          await records.recordAutoMergeCancelled(key, request.doerId, 'closed');
          autoMerge = null;
        }
        staleNow();
        describeUnlessEnding();
      }
      return outcome;
    }),
  );

  setHandler(changeBaseUpdate, (request) =>
    operation(`change base to ${request.base}`, request.requestId, async () => {
      const outcome = await records.changePullBase(key, request);
      if (outcome.status < 300) staleNow();
      return outcome;
    }),
  );

  // Deleting ends the run: nothing is left to merge, refresh or announce.
  setHandler(deleteUpdate, (request) =>
    operation('delete', request.requestId, async () => {
      const outcome = await records.deletePullRequest(key, request);
      if (outcome.status < 300) {
        state = 'deleted';
        autoMerge = null;
        autoMergeDue = false;
        finished = true;
      }
      return outcome;
    }),
  );

  setHandler(headChangedSignal, () => {
    staleNow();
    autoMergeDue = autoMerge !== null;
  });
  // A base move changes none of what a waiting auto-merge waits for (checks and approvals of the
  // head): it only makes the mergeability check stale. Auto-merges due together land as one chain.
  setHandler(baseChangedSignal, () => {
    mergeabilityStale = true;
  });
  // Statuses are evaluated against the current head inside the merge activity: a status for an
  // older head never satisfies a required check.
  setHandler(checksChangedSignal, () => {
    autoMergeDue = autoMerge !== null;
  });
  setHandler(reviewsChangedSignal, () => {
    autoMergeDue = autoMerge !== null;
  });
  setHandler(viewQuery, () => ({ key, operations, lastOperation, autoMerge, mergeabilityStale }));

  /** Runs a scheduled auto-merge as the user who scheduled it; cancels it when waiting cannot help. */
  const tryAutoMerge = () =>
    operation('auto-merge attempt', undefined, async () => {
      if (!autoMerge) return;
      const schedule = autoMerge;
      const outcome = await mergeWork.mergePullRequest(key, {
        doerId: schedule.doerId, style: schedule.style, title: schedule.title, message: schedule.message, mergeCommitId: '', headCommitId: '',
        mergeWhenChecksSucceed: true, forceMerge: false, deleteBranchAfterMerge: schedule.deleteBranchAfterMerge, landTogether: true,
        operationId: `${workflowInfo().workflowId}/auto/${schedule.scheduledAt}`, requestId: `auto-merge/${schedule.scheduledAt}`,
      });
      if (outcome.status === 200) {
        announceLater(outcome.moved, true);
        await finishMerge(outcome.deleteBranch, schedule.doerId);
        endedByAutoMerge = revision >= 1;
        return;
      }
      const message = (outcome.body as { message?: string } | undefined)?.message ?? `status ${outcome.status}`;
      if (outcome.waiting) {
        await records.recordAutoMergeError(key, message);
        return;
      }
      await records.recordAutoMergeCancelled(key, null, message || 'the pull request can no longer be merged');
      autoMerge = null;
      describeUnlessEnding();
    }, { firstStepLocal: true });

  /** Tells the other pull requests about the branches operations moved, one operation at a time. */
  const announce = async () => {
    while (announcements.length > 0) {
      const { move, unwatched } = announcements[0]!;
      try {
        await mutex.runExclusive(() => (unwatched ? localRecords : records).announceBranchMoved(move));
      } catch (err) {
        const cause = activityFailureCause(err);
        if (!cause) throw err;
        // Out of retries: those pull requests check again on their next event.
        log.warn('branch move not announced', { ...move, error: cause.message });
      }
      announcements.shift();
    }
    describe();
  };

  // From revision 2 a run told at once that its head moved (a new pull request) checks its
  // mergeability in its first activity, with the summary: one activity and workflow task fewer.
  const checkFirst = revision >= 2 && mergeabilityStale && refreshAtOnce;
  if (checkFirst) mergeabilityStale = refreshAtOnce = false;
  const summary = checkFirst ? await gitWork.loadPullSummary(key, { refreshMergeability: true }) : await records.loadPullSummary(key);
  repository = summary.repository;
  if (summary.refreshed === null && !autoMerge) finished = true; // merged or closed meanwhile
  if (checkFirst && autoMerge) autoMergeDue = true;
  // A run started for a pull request deleted meanwhile answers its operation (404) and ends.
  if (!summary.exists) {
    state = 'deleted';
    finished = true;
  } else if (summary.hasMerged || summary.isClosed) {
    state = summary.hasMerged ? 'merged' : 'closed';
    finished = autoMerge === null;
  }
  started = true;
  describe();

  // A lingering run wakes for an operation (or a reopen). From revision 1 not for a signal: a
  // merged or closed pull request has nothing to do for one, and each woke it and restarted its
  // linger timer (a signal's handler counts as unfinished while the condition is checked).
  const lingerWoken = revision >= 1 ? () => !finished || mutex.locked : () => !finished || !allHandlersFinished();
  // What the last operations moved is told before the run ends, lingers or continues as new.
  const settle = async () => {
    await condition(allHandlersFinished);
    while (announcements.length > 0) {
      await announce();
      await condition(allHandlersFinished);
    }
  };
  for (;;) {
    while (!finished && !historyTooLong()) {
      await condition(() => finished || mergeabilityStale || autoMergeDue || announcements.length > 0 || historyTooLong());
      if (finished) break;
      if (announcements.length > 0) await announce();
      if (mergeabilityStale && !refreshAtOnce) {
        await condition(() => refreshAtOnce || finished || autoMergeDue, BASE_SETTLE);
        if (finished) break;
      }
      // An auto-merge that is due goes first: the merge itself proves the pull request mergeable.
      if (mergeabilityStale && !(autoMergeDue && autoMerge)) {
        const baseOnly = !refreshAtOnce;
        mergeabilityStale = false;
        refreshAtOnce = false;
        const result = await mutex.runExclusive(() => gitWork.refreshMergeability(key, baseOnly ? { baseOnly } : undefined));
        if (result?.deferMs !== undefined) {
          // The base is still moving (a burst of merges): check once it is quiet, waiting four
          // times longer each time it is not, so a long burst costs a few cheap activities, not many checks.
          deferrals++;
          mergeabilityStale = true;
          await condition(() => refreshAtOnce || finished || autoMergeDue, Math.min(Math.max(result.deferMs, 500) * 4 ** deferrals, MAX_DEFERRAL_MS));
        } else {
          deferrals = 0;
          if (result === null && !autoMerge) finished = true; // merged or closed meanwhile
          if (autoMerge && !baseOnly) autoMergeDue = true;
        }
      }
      if (autoMergeDue && autoMerge) {
        autoMergeDue = false;
        await tryAutoMerge();
      }
      if (state === 'closed' && !autoMerge && mutex.locked === false) finished = true;
    }
    await settle();
    if (!finished) break;
    if (endedByAutoMerge && revision >= 3) return;
    // Merged or closed: the run lingers while operations keep arriving (the rest of a burst that
    // raced the one that ended it), so they are answered here instead of each starting a run; a
    // reopen takes it back to the loop above.
    if (historyTooLong() || !(await condition(lingerWoken, endedByAutoMerge ? AFTER_AUTO_MERGE : LINGER))) return;
  }
  await continueAsNew<typeof pullRequestWorkflow>({
    key, revision: PULL_WORKFLOW_REVISION, historyEventLimit: input.historyEventLimit, carried: { operations, autoMerge, mergeabilityStale, lastOperation, lastRequestId },
  });
}

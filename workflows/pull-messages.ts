// Messages of the per-pull-request workflow, shared by the workflow and its callers (types plus
// Temporal's message definitions, so both sides agree on names and shapes).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

export interface PullKey {
  repoId: number;
  index: number;
}

/** What an update answers: the HTTP status and body the route returns. */
export interface OperationOutcome {
  status: number;
  body?: unknown;
}

export type MergeStyle = 'merge' | 'rebase' | 'rebase-merge' | 'squash' | 'fast-forward-only' | 'manually-merged';

/** What every operation carries: who asks, and the API request it came from (logs and memo name it). */
export interface OperationRequest {
  doerId: number;
  /** The HTTP request id (`X-Request-Id`), so one request can be followed into the workflow and its activities. */
  requestId?: string;
}

export interface MergeRequest extends OperationRequest {
  /** Empty means the plain merge style. */
  style: MergeStyle | '';
  title: string;
  message: string;
  mergeCommitId: string;
  headCommitId: string;
  mergeWhenChecksSucceed: boolean;
  forceMerge: boolean;
  /** null: the repository's default_delete_branch_after_merge. */
  deleteBranchAfterMerge: boolean | null;
  /**
   * Where the route found the pull request, when its head is in the base repository: the merge
   * reads the references there while it loads the rows (and drops them if the rows disagree).
   */
  where?: { owner: string; repo: string; baseBranch: string; headBranch: string };
}

/**
 * A branch an operation moved (a merge its base, an update its head): once the operation has
 * answered, the workflow tells the other pull requests from or into that branch.
 */
export interface BranchMove {
  repoId: number;
  branch: string;
  sha: string;
}

/** A merge activity's answer: an outcome, plus what the workflow needs to decide what comes next. */
export interface MergeOutcome extends OperationOutcome {
  /** The base branch the merge moved. */
  moved?: BranchMove;
  /** The refusal is one that more waiting may lift (pending checks, missing approvals). */
  waiting?: boolean;
  /** The head branch should be deleted now that the merge is done. */
  deleteBranch?: boolean;
  /** The refusal was one to wait on, and the activity recorded the auto-merge it was asked to schedule. */
  scheduled?: boolean;
}

export interface MergeOperation extends MergeRequest {
  /** The workflow update id: recorded in the merge journal so a retry recognises its own merge. */
  operationId: string;
  /**
   * A scheduled auto-merge that is due: it lands with the others due into the same base (one chain,
   * one compare-and-swap), with no mergeability check first (core/pulls/auto-merge-landing.ts).
   */
  landTogether?: boolean;
  /**
   * The auto-merge to record as scheduled when the merge has to wait (a pending check, a missing
   * approval): the activity records it instead of leaving it to an activity of its own.
   */
  scheduleIfWaiting?: AutoMergeSchedule;
}

export interface UpdateBranchRequest extends OperationRequest {
  style: 'merge' | 'rebase';
}

/** An update activity's answer: the head branch it moved, when it succeeded. */
export interface UpdateBranchOutcome extends OperationOutcome {
  moved?: BranchMove;
}

export interface CancelAutoMergeRequest extends OperationRequest {
}

export interface SetStateRequest extends OperationRequest {
  state: 'open' | 'closed';
}

export interface ChangeBaseRequest extends OperationRequest {
  base: string;
}

export interface DeletePullRequest extends OperationRequest {
}

export interface PingRequest {
  requestId?: string;
}

/** The scheduled auto-merge, kept in the workflow and mirrored to pull_auto_merges. */
export interface AutoMergeSchedule {
  doerId: number;
  style: MergeStyle;
  title: string;
  message: string;
  deleteBranchAfterMerge: boolean;
  scheduledAt: string;
}

export interface PullWorkflowView {
  key: PullKey;
  operations: number;
  lastOperation: string;
  autoMerge: AutoMergeSchedule | null;
  mergeabilityStale: boolean;
}

/**
 * The workflow code revision new runs start under. A path added after recorded histories exist
 * checks the run's revision, so those histories replay on the path they took (test/merge/replay.test.ts);
 * unlike patched(), this costs a run no marker event and no search-attribute upsert.
 *   1: an auto-merge announces its base move as a local activity, and its run ends a 1 ms timer
 *      after the merge instead of lingering; a signal does not wake a lingering run.
 *   2: scheduling an auto-merge records it inside the merge activity (no recordAutoMergeScheduled
 *      activity), and an operation no longer describes itself just before the description it ends with;
 *      a run that starts with its head moved checks mergeability in its first activity, with the summary.
 *   3: a run its auto-merge ended ends in the merge's own workflow task, without the 1 ms timer.
 */
export const PULL_WORKFLOW_REVISION = 3;

export interface PullWorkflowInput {
  key: PullKey;
  /** The code revision the run started under (absent: 0, runs started before revisions). */
  revision?: number;
  /** Continue as new after this many history events (default in workflows/pull.ts). */
  historyEventLimit?: number;
  /** State carried across continue-as-new. */
  carried?: {
    operations: number;
    autoMerge: AutoMergeSchedule | null;
    mergeabilityStale: boolean;
    lastOperation?: string;
    lastRequestId?: string;
  };
}

export const pingUpdate = defineUpdate<OperationOutcome, [PingRequest]>('ping');
export const mergeUpdate = defineUpdate<OperationOutcome, [MergeRequest]>('merge');
export const updateBranchUpdate = defineUpdate<OperationOutcome, [UpdateBranchRequest]>('update');
export const cancelAutoMergeUpdate = defineUpdate<OperationOutcome, [CancelAutoMergeRequest]>('cancelAutoMerge');
export const setStateUpdate = defineUpdate<OperationOutcome, [SetStateRequest]>('setState');
export const changeBaseUpdate = defineUpdate<OperationOutcome, [ChangeBaseRequest]>('changeBase');
export const deleteUpdate = defineUpdate<OperationOutcome, [DeletePullRequest]>('delete');

export const headChangedSignal = defineSignal<[string]>('headChanged');
export const baseChangedSignal = defineSignal<[string]>('baseChanged');
export const checksChangedSignal = defineSignal<[string]>('checksChanged');
export const reviewsChangedSignal = defineSignal<[]>('reviewsChanged');
export const viewQuery = defineQuery<PullWorkflowView>('view');

/** `prefix` is the installation's TEMPORAL_WORKFLOW_ID_PREFIX. */
export function pullWorkflowId(key: PullKey, prefix = ''): string {
  return `${prefix}pull/${key.repoId}/${key.index}`;
}

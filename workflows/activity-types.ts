// The activities the pull request workflow calls; implemented in workers/activities.ts.
import type {
  AutoMergeSchedule, BranchMove, ChangeBaseRequest, DeletePullRequest, MergeOperation, MergeOutcome, OperationOutcome, PullKey, SetStateRequest, UpdateBranchOutcome,
  UpdateBranchRequest,
} from './pull-messages.js';

export interface PullSummary {
  exists: boolean;
  /** The pull request's database id (Gitea names it in the "already scheduled" message). */
  pullId: number;
  /** owner/name of the base repository, for the workflow's search attributes. */
  repository: string;
  isClosed: boolean;
  hasMerged: boolean;
  /** The mergeability check run with it, when asked for one and the pull request is open (null: it closed or merged meanwhile). */
  refreshed?: MergeabilitySummary | null;
}

export interface MergeabilitySummary {
  status: string;
  headSha: string;
  /** Not checked: the base is still moving (asked with baseOnly); ask again after this many ms. */
  deferMs?: number;
}

export interface PullActivities {
  /** refreshMergeability: also check mergeability (a new run's first check, in its first activity). */
  loadPullSummary(key: PullKey, opts?: { refreshMergeability?: boolean }): Promise<PullSummary>;
  /** baseOnly: only the base moved since the last check, which waits while the base keeps moving. */
  refreshMergeability(key: PullKey, opts?: { baseOnly?: boolean }): Promise<MergeabilitySummary | null>;
  mergePullRequest(key: PullKey, op: MergeOperation): Promise<MergeOutcome>;
  deleteMergedHeadBranch(key: PullKey, doerId: number): Promise<OperationOutcome>;
  updatePullBranch(key: PullKey, request: UpdateBranchRequest): Promise<UpdateBranchOutcome>;
  /** Tells the open pull requests from or into a branch that it moved (see core/push.ts branchMoved). */
  announceBranchMoved(move: BranchMove): Promise<void>;
  setPullState(key: PullKey, request: SetStateRequest): Promise<OperationOutcome>;
  changePullBase(key: PullKey, request: ChangeBaseRequest): Promise<OperationOutcome>;
  /** Deletes the pull request's rows and head ref; 204 also when it is already gone. */
  deletePullRequest(key: PullKey, request: DeletePullRequest): Promise<OperationOutcome>;
  recordAutoMergeScheduled(key: PullKey, schedule: AutoMergeSchedule): Promise<void>;
  recordAutoMergeCancelled(key: PullKey, doerId: number | null, reason: string): Promise<void>;
  recordAutoMergeError(key: PullKey, message: string): Promise<void>;
  mayCancelAutoMerge(key: PullKey, doerId: number, scheduledBy: number): Promise<OperationOutcome>;
}

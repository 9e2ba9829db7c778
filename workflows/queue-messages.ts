// Messages of the merge queue workflow (one per protected branch with the queue on, id
// queue/<repo id>/<branch>), shared by the workflow, its activities and its callers.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OperationOutcome } from './pull-messages.js';

export interface QueueKey {
  repoId: number;
  branch: string;
}

export type QueueEntryState = 'waiting' | 'building' | 'pending' | 'landing' | 'failed';

/** One pull request in the queue, as the workflow keeps it. */
export interface QueueEntry {
  index: number;
  pullId: number;
  doerId: number;
  headSha: string;
  queuedAt: string;
  state: QueueEntryState;
  /** The batch it is checked and landed with (0: not in one yet). */
  batch: number;
  /** The speculative commit: the base after every entry up to and including this one. */
  commit: string;
  /** The commit `commit` was built on (the base, or the entry ahead's commit). */
  builtOn: string;
  /** Merge base of `builtOn` and the head (the merged pull request keeps it). */
  mergeBase: string;
  /** The queue branch CI sees, for the last entry of a batch that is being checked. */
  branch: string;
  /** When its batch's checks started (workflow time, ms). */
  checksSince: number;
  checks: CheckSeen[];
}

export interface CheckSeen {
  context: string;
  state: string;
}

export interface JoinRequest {
  index: number;
  doerId: number;
  requestId?: string;
}

export interface LeaveRequest {
  index: number;
  doerId: number;
  requestId?: string;
}

/** What the queue's settings say (read from the branch protection on every round). */
export interface QueueSettings {
  enabled: boolean;
  style: 'merge' | 'squash' | 'rebase' | 'rebase-merge';
  depth: number;
  maxBatch: number;
  batchWaitSeconds: number;
  checkTimeoutSeconds: number;
  requiredContexts: string[];
}

/** A speculative build's result for one entry: its commit, or why it cannot be built. */
export interface BuiltEntry {
  index: number;
  commit: string | null;
  builtOn: string;
  mergeBase: string;
  /** Set when the entry conflicts with the base plus the entries ahead of it. */
  conflict?: string;
}

export type ChecksVerdict = { state: 'success' | 'pending' | 'failure'; message: string; checks: CheckSeen[] };

/** What one round reads: the base, the entries no longer fit to stay, the settings and the checks. */
export interface QueueSurvey {
  baseSha: string | null;
  settings: QueueSettings;
  removals: Array<{ index: number; reason: string }>;
  verdicts: Record<string, ChecksVerdict>;
}

export type LandResult = { landed: true } | { landed: false; reason: string };

export interface QueueWorkflowInput {
  key: QueueKey;
  historyEventLimit?: number;
  carried?: { entries: QueueEntry[]; nextBatch: number; failedCommits: string[]; landed: number; ejected: number };
}

export interface QueueView {
  entries: QueueEntry[];
  baseSha: string;
  landed: number;
  ejected: number;
}

export const joinQueueUpdate = defineUpdate<OperationOutcome, [JoinRequest]>('join');
export const leaveQueueUpdate = defineUpdate<OperationOutcome, [LeaveRequest]>('leave');
/** Something the queue depends on changed (a status, a head or base push, a close, a retarget). */
export const queueNudgeSignal = defineSignal<[string]>('nudge');
export const queueViewQuery = defineQuery<QueueView>('view');

export function queueWorkflowId(key: QueueKey, prefix = ''): string {
  return `${prefix}queue/${key.repoId}/${key.branch}`;
}

/** `merge-queue/<base>/pr-<index>-<short head>`: the branch a speculative commit is checked on. */
export function queueBranchName(base: string, index: number, headSha: string): string {
  return `merge-queue/${base}/pr-${index}-${headSha.slice(0, 8)}`;
}

/** The pull request index a queue branch (or its full reference) was named after; 0 for any other name. */
export function queueBranchIndex(name: string): number {
  return Number(/\/pr-(\d+)-[0-9a-f]+$/.exec(name)?.[1] ?? 0);
}

// The activities the merge queue workflow calls; implemented in workers/queue-activities.ts.
import type { OperationOutcome } from './pull-messages.js';
import type { BuiltEntry, JoinRequest, LandResult, QueueEntry, QueueKey, QueueSettings, QueueSurvey } from './queue-messages.js';

export interface LandingMember {
  index: number;
  pullId: number;
  commit: string;
  builtOn: string;
  mergeBase: string;
}

export interface QueueActivities {
  admitToQueue(key: QueueKey, req: JoinRequest, position: number): Promise<OperationOutcome & { headSha?: string; pullId?: number }>;
  mayLeaveQueue(key: QueueKey, index: number, doerId: number, queuedBy: number): Promise<OperationOutcome>;
  removeFromQueue(key: QueueKey, index: number, doerId: number | null, reason: string): Promise<void>;
  surveyQueue(key: QueueKey, entries: Array<{ index: number; headSha: string }>, commits: string[]): Promise<QueueSurvey>;
  buildSpeculative(key: QueueKey, req: { base: string; style: QueueSettings['style']; date: string; entries: Array<{ index: number; headSha: string; doerId: number }> }): Promise<BuiltEntry[]>;
  /** Mirrors the entries to the database and makes the queue branches exactly `branches` (name → commit). */
  publishQueue(key: QueueKey, entries: QueueEntry[], branches: Record<string, string>): Promise<void>;
  landBatch(key: QueueKey, base: string, members: LandingMember[]): Promise<LandResult>;
  /** Marks a landed entry merged through its pull request's own workflow (exactly once by the update id). */
  markLanded(key: QueueKey, tip: string, member: { index: number; doerId: number; style: QueueSettings['style'] }): Promise<OperationOutcome>;
}

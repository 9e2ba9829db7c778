// Messages of the per-pull-request workflow, shared by the workflow and its callers (types only
// plus Temporal's message definitions, so both sides agree on names and shapes).
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

export interface PingRequest {
  requestId: string;
}

export interface PullWorkflowView {
  key: PullKey;
  operations: number;
  lastOperation: string;
}

export interface PullWorkflowInput {
  key: PullKey;
  /** State carried across continue-as-new. */
  carried?: { operations: number };
}

export const pingUpdate = defineUpdate<OperationOutcome, [PingRequest]>('ping');
export const headChangedSignal = defineSignal<[string]>('headChanged');
export const baseChangedSignal = defineSignal<[string]>('baseChanged');
export const checksChangedSignal = defineSignal<[string]>('checksChanged');
export const reviewsChangedSignal = defineSignal<[]>('reviewsChanged');
export const viewQuery = defineQuery<PullWorkflowView>('view');

export function pullWorkflowId(key: PullKey): string {
  return `pull/${key.repoId}/${key.index}`;
}

// Messages of the webhook workflows (the dispatcher and one delivery workflow per hook), shared by
// the workflows, their activities and their callers.
import { defineSearchAttributeKey } from '@temporalio/common';
import { defineSignal } from '@temporalio/workflow';

/** Something may be waiting: new events for the dispatcher, new or due deliveries for a hook. */
export const wakeSignal = defineSignal('wake');

/** The Temporal UI finds a hook's delivery workflow by these (e.g. `WebhookId = 7`). */
export const webhookIdKey = defineSearchAttributeKey('WebhookId', 'INT');
/** `owner/repo` for a repository's hook, the organization's name for an organization's. */
export const webhookOwnerKey = defineSearchAttributeKey('WebhookOwner', 'KEYWORD');
export const WEBHOOK_SEARCH_ATTRIBUTE_KEYS = [webhookIdKey, webhookOwnerKey] as const;

export interface DispatcherInput {
  /** The task queue of the webhook activities (slow receivers never hold the pull requests' slots). */
  activityQueue: string;
}

export interface DeliveryWorkflowInput {
  hookId: number;
  activityQueue: string;
}

export function dispatcherWorkflowId(prefix: string): string {
  return `${prefix}webhooks/dispatch`;
}

export function deliveryWorkflowId(prefix: string, hookId: number): string {
  return `${prefix}webhook/${hookId}`;
}

/** The task queue of the webhook activities for a worker's task queue. */
export function webhookActivityQueue(taskQueue: string): string {
  return `${taskQueue}-webhooks`;
}

export interface DispatchRound {
  /** No hook exists any more: the dispatcher may finish (creating one starts it again). */
  noHooks: boolean;
}

export interface DeliveryRound {
  /** The hook was deleted: its workflow ends. */
  hookGone: boolean;
  /** The round stopped on its time budget with deliveries still due. */
  more: boolean;
  /** When the next pending delivery falls due (epoch ms); null when none is pending. */
  nextDueMs: number | null;
  /** For the Temporal UI: what the hook is and how its deliveries went. */
  memo: { target: string; owner: string; pending: number; lastDelivery: string; lastOutcome: string };
}

export interface WebhookActivities {
  /** Dispatches recorded events for a while (polling the outbox, woken at once by this process's commits). */
  dispatchEvents(): Promise<DispatchRound>;
  /** Delivers the hook's due deliveries in order, until one must wait or the round's budget is spent. */
  deliverPending(hookId: number): Promise<DeliveryRound>;
}

// Callers of the webhook workflows: the API (a hook created starts the dispatcher; a test delivery or
// a redelivery wakes the hook's workflow) and the dispatch activity (new deliveries wake theirs).
import type { Client } from '@temporalio/client';
import { webhookDeliveryWorkflow } from '../workflows/webhook-delivery.js';
import { webhookDispatchWorkflow } from '../workflows/webhook-dispatch.js';
import { deliveryWorkflowId, dispatcherWorkflowId, wakeSignal, webhookActivityQueue } from '../workflows/webhook-messages.js';

export interface WebhookWorkflowSettings {
  /** TEMPORAL_TASK_QUEUE: the workflows run there, their activities on its `-webhooks` queue. */
  TEMPORAL_TASK_QUEUE: string;
  TEMPORAL_WORKFLOW_ID_PREFIX: string;
}

export class WebhookWorkflows {
  constructor(private readonly client: Client, private readonly settings: WebhookWorkflowSettings) {}

  private get activityQueue(): string {
    return webhookActivityQueue(this.settings.TEMPORAL_TASK_QUEUE);
  }

  /** Starts the dispatcher unless it runs. */
  async startDispatcher(): Promise<void> {
    await this.client.workflow.start(webhookDispatchWorkflow, {
      workflowId: dispatcherWorkflowId(this.settings.TEMPORAL_WORKFLOW_ID_PREFIX),
      taskQueue: this.settings.TEMPORAL_TASK_QUEUE,
      args: [{ activityQueue: this.activityQueue }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  }

  /** Tells the hook's delivery workflow (started if needed) that deliveries wait. */
  async wakeHook(hookId: number): Promise<void> {
    await this.client.workflow.signalWithStart(webhookDeliveryWorkflow, {
      workflowId: deliveryWorkflowId(this.settings.TEMPORAL_WORKFLOW_ID_PREFIX, hookId),
      taskQueue: this.settings.TEMPORAL_TASK_QUEUE,
      args: [{ hookId, activityQueue: this.activityQueue }],
      signal: wakeSignal,
      signalArgs: [],
      memo: { hookId },
    });
  }
}

// The webhook dispatcher: one workflow per installation that runs the dispatch activity again and
// again (each run polls the outbox for a while), so recorded events become deliveries even after a
// worker dies (the activity is retried elsewhere). It ends when no hook exists; creating a hook
// starts it again.
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { DispatcherInput, WebhookActivities } from './webhook-messages.js';

const ROUNDS_PER_RUN = 100;

export async function webhookDispatchWorkflow(input: DispatcherInput): Promise<void> {
  const { dispatchEvents } = proxyActivities<WebhookActivities>({
    taskQueue: input.activityQueue,
    startToCloseTimeout: '10 minutes',
    // Its heartbeats come every second: a dead worker's round is taken over within this.
    heartbeatTimeout: '8 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  for (let round = 0; round < ROUNDS_PER_RUN && !workflowInfo().continueAsNewSuggested; round++) {
    const result = await dispatchEvents();
    if (result.noHooks) return;
  }
  await continueAsNew<typeof webhookDispatchWorkflow>(input);
}

// One workflow per hook: delivers the hook's deliveries in the order their events happened, one at
// a time, waiting (a durable timer) until a failed one is due again; woken by new deliveries. A slow
// or dead receiver holds up only its own hook. It ends after a quiet while and is started again by
// the next delivery; a deleted hook ends it.
import { condition, continueAsNew, proxyActivities, setHandler, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { wakeSignal, webhookIdKey, webhookOwnerKey, type DeliveryWorkflowInput, type WebhookActivities } from './webhook-messages.js';

const ROUNDS_PER_RUN = 200;
/** How long a hook's workflow stays after its last delivery. */
const IDLE_MS = 10 * 60 * 1000;

export async function webhookDeliveryWorkflow(input: DeliveryWorkflowInput): Promise<void> {
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  const { deliverPending } = proxyActivities<WebhookActivities>({
    taskQueue: input.activityQueue,
    startToCloseTimeout: '15 minutes',
    // Its heartbeats come every second: a dead worker's delivery is taken over within this.
    heartbeatTimeout: '8 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  let described = false;
  // Each memo write is a history event and a visibility update: only what changed is written.
  const written: Record<string, unknown> = {};
  for (let round = 0; round < ROUNDS_PER_RUN && !workflowInfo().continueAsNewSuggested; round++) {
    woken = false;
    const result = await deliverPending(input.hookId);
    if (result.hookGone) return;
    if (!described) {
      upsertSearchAttributes([{ key: webhookIdKey, value: input.hookId }, { key: webhookOwnerKey, value: result.memo.owner }]);
      described = true;
    }
    const changed = Object.entries(result.memo).filter(([name, value]) => written[name] !== value);
    if (changed.length > 0) {
      upsertMemo(Object.fromEntries(changed));
      for (const [name, value] of changed) written[name] = value;
    }
    if (result.more) continue;
    const wait = result.nextDueMs === null ? IDLE_MS : Math.max(result.nextDueMs - Date.now(), 1);
    const signalled = await condition(() => woken, wait);
    if (!signalled && result.nextDueMs === null) return;
  }
  await continueAsNew<typeof webhookDeliveryWorkflow>(input);
}

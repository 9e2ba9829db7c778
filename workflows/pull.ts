// The per-pull-request workflow: one run per pull request, taking one operation at a time.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { PullActivities } from './activity-types.js';
import { Mutex } from './mutex.js';
import {
  baseChangedSignal,
  checksChangedSignal,
  headChangedSignal,
  pingUpdate,
  reviewsChangedSignal,
  viewQuery,
  type PullWorkflowInput,
} from './pull-messages.js';

const activities = proxyActivities<PullActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

export async function pullRequestWorkflow(input: PullWorkflowInput): Promise<void> {
  const mutex = new Mutex();
  let operations = input.carried?.operations ?? 0;
  let lastOperation = '';
  let finished = false;
  let mergeabilityStale = false; // read by the merge operations

  upsertMemo({ repoId: input.key.repoId, index: input.key.index });

  setHandler(pingUpdate, (request) =>
    mutex.runExclusive(async () => {
      operations++;
      lastOperation = `ping ${request.requestId}`;
      const summary = await activities.loadPullSummary(input.key);
      finished = !summary.exists || summary.isClosed || summary.hasMerged;
      return { status: 200, body: { workflowId: workflowInfo().workflowId, operations, summary } };
    }),
  );

  const markStale = () => {
    mergeabilityStale = true;
  };
  setHandler(headChangedSignal, markStale);
  setHandler(baseChangedSignal, markStale);
  setHandler(checksChangedSignal, markStale);
  setHandler(reviewsChangedSignal, markStale);
  setHandler(viewQuery, () => ({ key: input.key, operations, lastOperation }));

  await condition(() => finished || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  if (finished) return;
  await continueAsNew<typeof pullRequestWorkflow>({ key: input.key, carried: { operations } });
}

// Entry point for the Temporal bundler: every workflow the worker runs.
export { pullRequestWorkflow } from './pull.js';
export { webhookDispatchWorkflow } from './webhook-dispatch.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
export { mergeQueueWorkflow } from './queue.js';

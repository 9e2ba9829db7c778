// Activity options the workflows share.
import type { ActivityOptions } from '@temporalio/workflow';

/** Reads and small writes: quick, retried on infrastructure errors. */
export const RECORD_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 20 },
};

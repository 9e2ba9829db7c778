// The pull request workflow's handles on its activities, by how each kind of work runs.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { PullActivities } from './activity-types.js';
import { RECORD_ACTIVITY_OPTIONS } from './activity-options.js';

export const records = proxyActivities<PullActivities>(RECORD_ACTIVITY_OPTIONS);

// Git work can take longer on big repositories; the merge journal makes retries safe.
export const gitWork = proxyActivities<PullActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: 10 },
});

/**
 * The merge itself runs as a local activity: in the worker that holds the workflow task, with no
 * round trip through the server to schedule it and another to hand its result back (about a third
 * of a merge request's time here). It cannot heartbeat, so a dead worker is noticed by the workflow
 * task timeout instead and the merge runs again from the start; the merge journal makes that safe.
 */
export const mergeWork = proxyLocalActivities<PullActivities>({
  startToCloseTimeout: '10 minutes',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: 10 },
});

/**
 * An auto-merge's announcement runs as a local activity: nobody waits for that workflow task's
 * answer, so it saves the activity's round trips through the server (three events and a workflow
 * task per announcement; in a burst the pull request whose commit tops a landed chain announces it).
 * A merge request's announcement stays a normal activity, so its caller is answered before the
 * announcement runs. An auto-merge's may hold until the base is quiet, at most 20 s (core/pulls/landing/when-quiet.ts).
 * Its retries wait inside the worker only while the backoff is under two seconds (the first four,
 * about 3 s), then on a workflow timer: a worker asked to stop while its database or storage is
 * down otherwise waited out all twenty attempts (about two and a half minutes) before it stopped.
 */
export const localRecords = proxyLocalActivities<PullActivities>({ ...RECORD_ACTIVITY_OPTIONS, localRetryThreshold: '2 seconds' });

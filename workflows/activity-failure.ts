// How an activity's failure reaches workflow code. A normal activity's comes as an ActivityFailure
// wrapping what the activity threw; a local activity's (SDK 1.24) comes as that failure itself, an
// ApplicationFailure. Workflow code catching only ActivityFailure let a local activity's final
// failure fail the whole run: the pull request's workflow ended failed, with its auto-merge and
// the announcement it was making.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/** What the activity threw, when `err` is an activity's failure; null for anything else. */
export function activityFailureCause(err: unknown): Error | null {
  if (err instanceof ActivityFailure) return err.cause ?? err;
  // Workflow code throws no ApplicationFailure of its own: one here came from a local activity.
  if (err instanceof ApplicationFailure) return err;
  return null;
}

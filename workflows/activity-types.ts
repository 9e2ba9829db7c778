// The activities the pull request workflow calls; implemented in workers/activities.ts.
import type { PullKey } from './pull-messages.js';

export interface PullSummary {
  exists: boolean;
  isClosed: boolean;
  hasMerged: boolean;
}

export interface PullActivities {
  loadPullSummary(key: PullKey): Promise<PullSummary>;
}

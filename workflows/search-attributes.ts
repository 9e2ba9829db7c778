// The search attributes the pull request workflows keep, so operators find a pull request's
// workflow in the Temporal UI (e.g. `PullRepository = "alice/widgets" AND PullIndex = 7`).
import { defineSearchAttributeKey } from '@temporalio/common';

export const pullRepositoryKey = defineSearchAttributeKey('PullRepository', 'KEYWORD');
export const pullIndexKey = defineSearchAttributeKey('PullIndex', 'INT');
/** open, closed or merged. */
export const pullStateKey = defineSearchAttributeKey('PullState', 'KEYWORD');
/** The operation running now, empty between operations. */
export const pullOperationKey = defineSearchAttributeKey('PullOperation', 'KEYWORD');

export const PULL_SEARCH_ATTRIBUTE_KEYS = [pullRepositoryKey, pullIndexKey, pullStateKey, pullOperationKey] as const;

/** The merge queue workflows': `<repo id>/<branch>` and how many entries it holds. */
export const queueBranchKey = defineSearchAttributeKey('MergeQueueBranch', 'KEYWORD');
export const queueLengthKey = defineSearchAttributeKey('MergeQueueLength', 'INT');
export const QUEUE_SEARCH_ATTRIBUTE_KEYS = [queueBranchKey, queueLengthKey] as const;

// The shared landing path: how merges land on a base branch, for auto-merge and the merge queue.
// The interface below is stable; what is behind it may change.
//
//   buildChain(repoPath, base, entries, { stopAtFirstRejection? }): Promise<Chain>
//     Builds each entry's commit (pull, head commit, style, message, identities) one after another
//     on `base` in the bare repository, in one pass. Chain = { base, tip, links, rejected }: each
//     link is { entry, base it was built on, commit, mergeBase }; each rejection is { entry, base,
//     error } for a conflict (MergeConflictError), nothing to merge (EmptyMergeError), unrelated
//     histories or an impossible fast-forward. With stopAtFirstRejection the chain ends at the first
//     rejection (a merge queue: what follows was built on it); otherwise it is left out.
//
//   landChain(db, { repoPath, branch, chain, operationIds, reason? }): Promise<boolean>
//     Journals every link (pull_requests.merge_operation_id = operationIds.get(pullId),
//     pending_merge_commit = link.commit, pending_merge_base) and then moves the branch from
//     chain.base to chain.tip by ONE compare-and-swap. True: the branch is at the tip (or past it: a
//     retry). False: the branch had moved; the journals are dropped, build again on the new base.
//     Nothing is marked merged here: afterwards each pull request is marked merged through its own
//     workflow, by a merge update whose update id is the journalled operation id
//     (PullWorkflowClient.execute(key, mergeUpdate, [request], operationId)): the merge finds its
//     journal and records it exactly once, as after a crash (core/pulls/merge.ts, resumeJournalled).
//     A crash between the two is resolved the same way when that update is sent again.
//
//   landTogether(db, { repoPath, repoId, branch }, { entry, operationId }): Promise<TogetherResult>
//     Group landing for one merge that is due now: those due into the same base while a landing
//     runs land as the next chain. { landed: link, tip } | { rejected: error } | { outOfDate: true }
//     | { journalled: true } (tip: this link's commit is the chain's last; that pull request
//     announces the move. journalled: another attempt of the operation merged or journalled it
//     meanwhile; resume from the journal). One entry per pull request goes into a chain.
//     The caller (the pull request's own merge activity) records its merge (core/pulls/auto-merge-landing.ts).
//
//   announceWhenQuiet(repoId, branch, announce, { hold }): Promise<void>   — the one "base moved" path
//     Notes the move. With hold (an auto-merge's), announces it once the branch has been still for
//     QUIET_MS (no move, no landing under way in the process; at most 20 s): the first call per
//     branch in a process holds its activity until then and announces; calls meanwhile return at
//     once, left to it (it reads where the branch is then). A burst of merges is told once, after
//     it, to the pull requests still waiting, and a worker that dies holding the announcement has
//     its activity retried elsewhere. Without hold (a request's), announces now, unless one is
//     held. Announcements run through announceBranchMoved, which coalesces them per branch (one at
//     a time, >= 500 ms apart); noteBranchMoved remembers a move; baseBusyMs(repoId, branch) says
//     how long until the base has been quiet for QUIET_MS: a waiting pull request's git check
//     waits that long (workflows/pull.ts).
export { buildChain, type Chain, type ChainEntry, type ChainLink, type ChainRejection, type ChainStyle } from './chain.js';
export { baseMoveCount, landChain, type Landing } from './land.js';
export { landTogether, type LandingTarget, type TogetherRequest, type TogetherResult } from './together.js';
export { baseBusyMs, noteBranchMoved, QUIET_MS } from './base-moved.js';
export { ANNOUNCE_AT_MOST_MS, announceWhenQuiet } from './when-quiet.js';

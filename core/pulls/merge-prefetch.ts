// A merge's inputs read by the API while its update travels through Temporal to the worker (about
// 20 ms here), so the merge activity starts with them instead of reading them then. Only when this
// process runs a worker too (the default `serve`): the activity looks its operation id up here.
// The merge commit is written meanwhile too, for the branches where the stored check found them: an
// object nothing refers to until the merge moves the base branch to it (git prunes it when the
// merge does not happen), planned by the merge's own planMergeCommit and used only when the merge
// plans the very same commit.
//
// A snapshot is older than the activity by that trip. Other operations of the pull request run in
// its workflow, and every one that changes something writes the pull request's or its issue's row
// (update-branch writes the new head, close the issue, a merge its journal): the activity re-reads
// those two rows and uses the snapshot only when both are unchanged. What changes outside the
// workflow (a push, a protection rule) races the merge as it would race a read in the activity; a
// moved base fails the compare-and-swap and the merge reads afresh.
import { branchRef, commitTree, gitTimestamp, knownMergeCommit, looseRefHint, predictCommitName } from '../../git/index.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { loadPullOperationContext, loadPullRows, type KnownPullRows, type OperationDeps, type PullOperationContext } from './operation-context.js';
import { loadReadinessFacts, type ReadinessFacts } from './merge-readiness.js';
import { locationOf, readPullRefsAt, storedMergeability, type EarlyRefs } from './mergeability.js';
import { planMergeCommit } from './merge-commit.js';
import type { MergeRequest, PullKey } from '../../workflows/pull-messages.js';

export interface MergeInputs {
  ctx: PullOperationContext;
  doer: UserRow | undefined;
  /** References read before the activity needed them (see MergeRequest.where). */
  early?: EarlyRefs;
  /** Readiness facts read with the rows. */
  facts?: Promise<ReadinessFacts>;
  /** The merge commit written ahead, dated `date` (null when none could be). */
  ahead?: { date: string; commit: Promise<string | null> };
}

interface Prefetch {
  inputs: Promise<MergeInputs | null>;
  expires: number;
}

const TTL_MS = 30_000;
const MAX_PENDING = 1_000;
const prefetches = new Map<string, Prefetch>();
let localWorkers = 0;
const outcomes = { used: 0, stale: 0 };

/** How many snapshots merges used, and how many they found out of date and read afresh instead. */
export function mergePrefetchStats(): Readonly<typeof outcomes> {
  return { ...outcomes };
}

/** Called by a worker of this process when it starts (returns the matching stop). */
export function acceptMergePrefetches(): () => void {
  localWorkers++;
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    localWorkers--;
    if (localWorkers === 0) prefetches.clear();
  };
}

export async function loadMergeInputs(deps: OperationDeps, key: PullKey, doerId: number): Promise<MergeInputs> {
  const [ctx, doer] = await Promise.all([loadPullOperationContext(deps, key), usersStore(deps.db).byId(doerId)]);
  return { ctx, doer };
}

async function readAll(deps: OperationDeps, key: PullKey, doer: UserRow, known: KnownPullRows, op: MergeAhead): Promise<MergeInputs | null> {
  const ctx = await loadPullOperationContext(deps, key, known);
  const where = locationOf(ctx);
  const date = gitTimestamp();
  const refs = readPullRefsAt(where).catch(() => null);
  const facts = loadReadinessFacts(deps.db, ctx, doer);
  const commit = writeCommitAhead(deps, ctx, doer, op, date).catch(() => null);
  // Settled here, so a snapshot nobody takes never rejects unhandled.
  await Promise.allSettled([refs, facts, commit]);
  return { ctx, doer, early: { where, refs }, facts, ahead: { date, commit } };
}

type MergeAhead = Pick<MergeRequest, 'style' | 'title' | 'message'>;

/**
 * Writes the commit a merge or squash will make when the branches are still where the stored check
 * found them (as they usually are; the merge reads them and plans for where they are); null when it
 * cannot know it.
 */
async function writeCommitAhead(deps: OperationDeps, ctx: PullOperationContext, doer: UserRow, op: MergeAhead, date: string): Promise<string | null> {
  const style = op.style || 'merge';
  const { pull } = ctx;
  if (style !== 'merge' && style !== 'squash') return null;
  // A move the stored check has not seen (a push to the head; a base move that a push or a merge
  // announced, or that the base's loose reference shows) would make this commit one nobody uses:
  // not worth a git process beside the merge's.
  if (pull.recheck_requested_unix !== null || pull.head_commit_id !== pull.checked_head) return null;
  const checked = storedMergeability(ctx, { baseSha: pull.checked_base, baseTree: null, pullRefSha: null, branchSha: pull.checked_head });
  if (checked?.status !== 'mergeable') return null;
  const baseHint = await looseRefHint(ctx.basePath, branchRef(pull.base_branch));
  if (baseHint !== null && baseHint !== pull.checked_base) return null;
  const commit = knownMergeCommit(style, await planMergeCommit(deps.db, ctx, doer, op, style, checked, date));
  return commit && predictCommitName(commit) ? commitTree(ctx.basePath, commit) : null;
}

/**
 * Starts reading what the merge `operationId` (`op`) will need, beside the rows the caller just
 * read, and writing its commit; does nothing without a worker here.
 */
export function prefetchMergeInputs(deps: OperationDeps, key: PullKey, doer: UserRow, operationId: string, known: KnownPullRows, op: MergeAhead): void {
  if (localWorkers === 0 || prefetches.has(operationId)) return;
  const now = Date.now();
  for (const [id, p] of prefetches) {
    if (p.expires > now && prefetches.size < MAX_PENDING) break;
    prefetches.delete(id);
  }
  prefetches.set(operationId, { inputs: readAll(deps, key, doer, known, op).catch(() => null), expires: now + TTL_MS });
}

const sameRow = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The snapshot read for `operationId`, when there is one and the pull request's and issue's rows
 * are still as it read them; null otherwise (the caller reads afresh). Each snapshot is given once.
 */
export async function takeMergeInputs(deps: OperationDeps, key: PullKey, operationId: string): Promise<MergeInputs | null> {
  const prefetch = prefetches.get(operationId);
  if (!prefetch) return null;
  prefetches.delete(operationId);
  const [inputs, { pull, issue }] = await Promise.all([
    prefetch.expires > Date.now() ? prefetch.inputs : null,
    loadPullRows(deps.db, key),
  ]);
  // Facts that failed to load are read again (and fail there, with the activity's error handling).
  const usable = inputs !== null && sameRow(inputs.ctx.pull, pull) && sameRow(inputs.ctx.issue, issue)
    && (!inputs.facts || (await inputs.facts.then(() => true, () => false)));
  outcomes[usable ? 'used' : 'stale']++;
  return usable ? inputs : null;
}

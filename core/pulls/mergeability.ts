// Computes a pull request's mergeability from git and stores it: the status Gitea shows through
// `mergeable`, the merge base, the conflicted files and the diff size. Run by the pull request's
// workflow (an activity), never on the request path.
import { branchRef, checkMergeability, diffShortStat, fetchIntoRepository, pullHeadRef, readRefs, resolveRefTips, updateRef } from '../../git/index.js';
import { isSettledCheck, pullsStore, type MergeabilityStatus } from '../../db/pulls.js';
import { NotFoundError } from '../errors.js';
import { ConcurrencyLimit } from '../concurrency-limit.js';
import { loadPullOperationContext, type OperationDeps, type PullOperationContext } from './operation-context.js';
import type { PullKey } from '../../workflows/pull-messages.js';

export interface MergeabilityResult {
  status: MergeabilityStatus;
  headSha: string;
  baseSha: string;
  mergeBase: string;
  conflictedFiles: string[];
  /** The clean merge's tree ('' when there is none), and the base commit's tree: a merge of exactly these commits commits it. */
  tree: string;
  baseTree: string;
}

/** The three references a pull request operation starts from, read with one git call per repository. */
export interface PullRefs {
  baseSha: string | null;
  baseTree: string | null;
  /** refs/pull/N/head in the base repository. */
  pullRefSha: string | null;
  /** The head branch in the head repository; null when it was deleted (or its repository was). */
  branchSha: string | null;
}

/** Where a pull request's references are: enough to read them before its rows are loaded. */
export interface PullRefsLocation {
  basePath: string;
  /** null when the head repository was deleted. */
  headPath: string | null;
  baseBranch: string;
  headBranch: string;
  index: number;
}

export function locationOf(ctx: PullOperationContext): PullRefsLocation {
  return { basePath: ctx.basePath, headPath: ctx.headPath, baseBranch: ctx.pull.base_branch, headBranch: ctx.pull.head_branch, index: ctx.pull.index };
}

function sameLocation(a: PullRefsLocation, b: PullRefsLocation): boolean {
  return a.basePath === b.basePath && a.headPath === b.headPath && a.baseBranch === b.baseBranch && a.headBranch === b.headBranch && a.index === b.index;
}

/** References read early, at a location the caller guessed (the merge route tells it). */
export interface EarlyRefs {
  where: PullRefsLocation;
  refs: Promise<PullRefs | null>;
}

export function readRefsEarly(where: PullRefsLocation): EarlyRefs {
  // A wrong guess (a renamed repository) fails or reads other references; either is dropped later.
  return { where, refs: readPullRefsAt(where).catch(() => null) };
}

/**
 * `trees: false`: the base's tree is not wanted (baseTree null), and the references are read from
 * their files (git/ref-files.ts) instead of by a git process.
 */
export async function readPullRefsAt(where: PullRefsLocation, opts: { trees?: boolean } = {}): Promise<PullRefs> {
  const base = branchRef(where.baseBranch);
  const pullRef = pullHeadRef(where.index);
  const head = branchRef(where.headBranch);
  const sameRepo = where.headPath === where.basePath;
  const tips = opts.trees === false ? tipsFromFiles : resolveRefTips;
  const [inBase, inHead] = await Promise.all([
    tips(where.basePath, sameRepo ? [base, pullRef, head] : [base, pullRef]),
    sameRepo || !where.headPath ? null : tips(where.headPath, [head]),
  ]);
  const headTips = sameRepo ? inBase : inHead;
  return {
    baseSha: inBase.get(base)?.sha ?? null, baseTree: inBase.get(base)?.tree ?? null,
    pullRefSha: inBase.get(pullRef)?.sha ?? null, branchSha: headTips?.get(head)?.sha ?? null,
  };
}

async function tipsFromFiles(repoPath: string, refs: string[]): Promise<Map<string, { sha: string; tree: null }>> {
  return new Map([...(await readRefs(repoPath, refs))].map(([ref, sha]) => [ref, { sha, tree: null }]));
}

/** Moves refs/pull/N/head to the head branch (fetching from a fork) when they differ. */
async function moveHeadRef(ctx: PullOperationContext, refs: PullRefs): Promise<void> {
  if (!refs.branchSha || refs.branchSha === refs.pullRefSha) return;
  const ref = pullHeadRef(ctx.pull.index);
  if (ctx.headRepo && ctx.headRepo.id !== ctx.baseRepo.id) await fetchIntoRepository(ctx.basePath, ctx.headPath!, branchRef(ctx.pull.head_branch), ref);
  else await updateRef(ctx.basePath, ref, refs.branchSha, refs.pullRefSha, { reason: 'pull request head moved' });
}

/**
 * The pull request's references, with refs/pull/N/head brought up to the head branch. `early`:
 * references read before `ctx` was loaded, used when they were read where ctx says they are.
 */
export async function currentRefs(ctx: PullOperationContext, early?: EarlyRefs, opts: { trees?: boolean } = {}): Promise<PullRefs> {
  const here = locationOf(ctx);
  const guessed = early && sameLocation(early.where, here) ? await early.refs : null;
  const refs = guessed ?? await readPullRefsAt(here, opts);
  await moveHeadRef(ctx, refs);
  return refs;
}

/**
 * Brings refs/pull/N/head up to the head branch (fetching from a fork) and returns the head sha.
 * When the head branch is gone, the pull request keeps its last head.
 */
export async function syncHeadRef(ctx: PullOperationContext): Promise<{ sha: string; branchDeleted: boolean }> {
  const refs = await currentRefs(ctx);
  if (!refs.branchSha) return { sha: refs.pullRefSha ?? ctx.pull.head_commit_id, branchDeleted: true };
  return { sha: refs.branchSha, branchDeleted: false };
}

/**
 * Mergeability of the pull request as its references stand now. With `reuseStored`, a stored check
 * of exactly the current base and head commits is returned without running git again: the answer is
 * a function of the two commits alone, and the merge itself still merges and compares-and-swaps.
 * `refs`: the caller's own currentRefs() reading, so they are not read twice.
 */
export async function computeMergeability(
  ctx: PullOperationContext,
  opts: { reuseStored?: boolean; refs?: PullRefs } = {},
): Promise<MergeabilityResult> {
  const refs = opts.refs ?? await currentRefs(ctx);
  const { headSha, baseSha, baseTree } = tipsOf(ctx, refs);
  if (!baseSha || !headSha) return { status: 'error', headSha: headSha ?? '', baseSha: baseSha ?? '', mergeBase: '', conflictedFiles: [], tree: '', baseTree };
  const stored = opts.reuseStored ? storedMergeability(ctx, refs) : null;
  if (stored) return stored;
  const check = await checkMergeability(ctx.basePath, baseSha, headSha, { baseTree: refs.baseTree });
  return { status: check.status, headSha, baseSha, mergeBase: check.mergeBase ?? '', conflictedFiles: check.conflictedFiles, tree: check.tree ?? '', baseTree };
}

function tipsOf(ctx: PullOperationContext, refs: PullRefs) {
  return { headSha: refs.branchSha ?? refs.pullRefSha ?? ctx.pull.head_commit_id, baseSha: refs.baseSha, baseTree: refs.baseTree ?? '' };
}

/**
 * The stored check, when it is of exactly these references' base and head commits (the answer is a
 * function of the two commits alone); null when git has to check again.
 */
export function storedMergeability(ctx: PullOperationContext, refs: PullRefs): MergeabilityResult | null {
  const { headSha, baseSha, baseTree } = tipsOf(ctx, refs);
  const { pull } = ctx;
  if (!baseSha || !headSha || !isSettledCheck(pull.status) || pull.checked_head !== headSha || pull.checked_base !== baseSha) return null;
  return { status: pull.status, headSha, baseSha, mergeBase: pull.merge_base, conflictedFiles: pull.conflicted_files, tree: pull.checked_tree, baseTree };
}

/**
 * Checks run by this process at once. After a merge every open pull request into that base checks
 * again; the rest wait their turn, so the merges people wait for keep the processor.
 */
export const mergeabilityChecks = new ConcurrencyLimit(2);

/** Recomputes and stores mergeability; merged or closed pull requests are left as they are. */
export function refreshMergeability(deps: OperationDeps, key: PullKey): Promise<MergeabilityResult | null> {
  return mergeabilityChecks.run(() => refresh(deps, key));
}

async function refresh(deps: OperationDeps, key: PullKey): Promise<MergeabilityResult | null> {
  const ctx = await loadPullOperationContext(deps, key).catch((err: unknown) => {
    if (err instanceof NotFoundError) return null; // deleted with its repository: nothing to check
    throw err;
  });
  if (!ctx) return null;
  if (ctx.pull.has_merged || ctx.issue.is_closed) return null;
  // Before the references are read: a base move from now on asks for another check (core/push.ts).
  if (ctx.pull.recheck_requested_unix !== null) await pullsStore(deps.db).update(ctx.pull.id, { recheck_requested_unix: null });
  // From their files: a stored check needs no tree, and a new one reads the base's tree beside its merge.
  const refs = await currentRefs(ctx, undefined, { trees: false });
  // A stored check of exactly these commits stands (the pull request's creation checked it, or the
  // base moved back): the answer is a function of the two commits alone.
  const result = await computeMergeability(ctx, { refs, reuseStored: true });
  // The stats are those of merge base..head: unchanged when neither moved (a base that moved on
  // without changing the merge base, as most base moves do).
  const unchanged = isSettledCheck(ctx.pull.status) && ctx.pull.checked_head === result.headSha && ctx.pull.merge_base === result.mergeBase;
  const stats = unchanged
    ? { files: ctx.pull.changed_files, additions: ctx.pull.additions, deletions: ctx.pull.deletions }
    : result.mergeBase && result.headSha
      ? await diffShortStat(ctx.basePath, result.mergeBase, result.headSha, {}).catch(() => ({ files: 0, additions: 0, deletions: 0 }))
      : { files: 0, additions: 0, deletions: 0 };
  // A push that moved the head while this checked (core/push.ts moveHead) wrote the newer head and
  // asks for a check of its own: this one's older head must not overwrite it.
  await pullsStore(deps.db).updateUnlessHeadMoved(ctx.pull.id, ctx.pull.head_commit_id, {
    status: result.status,
    merge_base: result.mergeBase,
    conflicted_files: result.conflictedFiles,
    head_commit_id: result.headSha || ctx.pull.head_commit_id,
    checked_head: result.headSha,
    checked_base: result.baseSha,
    checked_tree: result.tree,
    head_branch_deleted: refs.branchSha === null,
    additions: stats.additions,
    deletions: stats.deletions,
    changed_files: stats.files,
  });
  return result;
}

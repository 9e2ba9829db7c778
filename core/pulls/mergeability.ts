// Computes a pull request's mergeability from git and stores it: the status Gitea shows through
// `mergeable`, the merge base, the conflicted files and the diff size. Run by the pull request's
// workflow (an activity), never on the request path.
import { branchRef, checkMergeability, diffShortStat, fetchIntoRepository, pullHeadRef, resolveRef, updateRef } from '../../git/index.js';
import { pullsStore, type MergeabilityStatus } from '../../db/pulls.js';
import { NotFoundError } from '../errors.js';
import { loadPullOperationContext, type OperationDeps, type PullOperationContext } from './operation-context.js';
import type { PullKey } from '../../workflows/pull-messages.js';

export interface MergeabilityResult {
  status: MergeabilityStatus;
  headSha: string;
  baseSha: string;
  mergeBase: string;
  conflictedFiles: string[];
}

/**
 * Brings refs/pull/N/head up to the head branch (fetching from a fork) and returns the head sha.
 * When the head branch is gone, the pull request keeps its last head.
 */
export async function syncHeadRef(ctx: PullOperationContext): Promise<{ sha: string; branchDeleted: boolean }> {
  const ref = pullHeadRef(ctx.pull.index);
  const current = await resolveRef(ctx.basePath, ref);
  const branchSha = ctx.headPath ? await resolveRef(ctx.headPath, branchRef(ctx.pull.head_branch)) : null;
  if (!branchSha) return { sha: current ?? ctx.pull.head_commit_id, branchDeleted: true };
  if (branchSha !== current) {
    if (ctx.headRepo && ctx.headRepo.id !== ctx.baseRepo.id) await fetchIntoRepository(ctx.basePath, ctx.headPath!, branchRef(ctx.pull.head_branch), ref);
    else await updateRef(ctx.basePath, ref, branchSha, current, { reason: 'pull request head moved' });
  }
  return { sha: branchSha, branchDeleted: false };
}

export async function computeMergeability(ctx: PullOperationContext): Promise<MergeabilityResult> {
  const { sha: headSha } = await syncHeadRef(ctx);
  const baseSha = await resolveRef(ctx.basePath, branchRef(ctx.pull.base_branch));
  if (!baseSha || !headSha) return { status: 'error', headSha: headSha ?? '', baseSha: baseSha ?? '', mergeBase: '', conflictedFiles: [] };
  const check = await checkMergeability(ctx.basePath, baseSha, headSha);
  return { status: check.status, headSha, baseSha, mergeBase: check.mergeBase ?? '', conflictedFiles: check.conflictedFiles };
}

/** Recomputes and stores mergeability; merged or closed pull requests are left as they are. */
export async function refreshMergeability(deps: OperationDeps, key: PullKey): Promise<MergeabilityResult | null> {
  const ctx = await loadPullOperationContext(deps, key).catch((err: unknown) => {
    if (err instanceof NotFoundError) return null; // deleted with its repository: nothing to check
    throw err;
  });
  if (!ctx) return null;
  if (ctx.pull.has_merged || ctx.issue.is_closed) return null;
  const result = await computeMergeability(ctx);
  const stats = result.mergeBase && result.headSha
    ? await diffShortStat(ctx.basePath, result.mergeBase, result.headSha, {}).catch(() => ({ files: 0, additions: 0, deletions: 0 }))
    : { files: 0, additions: 0, deletions: 0 };
  const branchGone = ctx.headPath ? (await resolveRef(ctx.headPath, branchRef(ctx.pull.head_branch))) === null : true;
  await pullsStore(deps.db).update(ctx.pull.id, {
    status: result.status,
    merge_base: result.mergeBase,
    conflicted_files: result.conflictedFiles,
    head_commit_id: result.headSha || ctx.pull.head_commit_id,
    checked_head: result.headSha,
    checked_base: result.baseSha,
    head_branch_deleted: branchGone,
    additions: stats.additions,
    deletions: stats.deletions,
    changed_files: stats.files,
  });
  return result;
}

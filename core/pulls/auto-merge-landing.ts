// A scheduled auto-merge that is due, landed with the others due into the same base: the rules are
// checked as for any merge, but no mergeability check runs first (the merge itself proves it, and
// a conflict is refused as the merge refuses it); the commit is built in the base's next chain and
// the base moves once for the whole chain (core/pulls/landing). This pull request's own activity
// then records its merge, as a merge resumed from its journal does.
import { gitTimestamp } from '../../git/index.js';
import { landTogether } from './landing/index.js';
import { currentRefs, type MergeabilityResult } from './mergeability.js';
import { planMergeCommit } from './merge-commit.js';
import { loadMergeInputs } from './merge-inputs.js';
import type { OperationDeps, PullOperationContext } from './operation-context.js';
import { assess, baseMoved, gitFailure, recordMerge, refuse, shouldDeleteBranch } from './merge.js';
import type { MergeOperation, MergeOutcome, MergeStyle, PullKey } from '../../workflows/pull-messages.js';

/**
 * Taken as mergeable: the chain finds out. The references are read from their files: the chain
 * reads the base's commit and tree itself, so only the head is wanted here.
 */
async function takenAsMergeable(ctx: PullOperationContext): Promise<MergeabilityResult | null> {
  const refs = await currentRefs(ctx, undefined, { trees: false });
  const headSha = refs.branchSha ?? refs.pullRefSha ?? ctx.pull.head_commit_id;
  if (!refs.baseSha || !headSha) return null;
  return { status: 'mergeable', headSha, baseSha: refs.baseSha, mergeBase: ctx.pull.merge_base, conflictedFiles: [], tree: '', baseTree: '' };
}

export async function landAutoMerge(deps: OperationDeps, key: PullKey, op: MergeOperation): Promise<MergeOutcome> {
  // Once more when another attempt of this operation merged or journalled it meanwhile: the
  // journal then answers.
  for (let round = 0; round < 3; round++) {
    const outcome = await landOnce(deps, key, op);
    if (outcome) return outcome;
  }
  return refuse(409, 'merge push out of date');
}

async function landOnce(deps: OperationDeps, key: PullKey, op: MergeOperation): Promise<MergeOutcome | null> {
  const assessed = await assess(deps, op, await loadMergeInputs(deps, key, op.doerId), takenAsMergeable);
  if ('outcome' in assessed) return assessed.outcome;
  const { inputs: { ctx }, doer, mergeability } = assessed;
  const style = assessed.style as Exclude<MergeStyle, 'manually-merged'>;
  const headSha = mergeability.headSha;

  const plan = await planMergeCommit(deps.db, ctx, doer, op, style, mergeability, gitTimestamp());
  const result = await landTogether(deps.db, { repoPath: ctx.basePath, repoId: ctx.baseRepo.id, branch: ctx.pull.base_branch }, {
    entry: {
      pullId: ctx.pull.id, head: headSha, style, message: plan.message, author: plan.author, committer: plan.committer,
      // The stored check's merge base, when it was of this very head.
      mergeBaseHint: ctx.pull.checked_head === headSha && ctx.pull.merge_base ? ctx.pull.merge_base : undefined,
    },
    operationId: op.operationId,
  });
  if ('rejected' in result) return gitFailure(result.rejected, style) ?? refuse(409, result.rejected.message);
  if ('outOfDate' in result) return refuse(409, 'merge push out of date');
  if ('journalled' in result) return null;
  const link = result.landed;
  await recordMerge(deps.db, ctx, doer, style, link.commit, link.mergeBase, op.operationId, undefined, link.base);
  // The pull request whose commit is the chain's tip announces the move for the whole chain (the
  // announcement tells where the branch is then); the others have nothing to add.
  return { status: 200, deleteBranch: shouldDeleteBranch(ctx, op), ...(result.tip ? { moved: baseMoved(ctx, link.commit) } : {}) };
}

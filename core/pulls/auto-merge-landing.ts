// A scheduled auto-merge that is due, landed with the others due into the same base: the rules are
// checked as for any merge, but no mergeability check runs first (the merge itself proves it, and
// a conflict is refused as the merge refuses it); the commit is built in the base's next chain and
// the base moves once for the whole chain (core/pulls/landing). This pull request's own activity
// then records its merge, as a merge resumed from its journal does.
import { gitTimestamp } from '../../git/index.js';
import { usersStore } from '../../db/users.js';
import { landTogether } from './landing/index.js';
import { currentRefs, type MergeabilityResult } from './mergeability.js';
import { checkMergeReadiness, loadReadinessFacts } from './merge-readiness.js';
import { isStyleAllowed, styleNotAllowedMessage } from './merge-message.js';
import { planMergeCommit } from './merge-commit.js';
import { workInProgressPrefixes } from './wip.js';
import { loadPullOperationContext, type OperationDeps } from './operation-context.js';
import { baseMoved, gitFailure, recordMerge, refuse, resumeJournalled, shouldDeleteBranch } from './merge.js';
import type { MergeOperation, MergeOutcome, MergeStyle, PullKey } from '../../workflows/pull-messages.js';

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
  const [ctx, doer] = await Promise.all([loadPullOperationContext(deps, key), usersStore(deps.db).byId(op.doerId)]);
  if (!doer) return refuse(405, 'User not allowed to merge PR');
  const resumed = await resumeJournalled(deps, ctx, doer, op);
  if (resumed) return resumed;
  const style = (op.style || 'merge') as Exclude<MergeStyle, 'manually-merged'>;
  if (ctx.issue.is_closed && !ctx.pull.has_merged) return refuse(404, 'not found');
  if (!isStyleAllowed(ctx.baseRepo, style) && !ctx.pull.has_merged) return refuse(405, styleNotAllowedMessage(style));

  const [refs, facts] = await Promise.all([currentRefs(ctx), loadReadinessFacts(deps.db, ctx, doer)]);
  const headSha = refs.branchSha ?? refs.pullRefSha ?? ctx.pull.head_commit_id;
  if (!refs.baseSha || !headSha) return refuse(405, 'Please try again later');
  // Taken as mergeable: the chain finds out.
  const mergeability: MergeabilityResult = {
    status: 'mergeable', headSha, baseSha: refs.baseSha, mergeBase: ctx.pull.merge_base, conflictedFiles: [], tree: '', baseTree: refs.baseTree ?? '',
  };
  const readiness = await checkMergeReadiness({ db: deps.db, ctx, doer, facts, mergeability, wipPrefixes: workInProgressPrefixes(deps.config), forceMerge: op.forceMerge, manual: false });
  if (!readiness.ready) return refuse(readiness.status, readiness.message, readiness.waiting ? { waiting: true } : {});

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

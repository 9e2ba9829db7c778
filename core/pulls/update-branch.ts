// POST .../pulls/{index}/update: brings the base branch into the head branch by merge or rebase,
// in the head repository, with a compare-and-swap of the head branch.
import {
  EmptyMergeError, MergeConflictError, UnrelatedHistoriesError,
  branchRef, deleteRef, fetchIntoRepository, resolveRef, updateBranchFromBase, updateRef,
} from '../../git/index.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { canPush } from '../branch-protection.js';
import { storageFailure } from '../errors.js';
import { faultPoint } from '../fault-points.js';
import { atLeast, repoAccessMode, type RepoContext } from '../permissions.js';
import { gitIdentity } from './git-identity.js';
import { updateMergeMessage } from './merge-message.js';
import { syncHeadRef } from './mergeability.js';
import { recordRefEvents } from '../webhooks/ref-events.js';
import { loadPullOperationContext, type OperationDeps, type PullOperationContext } from './operation-context.js';
import type { PullKey, UpdateBranchOutcome, UpdateBranchRequest } from '../../workflows/pull-messages.js';

/** Who may update the head: those who may push to it, or base writers when maintainers may edit. */
async function mayUpdate(deps: OperationDeps, ctx: PullOperationContext, doer: UserRow, force: boolean): Promise<boolean> {
  if (!ctx.headRepo || !ctx.headOwner) return false;
  const headCtx: RepoContext = { repo: ctx.headRepo, owner: ctx.headOwner, mode: await repoAccessMode(deps.db, ctx.headRepo, ctx.headOwner, doer) };
  if (await canPush(deps.db, headCtx, ctx.pull.head_branch, doer, { force })) return true;
  if (!ctx.pull.allow_maintainer_edit) return false;
  const baseMode = await repoAccessMode(deps.db, ctx.baseRepo, ctx.baseOwner, doer);
  return atLeast(baseMode, 'write') && (await canPush(deps.db, { ...headCtx, mode: 'write' }, ctx.pull.head_branch, doer, { force }));
}

export async function updatePullBranch(deps: OperationDeps, key: PullKey, req: UpdateBranchRequest): Promise<UpdateBranchOutcome> {
  const ctx = await loadPullOperationContext(deps, key);
  if (ctx.pull.has_merged || ctx.issue.is_closed) return { status: 422, body: { message: 'pull request is merged or closed' } };
  const doer = await usersStore(deps.db).byId(req.doerId);
  if (!doer || !ctx.headPath) return { status: 403, body: { message: 'user is not allowed to update the head branch' } };
  if (req.style === 'rebase' && !ctx.baseRepo.allow_rebase_update) return { status: 403, body: { message: 'rebase update is not allowed in this repository' } };
  if (!(await mayUpdate(deps, ctx, doer, req.style === 'rebase'))) return { status: 403, body: { message: 'user is not allowed to update the head branch' } };

  const headSha = await resolveRef(ctx.headPath, branchRef(ctx.pull.head_branch));
  if (!headSha) return { status: 422, body: { message: 'the head branch does not exist' } };
  // Work in the head repository: for a fork, bring the base branch's commits across first.
  const sameRepo = ctx.headRepo?.id === ctx.baseRepo.id;
  const baseRefInHead = sameRepo ? branchRef(ctx.pull.base_branch) : `refs/pullhost/update/${ctx.baseRepo.id}/${ctx.pull.index}`;
  if (!sameRepo) await fetchIntoRepository(ctx.headPath, ctx.basePath, branchRef(ctx.pull.base_branch), baseRefInHead);
  try {
    const baseSha = await resolveRef(ctx.headPath, baseRefInHead);
    if (!baseSha) return { status: 422, body: { message: 'the base branch does not exist' } };
    const me = gitIdentity(doer);
    let newHead: string;
    try {
      newHead = await updateBranchFromBase(ctx.headPath, {
        base: baseSha, head: headSha, style: req.style, message: updateMergeMessage(ctx.pull.base_branch, ctx.pull.head_branch), author: me, committer: me,
      });
    } catch (err) {
      if (err instanceof EmptyMergeError) {
        // Nothing to do is success, not Gitea's 500. A retry after a crash lands here too, so make
        // sure the pull request ref caught up with the branch.
        await syncHeadRef(ctx);
        await deps.db('pull_requests').where({ id: ctx.pull.id }).update({ head_commit_id: headSha });
        // Announced all the same: after such a crash, nobody has told the others yet.
        return { status: 200, body: { upToDate: true }, moved: { repoId: ctx.headRepo!.id, branch: ctx.pull.head_branch, sha: headSha } };
      }
      if (err instanceof MergeConflictError) return { status: 409, body: { message: req.style === 'rebase' ? 'rebase failed because of conflict' : 'merge failed because of conflict' } };
      if (err instanceof UnrelatedHistoriesError) return { status: 409, body: { message: 'refusing to merge unrelated histories' } };
      const storage = storageFailure(err);
      if (storage) return { status: storage.status, body: { message: storage.message } };
      throw err;
    }
    faultPoint('update:before-ref-update');
    if (!(await updateRef(ctx.headPath, branchRef(ctx.pull.head_branch), newHead, headSha, { reason: `update pull request #${ctx.pull.index}` }))) {
      return { status: 409, body: { message: 'the head branch moved during the update; try again' } };
    }
    faultPoint('update:after-ref-update');
    await syncHeadRef(ctx);
    await deps.db.transaction(async (trx) => {
      await trx('pull_requests').where({ id: ctx.pull.id }).update({ head_commit_id: newHead, status: 'checking' });
      await recordRefEvents(trx, ctx.headRepo!.id, doer.id, [{ ref: branchRef(ctx.pull.head_branch), oldSha: headSha, newSha: newHead }]);
    });
    return { status: 200, moved: { repoId: ctx.headRepo!.id, branch: ctx.pull.head_branch, sha: newHead } };
  } finally {
    if (!sameRepo) await deleteRef(ctx.headPath, baseRefInHead).catch(() => undefined);
  }
}

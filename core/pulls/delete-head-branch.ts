// After a merge: delete the head branch when asked (Gitea's rules: skipped when another open pull
// request uses it; pull requests based on it are retargeted to the merged one's base first).
import { branchRef, deleteRef, resolveRef, zeroSha } from '../../git/index.js';
import { recordHookEvent } from '../webhooks/outbox.js';
import { announcePush, journalledWrite } from '../push-journal.js';
import { usersStore } from '../../db/users.js';
import { pullsStore } from '../../db/pulls.js';
import { nowUnix } from '../../db/time.js';
import { addComment } from '../comments.js';
import { protectionFor } from '../branch-protection.js';
import { atLeast, repoAccessMode } from '../permissions.js';
import { loadPullOperationContext, type OperationDeps } from './operation-context.js';
import type { OperationOutcome, PullKey } from '../../workflows/pull-messages.js';

export async function deleteMergedHeadBranch(deps: OperationDeps, key: PullKey, doerId: number, retried: boolean): Promise<OperationOutcome> {
  const ctx = await loadPullOperationContext(deps, key);
  const doer = await usersStore(deps.db).byId(doerId);
  if (!ctx.pull.has_merged || !doer || !ctx.headRepo || !ctx.headOwner || !ctx.headPath) return { status: 200 };
  const pulls = pullsStore(deps.db);
  const others = (await pulls.openByHead(ctx.headRepo.id, ctx.pull.head_branch)).filter((p) => p.id !== ctx.pull.id);
  if (others.length > 0) return { status: 200 }; // another open pull request still needs the branch

  const sha = await resolveRef(ctx.headPath, branchRef(ctx.pull.head_branch));
  if (!sha) return retried ? { status: 200 } : { status: 404, body: { message: `branch ${ctx.pull.head_branch} does not exist` } };
  if (ctx.pull.head_branch === ctx.headRepo.default_branch) return { status: 403, body: { message: 'can not delete default branch' } };
  if (await protectionFor(deps.db, ctx.headRepo.id, ctx.pull.head_branch)) return { status: 403, body: { message: 'branch protected' } };
  if (!atLeast(await repoAccessMode(deps.db, ctx.headRepo, ctx.headOwner, doer), 'write')) {
    return { status: 403, body: { message: 'user has no permission to delete the head branch' } };
  }

  // Pull requests based on the branch would lose their base: point them at the merged one's base,
  // with the comment a base change leaves (Gitea's RetargetChildrenOnMerge). Their workflows check
  // them against it when the workflow announces the merge's base move, which comes after this.
  // Only within one repository: the merged one's base is no branch of a fork.
  const children = ctx.headRepo.id === ctx.baseRepo.id ? await pulls.openByBase(ctx.headRepo.id, ctx.pull.head_branch) : [];
  for (const child of children) {
    await deps.db.transaction(async (trx) => {
      await pulls.update(child.id, { base_branch: ctx.pull.base_branch, status: 'checking' }, trx);
      await addComment(trx, { issueId: child.issue_id, posterId: doer.id, type: 'change_target_branch', content: JSON.stringify({ old: ctx.pull.head_branch, new: ctx.pull.base_branch }) });
      await recordHookEvent(trx, { repoId: ctx.baseRepo.id, event: 'pull_request', action: 'edited', doerId: doer.id, detail: { kind: 'issue', issueId: child.issue_id, changes: { ref: ctx.pull.head_branch } } });
    });
  }
  const deleted = [{ ref: branchRef(ctx.pull.head_branch), oldSha: sha, newSha: zeroSha(sha) }];
  const { headPath } = ctx;
  const journalId = await journalledWrite(deps.db, ctx.headRepo.id, doer.id, deleted, () => deleteRef(headPath, branchRef(ctx.pull.head_branch), sha));
  if (journalId === null) return { status: 409, body: { message: 'the head branch moved while it was being deleted' } };
  await pulls.update(ctx.pull.id, { head_branch_deleted: true });
  await announcePush(deps.db, journalId, ctx.headRepo.id, doer.id, deleted);
  try {
    await addComment(deps.db, { issueId: ctx.issue.id, posterId: doer.id, type: 'delete_branch', content: ctx.pull.head_branch });
    await deps.db('issues').where({ id: ctx.issue.id }).update({ updated_unix: nowUnix() });
  } catch {
    // A failed comment does not fail the request (spec rule 7).
  }
  return { status: 200, body: { retargeted: children.map((c) => c.index) } };
}

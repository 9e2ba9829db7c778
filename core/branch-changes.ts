// Renaming a branch and moving a branch to another commit through the API (Gitea's RenameBranch and
// UpdateBranch): the default branch, protection rules and open pull requests follow a rename; a
// move is a push, judged by branch protection and followed by the pull requests.
import { isForcePush, pushToBranch, refConflict } from './branch-write.js';
import { canPushUnder, firstMatchingRule, isGlobRule, protectionRules, ruleMatches } from './branch-protection.js';
import { ForbiddenError, NotFoundError, UnprocessableError, storageFailure } from './errors.js';
import { atLeast, type RepoContext } from './permissions.js';
import type { PushServices } from './push.js';
import { resolveRevision } from './code-refs.js';
import { repoDiskPath } from './repositories.js';
import { protectedBranchesStore } from '../db/protected-branches.js';
import { reposStore } from '../db/repos.js';
import type { UserRow } from '../db/users.js';
import { branchRef, deleteRef, isValidBranchName, resolveRef, setDefaultBranch, updateRef } from '../git/index.js';

interface Logger {
  warn(obj: object, msg: string): void;
}

export const RENAME_TARGET_EXISTS = 'Cannot rename a branch using the same name or rename to a branch that already exists.';
const RENAME_NEEDS_ADMIN = 'User must be a repo or site admin to rename default or protected branches.';
const RENAME_PROTECTED = 'Failed to rename branch due to branch protection rules.';

export async function renameBranch(services: PushServices, ctx: RepoContext, doer: UserRow, from: string, to: string): Promise<void> {
  if (ctx.repo.is_empty) throw new NotFoundError('Git Repository is empty.');
  if (!isValidBranchName(to)) throw new UnprocessableError('[Name]: GitRefName');
  const path = repoDiskPath(services.config, ctx.owner.name, ctx.repo.name);
  if (from === to || (await resolveRef(path, branchRef(to))) !== null) throw new UnprocessableError(RENAME_TARGET_EXISTS);
  const sha = isValidBranchName(from) ? await resolveRef(path, branchRef(from)) : null;
  if (!sha) throw new NotFoundError("Branch doesn't exist.");
  const isAdmin = atLeast(ctx.mode, 'admin');
  const isDefault = from === ctx.repo.default_branch;
  const rules = await protectionRules(services.db, ctx.repo.id);
  const ownRule = rules.find((r) => r.rule_name === from);
  if ((isDefault || ownRule) && !isAdmin) throw new ForbiddenError(RENAME_NEEDS_ADMIN);
  const targetRule = firstMatchingRule(rules, to);
  if (targetRule && !(await canPushUnder(services.db, ctx, doer, targetRule))) throw new ForbiddenError(RENAME_PROTECTED);
  // A glob rule over the old name (and no rule of its own) keeps the branch where it is.
  if (!ownRule && rules.some((r) => isGlobRule(r.rule_name) && ruleMatches(r.rule_name, from))) throw new ForbiddenError(RENAME_PROTECTED);

  const created = await updateRef(path, branchRef(to), sha, null, { reason: `renamed from ${from}` }).catch((err: Error) => { throw storageFailure(err) ?? refConflict(err, `branch ${to}`); });
  if (!created) throw new UnprocessableError(RENAME_TARGET_EXISTS);
  try {
    await services.db.transaction(async (trx) => {
      if (ownRule && !rules.some((r) => r.rule_name === to && r.id !== ownRule.id)) await protectedBranchesStore(trx).rename(ownRule.id, to, trx);
      // Unmerged pull requests, open or closed, follow the branch (base and head).
      await trx('pull_requests').where({ base_repo_id: ctx.repo.id, base_branch: from, has_merged: false }).update({ base_branch: to });
      await trx('pull_requests').where({ head_repo_id: ctx.repo.id, head_branch: from, has_merged: false }).update({ head_branch: to });
      if (isDefault) await reposStore(trx).update(ctx.repo.id, { default_branch: to }, trx);
    });
  } catch (err) {
    await deleteRef(path, branchRef(to), sha).catch(() => undefined);
    throw err;
  }
  if (isDefault) await setDefaultBranch(path, to);
  await deleteRef(path, branchRef(from), sha, { reason: `renamed to ${to}` });
}

export interface BranchUpdate {
  newCommit: string;
  oldCommit?: string;
  force?: boolean;
}

export async function updateBranch(services: PushServices, ctx: RepoContext, doer: UserRow, branch: string, input: BranchUpdate, log?: Logger): Promise<void> {
  if (ctx.repo.is_empty) throw new NotFoundError('Git Repository is empty.');
  const path = repoDiskPath(services.config, ctx.owner.name, ctx.repo.name);
  const current = isValidBranchName(branch) ? await resolveRef(path, branchRef(branch)) : null;
  if (!current) throw new NotFoundError();
  if (input.oldCommit) {
    const expected = await resolveRevision(path, input.oldCommit);
    if (!expected) throw new UnprocessableError(`invalid commit id: ${input.oldCommit}`);
    if (expected !== current) throw new UnprocessableError(`branch commit does not match [expected: ${expected}, given: ${current}]`);
  }
  const target = await resolveRevision(path, input.newCommit);
  if (!target) throw new NotFoundError(`object does not exist [id: ${input.newCommit}, rel_path: ]`);
  if (target === current) return;
  if ((await isForcePush(path, current, target)) && !input.force) throw new UnprocessableError(`Force push ${branch} need a confirm force parameter`);
  await pushToBranch(services, ctx, doer, { branch, newSha: target, oldSha: current }, log);
}

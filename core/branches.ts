// Branches of a hosted repository: list, read, create from a ref, delete (never the default branch
// or a protected one).
import { markHeadBranchDeleted } from './pulls/state.js';
import type { Knex } from 'knex';
import { ConflictError, ForbiddenError, NotFoundError, storageFailure, UnprocessableError } from './errors.js';
import { protectionFor } from './branch-protection.js';
import type { RepoContext } from './permissions.js';
import { repoDiskPath } from './repositories.js';
import { reposStore } from '../db/repos.js';
import { announcePush, journalledWrite } from './push-journal.js';
import {
  branchRef, commitExists, deleteRef, isValidBranchName, isValidRefName, isValidSha, listBranches, resolveRef, updateRef, zeroSha,
  type BranchInfo,
} from '../git/index.js';

export interface BranchDeps {
  db: Knex;
  config: { APP_DATA_PATH: string };
}

export function pathOf(deps: BranchDeps, ctx: RepoContext): string {
  return repoDiskPath(deps.config, ctx.owner.name, ctx.repo.name);
}

export async function branchesOf(deps: BranchDeps, ctx: RepoContext): Promise<BranchInfo[]> {
  if (ctx.repo.is_empty) return [];
  return listBranches(pathOf(deps, ctx));
}

/** The branch and its head commit, or null. Invalid names are simply not found. */
export async function findBranch(deps: BranchDeps, ctx: RepoContext, name: string): Promise<BranchInfo | null> {
  if (!isValidBranchName(name)) return null;
  const sha = await resolveRef(pathOf(deps, ctx), branchRef(name));
  return sha ? { name, sha } : null;
}

/**
 * The commit a CreateBranchOption starts from: `old_ref_name` (a full ref, a branch, a tag or a
 * commit id) wins over `old_branch_name`; neither means the default branch.
 */
async function startingPoint(deps: BranchDeps, ctx: RepoContext, oldRef?: string, oldBranch?: string): Promise<string> {
  const path = pathOf(deps, ctx);
  const candidates: string[] = [];
  if (oldRef) {
    if (isValidSha(oldRef)) candidates.push(oldRef);
    else if (oldRef.startsWith('refs/')) candidates.push(oldRef);
    else candidates.push(`refs/heads/${oldRef}`, `refs/tags/${oldRef}`);
  } else {
    candidates.push(`refs/heads/${oldBranch || ctx.repo.default_branch}`);
  }
  for (const c of candidates) {
    if (isValidSha(c)) {
      if (await commitExists(path, c)) return c;
      continue;
    }
    if (!isValidRefName(c)) continue;
    const sha = await resolveRef(path, c).catch(() => null);
    if (sha) return sha;
  }
  throw new NotFoundError(oldRef ? `The old ref does not exist: ${oldRef}` : `The old branch does not exist: ${oldBranch || ctx.repo.default_branch}`);
}

export async function createBranch(
  deps: BranchDeps,
  ctx: RepoContext,
  input: { newBranch: string; oldRef?: string; oldBranch?: string },
  doerId: number | null = null,
): Promise<BranchInfo> {
  if (!isValidBranchName(input.newBranch)) throw new UnprocessableError(`invalid branch name: ${input.newBranch}`);
  if (ctx.repo.is_empty) throw new NotFoundError('Git Repository is empty.');
  const sha = await startingPoint(deps, ctx, input.oldRef, input.oldBranch);
  const created = [{ ref: branchRef(input.newBranch), oldSha: zeroSha(sha), newSha: sha }];
  const journalId = await journalledWrite(deps.db, ctx.repo.id, doerId, created, () =>
    updateRef(pathOf(deps, ctx), branchRef(input.newBranch), sha, null, { reason: 'branch created' })
      .catch((err: Error) => { throw storageFailure(err) ?? new UnprocessableError(`cannot create branch: ${err.message.split('\n')[0]}`); }));
  if (journalId === null) throw new ConflictError(`The branch with the same name already exists.`);
  await announcePush(deps.db, journalId, ctx.repo.id, doerId, created);
  return { name: input.newBranch, sha };
}

export async function deleteBranch(deps: BranchDeps, ctx: RepoContext, name: string, doerId: number | null = null): Promise<void> {
  const branch = await findBranch(deps, ctx, name);
  if (!branch) throw new NotFoundError('Branch doesn\'t exist.');
  if (name === ctx.repo.default_branch) throw new ForbiddenError('can not delete default branch');
  if (await protectionFor(deps.db, ctx.repo.id, name)) throw new ForbiddenError('branch protected');
  const deleted = [{ ref: branchRef(name), oldSha: branch.sha, newSha: zeroSha(branch.sha) }];
  const journalId = await journalledWrite(deps.db, ctx.repo.id, doerId, deleted, () => deleteRef(pathOf(deps, ctx), branchRef(name), branch.sha, { reason: 'branch deleted' }));
  if (journalId === null) throw new ConflictError('The branch has changed; try again.');
  await markHeadBranchDeleted(deps.db, ctx.repo.id, name);
  await announcePush(deps.db, journalId, ctx.repo.id, doerId, deleted);
}

/** After the first commit arrives (push, branch API), the repository is no longer empty. */
export async function markNotEmpty(db: Knex, repoId: number): Promise<void> {
  await reposStore(db).update(repoId, { is_empty: false });
}

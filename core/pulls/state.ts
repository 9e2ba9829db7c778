// Changes of a pull request's state that the pull request's workflow performs (one at a time, so
// they cannot interleave with a merge): close/reopen and base change; plus telling the record when
// its head branch disappears and its workflow when issues it depends on close or reopen.
import type { Knex } from 'knex';
import { addComment } from '../comments.js';
import { openDependencies } from '../dependencies.js';
import type { PullSignaller } from '../push.js';
import { duplicateMessage, NO_CHANGES_MESSAGE } from './create.js';
import { issuesStore } from '../../db/issues.js';
import { pullsStore } from '../../db/pulls.js';
import { reposStore, type RepoRow } from '../../db/repos.js';
import { nowUnix } from '../../db/time.js';
import { usersStore } from '../../db/users.js';
import { branchRef, isValidBranchName, mergeBase, repositoryPath, resolveRef } from '../../git/index.js';
import { headChangedSignal, type OperationOutcome, type PullKey } from '../../workflows/pull-messages.js';
import { recordHookEvent } from '../webhooks/outbox.js';
import { issueEvent } from '../webhooks/issue-events.js';

export const MERGED_STATE_MESSAGE = 'cannot change state of this pull request, it was already merged';
export const OPEN_DEPENDENCIES_MESSAGE = 'cannot close this issue or pull request because it still has open dependencies';

const fail = (status: number, message: string): OperationOutcome => ({ status, body: { message } });

async function pathOf(db: Knex, root: string, repo: RepoRow): Promise<string> {
  const owner = await usersStore(db).byId(repo.owner_id);
  if (!owner) throw new Error(`repository ${repo.id} has no owner`);
  return repositoryPath(root, owner.name, repo.name);
}

/** Closes or reopens (spec: edit rule 8). Idempotent: asking for the current state answers 200. */
export async function applySetState(db: Knex, key: PullKey, doerId: number, state: 'open' | 'closed'): Promise<OperationOutcome> {
  if (state !== 'open' && state !== 'closed') return fail(412, `unknown state: ${String(state)}`);
  const pull = await pullsStore(db).byIndex(key.repoId, key.index);
  const issue = pull ? await issuesStore(db).byId(pull.issue_id) : undefined;
  if (!pull || !issue) return fail(404, 'pull request does not exist');
  if (pull.has_merged) return fail(412, MERGED_STATE_MESSAGE);
  const closing = state === 'closed';
  if (issue.is_closed === closing) return { status: 200 };
  if (closing && (await openDependencies(db, issue.id)).length > 0) return fail(412, OPEN_DEPENDENCIES_MESSAGE);
  if (!closing && pull.head_repo_id !== null) {
    // Reopening must not create a second open pull request for the same targets.
    const other = await pullsStore(db).openWithTargets({
      headRepoId: pull.head_repo_id, headBranch: pull.head_branch, baseRepoId: pull.base_repo_id, baseBranch: pull.base_branch,
    });
    if (other && other.id !== pull.id) return fail(409, duplicateMessage(other));
  }
  await db.transaction(async (trx) => {
    await issuesStore(trx).update(issue.id, { is_closed: closing, closed_unix: closing ? nowUnix() : null }, trx);
    // A reopened pull request may have missed pushes while closed: its mergeability is unknown.
    if (!closing) await pullsStore(trx).update(pull.id, { status: 'checking' }, trx);
    await addComment(trx, { issueId: issue.id, posterId: doerId, type: closing ? 'close' : 'reopen', content: '' });
    await recordHookEvent(trx, issueEvent(issue, 'main', closing ? 'closed' : 'reopened', doerId));
  });
  return { status: 200 };
}

/** Retargets an open pull request (spec: edit rule 9). */
export async function applyChangeBase(db: Knex, repositoriesRoot: string, key: PullKey, doerId: number, base: string): Promise<OperationOutcome> {
  const pull = await pullsStore(db).byIndex(key.repoId, key.index);
  const issue = pull ? await issuesStore(db).byId(pull.issue_id) : undefined;
  const baseRepo = pull ? await reposStore(db).byId(pull.base_repo_id) : undefined;
  if (!pull || !issue || !baseRepo) return fail(404, 'pull request does not exist');
  const basePath = await pathOf(db, repositoriesRoot, baseRepo);
  const baseSha = isValidBranchName(base) ? await resolveRef(basePath, branchRef(base)) : null;
  if (!baseSha) return fail(404, `new base '${base}' not exist`);
  if (pull.has_merged) return fail(409, 'pull request has already been merged');
  if (issue.is_closed) return fail(422, 'cannot change the base of a closed pull request');
  if (pull.base_branch === base) return { status: 200 };
  if (pull.head_repo_id === pull.base_repo_id && pull.head_branch === base) return fail(422, NO_CHANGES_MESSAGE);
  if (pull.head_repo_id !== null) {
    const other = await pullsStore(db).openWithTargets({
      headRepoId: pull.head_repo_id, headBranch: pull.head_branch, baseRepoId: pull.base_repo_id, baseBranch: base,
    });
    if (other) return fail(409, duplicateMessage(other));
  }
  const headSha = (await resolveRef(basePath, `refs/pull/${pull.index}/head`)) ?? pull.head_commit_id;
  const newMergeBase = headSha ? await mergeBase(basePath, baseSha, headSha) : null;
  const oldBase = pull.base_branch;
  await db.transaction(async (trx) => {
    await pullsStore(trx).update(pull.id, { base_branch: base, status: 'checking', merge_base: newMergeBase ?? '', conflicted_files: [] }, trx);
    await issuesStore(trx).update(issue.id, {}, trx);
    await addComment(trx, { issueId: issue.id, posterId: doerId, type: 'change_target_branch', content: JSON.stringify({ old: oldBase, new: base }) });
    await recordHookEvent(trx, issueEvent(issue, 'main', 'edited', doerId, { changes: { ref: oldBase } }));
  });
  return { status: 200 };
}

/**
 * A head branch was deleted (push or branch API): the open pull requests that come from it say so.
 * For core/push.ts and core/branches.ts to call; the pull requests keep their last head.
 */
export async function markHeadBranchDeleted(db: Knex, headRepoId: number, branch: string): Promise<number> {
  const open = await pullsStore(db).openByHead(headRepoId, branch);
  if (open.length === 0) return 0;
  await db('pull_requests').whereIn('id', open.map((p) => p.id)).update({ head_branch_deleted: true });
  return open.length;
}

/**
 * An issue closed or reopened: open pull requests that depend on it may have become mergeable or
 * blocked, so their workflows re-evaluate (the dependency code calls this after the change commits).
 */
export async function notifyDependentPulls(db: Knex, signaller: PullSignaller | null, issueId: number): Promise<PullKey[]> {
  const dependents = await pullsStore(db).openDependingOn(issueId);
  const keys = dependents.map((p) => ({ repoId: p.base_repo_id, index: p.index }));
  if (signaller) {
    await Promise.allSettled(dependents.map((p, i) => signaller.signal(keys[i]!, headChangedSignal, [p.head_commit_id])));
  }
  return keys;
}

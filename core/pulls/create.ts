// Creating a pull request (spec: POST /repos/{owner}/{repo}/pulls, rules 1-11): the rules are checked
// first, then one transaction writes the issue and the pull row with the next shared index, then
// refs/pull/<index>/head is written in the base repository and mergeability checked once (git
// merge-tree), and then the pull request's workflow is asked to keep it up to date.
import { isBlocked } from '../blocks.js';
import type { Knex } from 'knex';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '../errors.js';
import { allocateIssueIndex } from '../issue-index.js';
import { labelsForIssue } from '../labels.js';
import { atLeast, repoAccessMode, type RepoContext } from '../permissions.js';
import type { PullSignaller } from '../push.js';
import { repoDiskPath } from '../repositories.js';
import { parseHeadSpec, resolveHeadRepository } from './head-spec.js';
import { issuesStore } from '../../db/issues.js';
import { milestonesStore } from '../../db/milestones.js';
import { pullsStore, type PullRow, type PullTargets } from '../../db/pulls.js';
import { usersStore, USER_TYPE, type UserRow } from '../../db/users.js';
import { branchRef, checkMergeability, diffShortStat, fetchIntoRepository, isValidBranchName, mergeBase, pullHeadRef, resolveRef, updateRef } from '../../git/index.js';
import { recordHookEvents } from '../webhooks/outbox.js';
import { assigneeEvents, issueEvent } from '../webhooks/issue-events.js';
import { headChangedSignal } from '../../workflows/pull-messages.js';

export interface PullDeps {
  db: Knex;
  config: { APP_DATA_PATH: string };
  pullWorkflows: PullSignaller | null;
}

export interface CreatePullInput {
  head: string;
  base: string;
  title: string;
  body?: string;
  assignee?: string;
  assignees?: string[];
  labels?: number[];
  milestone?: number;
  due_date?: string | null;
  allow_maintainer_edit?: boolean;
}

export const NO_CHANGES_MESSAGE = 'Invalid PullRequest: There are no changes between the head and the base';

/** Gitea's ErrPullRequestAlreadyExists text, which clients show as is. */
export function duplicateMessage(existing: PullRow): string {
  return `pull request already exists for these targets [id: ${existing.id}, issue_id: ${existing.issue_id}, head_repo_id: ${existing.head_repo_id}, base_repo_id: ${existing.base_repo_id}, head_branch: ${existing.head_branch}, base_branch: ${existing.base_branch}]`;
}

/** The commit a branch points to; a tag of that name is refused (422) as Gitea refuses it; else 404. */
async function branchCommit(path: string, name: string, what: 'base' | 'head'): Promise<string> {
  const sha = isValidBranchName(name) ? await resolveRef(path, branchRef(name)) : null;
  if (sha) return sha;
  const tag = isValidBranchName(name) ? await resolveRef(path, `refs/tags/${name}`) : null;
  if (tag) throw new UnprocessableError('Invalid PullRequest: base and head must be branches');
  throw new NotFoundError(`${what} branch does not exist [name: ${name}]`);
}

/** Assignees as Gitea's CreatePullRequest checks them: every name must exist and be assignable (write access). */
async function assigneesFor(db: Knex, ctx: RepoContext, names: string[]): Promise<UserRow[]> {
  const wanted = [...new Set(names.filter((n) => n !== ''))];
  if (wanted.length === 0) return [];
  const found = new Map((await usersStore(db).byNames(wanted)).map((u) => [u.lower_name, u]));
  const out: UserRow[] = [];
  for (const name of wanted) {
    const user = found.get(name.toLowerCase());
    if (!user || user.type !== USER_TYPE.user) throw new UnprocessableError(`Assignee does not exist: [name: ${name}]`);
    if (!atLeast(await repoAccessMode(db, ctx.repo, ctx.owner, user), 'write')) {
      throw new UnprocessableError(`user does not have access to repo [user_id: ${user.id}, repo_name: ${ctx.repo.name}]`);
    }
    out.push(user);
  }
  return out;
}

/** Points refs/pull/<index>/head of the base repository at the head commit (copying objects from a fork). */
async function writePullHeadRef(basePath: string, headPath: string, sameRepo: boolean, index: number, headBranch: string, headSha: string): Promise<void> {
  const ref = pullHeadRef(index);
  if (!sameRepo) {
    await fetchIntoRepository(basePath, headPath, branchRef(headBranch), ref);
    return;
  }
  const current = await resolveRef(basePath, ref);
  if (current === headSha) return;
  if (!(await updateRef(basePath, ref, headSha, current, { reason: 'pull request head' }))) {
    throw new Error(`${ref} moved while it was being written`);
  }
}

export async function createPull(deps: PullDeps, ctx: RepoContext, doer: UserRow, input: CreatePullInput): Promise<PullRow> {
  const { db } = deps;
  if (input.head === input.base) throw new UnprocessableError(NO_CHANGES_MESSAGE);
  if (!input.title.trim()) throw new UnprocessableError('[Title]: Required');
  if (await isBlocked(db, ctx.owner.id, doer.id)) throw new ForbiddenError('user is blocked by the repository owner');

  const head = await resolveHeadRepository(db, ctx, parseHeadSpec(input.head), doer);
  const sameRepo = head.repo.id === ctx.repo.id;
  if (sameRepo && head.branch === input.base) throw new UnprocessableError(NO_CHANGES_MESSAGE);
  const basePath = repoDiskPath(deps.config, ctx.owner.name, ctx.repo.name);
  const headPath = repoDiskPath(deps.config, head.owner.name, head.repo.name);
  const baseSha = await branchCommit(basePath, input.base, 'base');
  const headSha = await branchCommit(headPath, head.branch, 'head');

  if (input.milestone && input.milestone > 0 && !(await milestonesStore(db).byId(ctx.repo.id, input.milestone))) {
    throw new NotFoundError(`milestone does not exist [id: ${input.milestone}, repo_id: ${ctx.repo.id}]`);
  }
  const assignees = await assigneesFor(db, ctx, [...(input.assignee ? [input.assignee] : []), ...(input.assignees ?? [])]);
  const orgId = ctx.owner.type === USER_TYPE.organization ? ctx.owner.id : null;
  const labels = await labelsForIssue(db, ctx.repo.id, orgId, input.labels ?? []);
  // Gitea keeps the given instant on creation (only edits normalise the deadline to the day's end).
  const deadline = input.due_date ? Date.parse(input.due_date) : NaN;
  if (input.due_date && Number.isNaN(deadline)) throw new UnprocessableError('[due_date]: invalid date');
  const targets: PullTargets = { headRepoId: head.repo.id, headBranch: head.branch, baseRepoId: ctx.repo.id, baseBranch: input.base };

  const created = await db.transaction(async (trx) => {
    // The index row lock serialises creations in this repository, so the duplicate check below
    // sees every pull request committed before us: two identical requests cannot both pass.
    const index = await allocateIssueIndex(trx, ctx.repo.id);
    const existing = await pullsStore(trx).openWithTargets(targets, trx);
    if (existing) throw new ConflictError(duplicateMessage(existing));
    const issues = issuesStore(trx);
    const issueId = await issues.insert({
      repo_id: ctx.repo.id, index, poster_id: doer.id, title: input.title.trim(), content: input.body ?? '', is_pull: true,
      is_closed: false, milestone_id: input.milestone && input.milestone > 0 ? input.milestone : null,
      deadline_unix: Number.isNaN(deadline) ? null : Math.floor(deadline / 1000), closed_unix: null,
    }, trx);
    await issues.replaceLabels(issueId, labels.map((l) => l.id), trx);
    await issues.replaceAssignees(issueId, assignees.map((u) => u.id), trx);
    const pullId = await pullsStore(trx).insert({
      issue_id: issueId, index, base_repo_id: ctx.repo.id, head_repo_id: head.repo.id, base_branch: input.base,
      head_branch: head.branch, head_commit_id: headSha,
      allow_maintainer_edit: input.allow_maintainer_edit ?? ctx.repo.default_allow_maintainer_edit,
    }, trx);
    // The head reference exists before the rows are committed: the announcement below is delivered
    // from the committed outbox at once, and its payload's diff statistics read that reference (it
    // was written after the commit, and payloads built in between lacked them). A reference left by
    // a transaction that then fails is overwritten by the next pull request given this index.
    await writePullHeadRef(basePath, headPath, sameRepo, index, head.branch, headSha);
    // Gitea assigns, then announces the new pull request.
    const made = { id: issueId, repo_id: ctx.repo.id, is_pull: true };
    await recordHookEvents(trx, [...assigneeEvents(made, [], assignees.map((u) => u.id), doer.id), issueEvent(made, 'main', 'opened', doer.id)]);
    return { issueId, pullId, index };
  });

  try {
    await firstCheck(db, basePath, created.pullId, baseSha, headSha);
  } catch (err) {
    // Nothing half-done: a pull request whose first check could not run is taken back.
    await db('issues').where({ id: created.issueId }).delete();
    throw err;
  }
  await requestMergeabilityCheck(deps, ctx.repo.id, created.index, headSha);
  return (await pullsStore(db).byId(created.pullId))!;
}

/**
 * The first mergeability check, on the request path so the answer carries a real `mergeable` as
 * Gitea's does (git merge-tree, no worktree), stored as the workflow's check would store it (the
 * commits, the tree, the diff size). It is stored only while no check has been (checked_head still
 * empty), so a workflow's check of a newer head is never overwritten; the workflow is still asked
 * to check, which catches a head that moved before the pull request's row existed. When git
 * cannot tell, the pull request stays `checking` for the workflow.
 */
async function firstCheck(db: Knex, basePath: string, pullId: number, baseSha: string, headSha: string): Promise<void> {
  const check = await checkMergeability(basePath, baseSha, headSha).catch(() => null);
  if (!check) {
    await pullsStore(db).update(pullId, { merge_base: (await mergeBase(basePath, baseSha, headSha)) ?? '' });
    return;
  }
  const stats = check.mergeBase ? await diffShortStat(basePath, check.mergeBase, headSha, {}).catch(() => null) : null;
  await db('pull_requests').where({ id: pullId, checked_head: '' }).update({
    status: check.status, merge_base: check.mergeBase ?? '', conflicted_files: JSON.stringify(check.conflictedFiles),
    checked_head: headSha, checked_base: baseSha, checked_tree: check.tree ?? '',
    additions: stats?.additions ?? 0, deletions: stats?.deletions ?? 0, changed_files: stats?.files ?? 0,
  });
}

/**
 * Asks the pull request's workflow (started if needed) to check mergeability for this head. A
 * Temporal outage does not undo a created pull request: it stays `checking` and the next push or
 * operation on it asks again.
 */
export async function requestMergeabilityCheck(deps: Pick<PullDeps, 'pullWorkflows'>, repoId: number, index: number, headSha: string): Promise<boolean> {
  try {
    await deps.pullWorkflows?.signal({ repoId, index }, headChangedSignal, [headSha]);
    return true;
  } catch {
    return false;
  }
}

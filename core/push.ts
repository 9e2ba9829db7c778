// What happens after a push has been accepted (Gitea's post-receive): the first push makes the
// repository non-empty, moved branches move the heads of the open pull requests that come from them
// (refs/pull/N/head, head_commit_id) and wake those pull requests' workflows; a moved base branch
// wakes the workflows of the pull requests that target it.
import { markHeadBranchDeleted } from './pulls/state.js';
import type { Knex } from 'knex';
import type { SignalDefinition } from '@temporalio/common';
import { repoDiskPath } from './repositories.js';
import { refreshRepoLicenses } from './repo-licenses.js';
import { reposStore, type RepoRow } from '../db/repos.js';
import { usersStore } from '../db/users.js';
import { nowUnix } from '../db/time.js';
import {
  branchNameOf, branchRef, fetchIntoRepository, getDefaultBranch, isZeroSha, pullHeadRef, resolveRef, setDefaultBranch, updateRef,
} from '../git/index.js';
import { baseChangedSignal, headChangedSignal, type PullKey } from '../workflows/pull-messages.js';
import { announcePush } from './push-journal.js';
import { noteBranchMoved } from './pulls/landing/index.js';
import { nudgeQueues, type QueueNudger } from './merge-queue/nudge.js';
import { failingPoint, faultPoint } from './fault-points.js';

export interface RefUpdate {
  ref: string;
  oldSha: string;
  newSha: string;
}

/** The part of the pull request workflow client a push needs (api/pull-workflows.ts implements it). */
export interface PullSignaller extends QueueNudger {
  signal<A extends unknown[]>(key: PullKey, signal: SignalDefinition<A>, args: A): Promise<void>;
}

export interface PushServices {
  db: Knex;
  config: { APP_DATA_PATH: string };
  pullWorkflows: PullSignaller | null;
}

export interface AfterPushResult {
  /** Pull requests whose head moved, as `pull/<base repo id>/<index>`. */
  headsMoved: string[];
  /** Pull requests whose base branch moved. */
  basesMoved: string[];
  /** Failures that did not undo the push (a workflow unreachable, a ref not copied). */
  problems: Error[];
}

interface OpenPull {
  id: number;
  index: number;
  base_repo_id: number;
  head_repo_id: number;
}

async function openPulls(db: Knex, column: 'head' | 'base', repoId: number, branch: string, opts: { askedBefore?: number } = {}): Promise<OpenPull[]> {
  const query = db('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
    .where(`p.${column}_repo_id`, repoId).andWhere(`p.${column}_branch`, branch)
    .andWhere('i.is_closed', false).andWhere('p.has_merged', false);
  const { askedBefore } = opts;
  if (askedBefore !== undefined) query.andWhere((q) => q.whereNull('p.recheck_requested_unix').orWhere('p.recheck_requested_unix', '<', askedBefore));
  const rows = await query.select('p.id', 'p.index', 'p.base_repo_id', 'p.head_repo_id');
  return rows.map((r: Record<string, unknown>) => ({
    id: Number(r.id), index: Number(r.index), base_repo_id: Number(r.base_repo_id), head_repo_id: Number(r.head_repo_id),
  }));
}

async function repoPath(services: PushServices, repo: RepoRow): Promise<string> {
  const owner = await usersStore(services.db).byId(repo.owner_id);
  if (!owner) throw new Error(`repository ${repo.id} has no owner`);
  return repoDiskPath(services.config, owner.name, repo.name);
}

/** Moves refs/pull/N/head in the base repository to the head branch's new commit. */
async function moveHead(services: PushServices, headRepo: RepoRow, headPath: string, pull: OpenPull, branch: string, sha: string): Promise<void> {
  const ref = pullHeadRef(pull.index);
  if (pull.base_repo_id === headRepo.id) {
    const current = await resolveRef(headPath, ref);
    if (current !== sha) await updateRef(headPath, ref, sha, current, { reason: 'head branch pushed' });
  } else {
    const base = await reposStore(services.db).byId(pull.base_repo_id);
    if (!base) return;
    // The head lives in a fork: the base repository needs the objects, so fetch them across.
    await fetchIntoRepository(await repoPath(services, base), headPath, branchRef(branch), ref);
  }
  await services.db('pull_requests').where({ id: pull.id }).update({ head_commit_id: sha });
}

/** A push git has applied, as its post-receive work needs it. */
export interface LandedPush {
  /** The updates to follow: pull requests, merge queues, a first push's default branch. */
  updates: RefUpdate[];
  pusherId?: number | null;
  /** The push's journal row (core/push-journal.ts), deleted as its webhook events are recorded. */
  journalId?: number | null;
  /**
   * The updates whose events are recorded (default: `updates`): also those whose branch a later
   * write moved on from since, which need nothing else (core/push-journal.ts landedUpdates).
   */
  announced?: RefUpdate[];
}

/** The post-receive work of a push git has applied. */
export async function afterPush(services: PushServices, repo: RepoRow, push: LandedPush): Promise<AfterPushResult> {
  const { updates, pusherId = null, journalId = null, announced = updates } = push;
  const result: AfterPushResult = { headsMoved: [], basesMoved: [], problems: [] };
  // Hooks hear of the push (git's update is the change; its events are recorded as soon as it is
  // known, unless a catch-up recorded them first).
  await announcePush(services.db, journalId, repo.id, pusherId, announced);
  const path = await repoPath(services, repo);
  const branchUpdates = updates
    .map((u) => ({ ...u, branch: branchNameOf(u.ref) }))
    .filter((u): u is RefUpdate & { branch: string } => u.branch !== null);

  const created = branchUpdates.filter((u) => !isZeroSha(u.newSha));
  if (repo.is_empty && created.length > 0) {
    const fields: Partial<RepoRow> = { is_empty: false };
    // As Gitea: when the first push does not contain the default branch, the first pushed branch becomes it.
    if ((await resolveRef(path, branchRef(repo.default_branch))) === null) {
      const first = created[0]!.branch;
      await setDefaultBranch(path, first);
      fields.default_branch = first;
    } else if ((await getDefaultBranch(path)) !== repo.default_branch) {
      await setDefaultBranch(path, repo.default_branch);
    }
    await reposStore(services.db).update(repo.id, fields);
    repo = { ...repo, ...fields };
  }

  faultPoint('push:before-followers');
  failingPoint('push:before-followers');
  for (const u of branchUpdates) noteBranchMoved(repo.id, u.branch);
  for (const u of branchUpdates) await branchMoved(services, repo, path, u.branch, u.newSha, result);
  return result;
}

/**
 * What a branch move tells. `followers`: the open pull requests from the branch follow its new head,
 * and the merge queues into it look again (wanted at once). `waiting`: the open pull requests into
 * it check their mergeability again and the licences of a default branch are read again (these can
 * wait for the branch to be quiet: core/pulls/landing/when-quiet.ts).
 */
export type MoveParts = 'all' | 'followers' | 'waiting';

/**
 * A branch of `repo` moved to `newSha` (the zero sha: deleted), by a push or by a pull request's
 * own workflow (a merge moves its base, an update its head): the open pull requests from it follow
 * the new head, and those into it check their mergeability again. Problems are collected, not thrown.
 */
export async function branchMoved(
  services: PushServices, repo: RepoRow, path: string, branch: string, newSha: string, result: AfterPushResult, parts: MoveParts = 'all',
): Promise<void> {
  if (parts !== 'waiting') await followersMoved(services, repo, path, branch, newSha, result);
  if (parts === 'followers') return;
  if (!isZeroSha(newSha) && branch === repo.default_branch) await refreshRepoLicenses(services.db, repo, path).catch((err: Error) => result.problems.push(err));
  await waitingMoved(services, repo, branch, newSha, result);
}

async function followersMoved(services: PushServices, repo: RepoRow, path: string, branch: string, newSha: string, result: AfterPushResult): Promise<void> {
  const deleted = isZeroSha(newSha);
  // Open pull requests from a deleted branch keep their last head; the record says the branch is gone.
  if (deleted) await markHeadBranchDeleted(services.db, repo.id, branch);
  for (const pull of await openPulls(services.db, 'head', repo.id, branch)) {
    if (deleted) continue; // the pull request keeps its last head; closing it is the user's call
    const key: PullKey = { repoId: pull.base_repo_id, index: pull.index };
    try {
      await moveHead(services, repo, path, pull, branch, newSha);
      result.headsMoved.push(`pull/${key.repoId}/${key.index}`);
      await services.pullWorkflows?.signal(key, headChangedSignal, [newSha]);
      await nudgeQueues(services.db, services.pullWorkflows, { repoId: pull.base_repo_id, pullIds: [pull.id] }, `head of #${pull.index} moved`);
    } catch (err) {
      result.problems.push(err as Error);
    }
  }
  if (!deleted) await nudgeQueues(services.db, services.pullWorkflows, { repoId: repo.id, branch }, `${branch} moved`);
}

async function waitingMoved(services: PushServices, repo: RepoRow, branch: string, newSha: string, result: AfterPushResult): Promise<void> {
  // Signalled SIGNALS_AT_ONCE at a time: a base with a thousand waiting pull requests is told in
  // seconds, not in a thousand round trips one after another.
  const toTell = await pullsToRecheck(services.db, repo.id, branch);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(SIGNALS_AT_ONCE, toTell.length) }, async () => {
    while (next < toTell.length) {
      const pull = toTell[next++]!;
      const key: PullKey = { repoId: pull.base_repo_id, index: pull.index };
      result.basesMoved.push(`pull/${key.repoId}/${key.index}`);
      try {
        await services.pullWorkflows?.signal(key, baseChangedSignal, [newSha]);
      } catch (err) {
        result.problems.push(err as Error);
      }
    }
  }));
}

const SIGNALS_AT_ONCE = 8;

/**
 * A request to check again is good for this long: a workflow that was asked and never checked (it
 * was terminated, say) is asked again after it.
 */
const RECHECK_REQUEST_SECONDS = 30;

/**
 * The open pull requests into a branch that moved, less those already asked to check again and not
 * yet started on it: their check has still to read the references, and will see this move too (the
 * check clears the request before it reads them; core/pulls/mergeability.ts). A merge queue moving
 * main ten times a second wakes each workflow once per check, not once per move.
 */
async function pullsToRecheck(db: Knex, repoId: number, branch: string): Promise<OpenPull[]> {
  const now = nowUnix();
  const open = await openPulls(db, 'base', repoId, branch, { askedBefore: now - RECHECK_REQUEST_SECONDS });
  if (open.length > 0) await db('pull_requests').whereIn('id', open.map((p) => p.id)).update({ recheck_requested_unix: now });
  return open;
}

/** branchMoved for a repository known by id (the workflow's activities know ids, not rows). */
export async function repositoryBranchMoved(services: PushServices, repoId: number, branch: string, newSha: string, parts: MoveParts = 'all'): Promise<AfterPushResult> {
  const result: AfterPushResult = { headsMoved: [], basesMoved: [], problems: [] };
  const repo = await reposStore(services.db).byId(repoId);
  if (!repo) return result; // deleted meanwhile: nobody left to tell
  const path = await repoPath(services, repo);
  // Announcements are coalesced (core/pulls/landing/base-moved.ts): tell where the branch is now.
  const now = isZeroSha(newSha) ? null : await resolveRef(path, branchRef(branch));
  await branchMoved(services, repo, path, branch, now ?? newSha, result, parts);
  return result;
}

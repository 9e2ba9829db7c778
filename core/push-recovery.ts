// Post-receive work that a crash, or a failing step, left undone. A push moves its references in
// git first; only then does the API process record its webhook events and tell the pull requests
// (core/push.ts afterPush). The events are journalled (core/push-journal.ts): a push whose events
// were never recorded is replayed whole, for what git applied. And the pull requests: those
// from a pushed branch follow it (refs/pull/N/head, head_commit_id), those into it check their
// mergeability again. A process that dies in between leaves the first naming their old head, so a
// status posted on the new head reaches no pull request (statuses find theirs by head_commit_id)
// and an auto-merge waiting for it waits for ever; and leaves the second showing a check of a base
// that is gone. So each process that serves pushes, when it starts, compares every open pull
// request's recorded head and checked base with the branches, and replays the part of each move
// that did not happen; and so does a sweep every PUSH_CATCH_UP_SECONDS, for what a failing step
// (the database away mid-push) left (app/push-catch-up.ts).
import { isSettledCheck } from '../db/pulls.js';
import { reposStore } from '../db/repos.js';
import { nowUnix } from '../db/time.js';
import { repoDiskPath } from './repositories.js';
import { branchRef, isValidBranchName, readRefs, zeroSha } from '../git/index.js';
import { afterPush, repositoryBranchMoved, type PushServices } from './push.js';
import { forgetPush, journalledPushes, landedUpdates, UNAPPLIED_PUSH_KEPT_SECONDS } from './push-journal.js';

export interface MissedPushes {
  /** Open pull requests whose head and base were read. */
  pulls: number;
  /** References of journalled pushes whose webhook events were recorded now, as `<repo id>:<ref>`. */
  announced: string[];
  /** Head branches whose move was replayed (their pull requests followed), as `<repo id>:<branch>`. */
  replayed: string[];
  /** Base branches whose pull requests were asked to check again, as `<repo id>:<branch>`. */
  rechecked: string[];
  /** Failures that stopped a branch (or a whole repository) from being caught up. */
  problems: Error[];
  /** Every difference found, replayed or not, as keys `onlyIfSeen` takes. */
  differences: Set<string>;
}

export interface CatchUpOptions {
  /**
   * Replay only the differences also found by the sweep before (its `differences`). A push whose
   * post-receive work is under way shows one for a moment; one still there a sweep later is one
   * nobody is working on.
   */
  onlyIfSeen?: ReadonlySet<string>;
}

interface OpenPullTips {
  headRepoId: number;
  headBranch: string;
  recordedHead: string;
  headDeleted: boolean;
  baseRepoId: number;
  baseBranch: string;
  /** The base commit of the stored check; '' while none is settled (a check is still to come). */
  checkedBase: string;
}

async function openPullTips(services: PushServices): Promise<OpenPullTips[]> {
  const rows = await services.db('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
    .where('i.is_closed', false).andWhere('p.has_merged', false)
    .select('p.head_repo_id', 'p.head_branch', 'p.head_commit_id', 'p.head_branch_deleted', 'p.base_repo_id', 'p.base_branch', 'p.checked_base', 'p.status');
  return rows.map((r: Record<string, unknown>) => ({
    headRepoId: Number(r.head_repo_id), headBranch: String(r.head_branch), recordedHead: String(r.head_commit_id ?? ''), headDeleted: Boolean(r.head_branch_deleted),
    baseRepoId: Number(r.base_repo_id), baseBranch: String(r.base_branch), checkedBase: isSettledCheck(String(r.status)) ? String(r.checked_base ?? '') : '',
  })).filter((p) => isValidBranchName(p.headBranch) && isValidBranchName(p.baseBranch)); // one odd row must not stop its repository's catch-up
}

interface RepoMoves {
  /** Head branch → where it is now (the zero sha: deleted). */
  heads: Map<string, string>;
  /** Base branch → where it is now, for those some of whose pull requests hold a check of another commit. */
  bases: Map<string, string>;
}

/** What moved in one repository without its pull requests hearing of it: one read of its references. */
async function missedMoves(path: string, from: OpenPullTips[], into: OpenPullTips[]): Promise<RepoMoves> {
  const moves: RepoMoves = { heads: new Map(), bases: new Map() };
  const refs = new Set([...from.map((p) => branchRef(p.headBranch)), ...into.map((p) => branchRef(p.baseBranch))]);
  const current = await readRefs(path, [...refs]);
  for (const pull of from) {
    const sha = current.get(branchRef(pull.headBranch));
    if (sha ? sha !== pull.recordedHead : !pull.headDeleted) moves.heads.set(pull.headBranch, sha ?? zeroSha(pull.recordedHead));
  }
  for (const pull of into) {
    const sha = current.get(branchRef(pull.baseBranch));
    if (sha && pull.checkedBase && sha !== pull.checkedBase) moves.bases.set(pull.baseBranch, sha);
  }
  return moves;
}

/**
 * Where each repository lives, read for all of them at once: a sweep reads its every repository
 * with open pull requests, and two statements each would be most of its work.
 */
async function repoPaths(services: PushServices, ids: number[]): Promise<Map<number, string>> {
  const paths = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await services.db('repositories as r').join('users as u', 'u.id', 'r.owner_id')
      .whereIn('r.id', ids.slice(i, i + 500)).select('r.id', 'r.name', 'u.name as owner');
    for (const r of rows) paths.set(Number(r.id), repoDiskPath(services.config, String(r.owner), String(r.name)));
  }
  return paths;
}

function byRepo(pulls: OpenPullTips[], repoOf: (p: OpenPullTips) => number): Map<number, OpenPullTips[]> {
  const grouped = new Map<number, OpenPullTips[]>();
  for (const pull of pulls) {
    const id = repoOf(pull);
    const list = grouped.get(id);
    if (list) list.push(pull);
    else grouped.set(id, [pull]);
  }
  return grouped;
}

/**
 * The post-receive work of journalled pushes whose webhook events were never recorded (the push's
 * process died, or its announcement failed), for the updates git applied; of those a later push
 * has moved on from since, only the events. A push that applied nothing is kept for
 * UNAPPLIED_PUSH_KEPT_SECONDS: it may still be sending its pack.
 */
async function replayJournalledPushes(services: PushServices, result: MissedPushes, due: (key: string) => boolean): Promise<void> {
  const pushes = await journalledPushes(services.db);
  if (pushes.length === 0) return;
  const paths = await repoPaths(services, [...new Set(pushes.map((p) => p.repoId))]);
  for (const push of pushes) {
    try {
      const path = paths.get(push.repoId);
      const repo = path ? await reposStore(services.db).byId(push.repoId) : undefined;
      if (!path || !repo) continue; // deleted: its rows went with it
      const { followed, announced } = landedUpdates(path, push.updates, await readRefs(path, push.updates.map((u) => u.ref)), push.createdUnix);
      if (announced.length === 0) {
        if (nowUnix() - push.createdUnix > UNAPPLIED_PUSH_KEPT_SECONDS) await forgetPush(services.db, push.id);
        continue;
      }
      if (!due(`push ${push.id}`)) continue;
      const moved = await afterPush(services, repo, { updates: followed, pusherId: push.pusherId, journalId: push.id, announced });
      result.announced.push(...announced.map((u) => `${push.repoId}:${u.ref}`));
      result.problems.push(...moved.problems);
    } catch (err) {
      result.problems.push(err as Error);
    }
  }
}

/**
 * Replays the post-receive work of pushes that did not get it: the journalled pushes' first, then
 * the moves of branches whose pull requests did not follow. Two database queries (a third per 500
 * repositories), one read of reference files per repository, and work only for what differs.
 */
export async function followMissedPushes(services: PushServices, opts: CatchUpOptions = {}): Promise<MissedPushes> {
  const result: MissedPushes = { pulls: 0, announced: [], replayed: [], rechecked: [], problems: [], differences: new Set() };
  const due = (key: string) => {
    result.differences.add(key);
    return !opts.onlyIfSeen || opts.onlyIfSeen.has(key);
  };
  await replayJournalledPushes(services, result, due);
  const pulls = await openPullTips(services);
  result.pulls = pulls.length;
  const from = byRepo(pulls, (p) => p.headRepoId);
  const into = byRepo(pulls, (p) => p.baseRepoId);
  const paths = await repoPaths(services, [...new Set([...from.keys(), ...into.keys()])]);
  for (const [repoId, path] of paths) { // a repository deleted meanwhile took its pull requests
    try {
      const moves = await missedMoves(path, from.get(repoId) ?? [], into.get(repoId) ?? []);
      for (const [branch, sha] of moves.heads) {
        // The key names where the branch is now: a branch that moved again since is a new difference.
        if (!due(`head ${repoId} ${sha} ${branch}`)) continue;
        const moved = await repositoryBranchMoved(services, repoId, branch, sha, 'followers');
        result.replayed.push(`${repoId}:${branch}`);
        result.problems.push(...moved.problems);
      }
      for (const [branch, sha] of moves.bases) {
        if (!due(`base ${repoId} ${sha} ${branch}`)) continue;
        const moved = await repositoryBranchMoved(services, repoId, branch, sha, 'waiting');
        result.rechecked.push(`${repoId}:${branch}`);
        result.problems.push(...moved.problems);
      }
    } catch (err) {
      result.problems.push(err as Error);
    }
  }
  return result;
}

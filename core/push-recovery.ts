// Post-receive work a crash missed. A push moves its references in git first; only then does the
// API process move the open pull requests from the pushed branches (core/push.ts afterPush). A
// process that dies in between leaves them naming their old head, and a status posted on the new
// head reaches no pull request (statuses find theirs by head_commit_id): an auto-merge waiting for
// that status would wait for ever. So each process that serves pushes, when it starts, compares
// every open pull request's recorded head with its branch, and replays the move of each branch that
// differs: the pull requests' head references and rows follow it, their workflows hear of it.
import { reposStore } from '../db/repos.js';
import { branchRef, isValidBranchName, readRefs, zeroSha } from '../git/index.js';
import { repoPath, repositoryBranchMoved, type PushServices } from './push.js';

export interface MissedPushes {
  /** Open pull requests whose head was read. */
  pulls: number;
  /** Branches whose move was replayed, as `<repo id>:<branch>`. */
  replayed: string[];
  /** Failures that stopped a branch (or a whole repository) from being caught up. */
  problems: Error[];
}

interface OpenHead {
  headRepoId: number;
  branch: string;
  recorded: string;
  deleted: boolean;
}

async function openHeads(services: PushServices): Promise<OpenHead[]> {
  const rows = await services.db('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
    .where('i.is_closed', false).andWhere('p.has_merged', false)
    .select('p.head_repo_id', 'p.head_branch', 'p.head_commit_id', 'p.head_branch_deleted');
  return rows.map((r: Record<string, unknown>) => ({
    headRepoId: Number(r.head_repo_id), branch: String(r.head_branch), recorded: String(r.head_commit_id ?? ''), deleted: Boolean(r.head_branch_deleted),
  })).filter((h) => isValidBranchName(h.branch)); // one odd row must not stop its repository's catch-up
}

/** The branches of one repository whose open pull requests do not name their branch's commit. */
async function movedBranches(services: PushServices, repoId: number, heads: OpenHead[]): Promise<Map<string, string>> {
  const moved = new Map<string, string>();
  const repo = await reposStore(services.db).byId(repoId);
  if (!repo) return moved; // deleted with its pull requests' heads
  const current = await readRefs(await repoPath(services, repo), [...new Set(heads.map((h) => branchRef(h.branch)))]);
  for (const head of heads) {
    const sha = current.get(branchRef(head.branch));
    if (sha ? sha !== head.recorded : !head.deleted) moved.set(head.branch, sha ?? zeroSha(head.recorded));
  }
  return moved;
}

/**
 * Replays the moves of pushed branches whose post-receive work did not happen. One database query,
 * one read of reference files per head repository, and work only for the branches that differ.
 */
export async function followMissedPushes(services: PushServices): Promise<MissedPushes> {
  const heads = await openHeads(services);
  const byRepo = new Map<number, OpenHead[]>();
  for (const head of heads) {
    const list = byRepo.get(head.headRepoId);
    if (list) list.push(head);
    else byRepo.set(head.headRepoId, [head]);
  }
  const result: MissedPushes = { pulls: heads.length, replayed: [], problems: [] };
  for (const [repoId, repoHeads] of byRepo) {
    try {
      for (const [branch, sha] of await movedBranches(services, repoId, repoHeads)) {
        const moved = await repositoryBranchMoved(services, repoId, branch, sha, 'followers');
        result.replayed.push(`${repoId}:${branch}`);
        result.problems.push(...moved.problems);
      }
    } catch (err) {
      result.problems.push(err as Error);
    }
  }
  return result;
}

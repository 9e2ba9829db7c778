// Rebasing without a worktree. git 2.39's merge-tree has no --merge-base, so a cherry-pick (a
// three-way merge of parent, current tip and commit) is expressed as an ordinary merge-tree between
// two throw-away commits that share one throw-away parent holding the commit's parent tree. The
// helper objects are unreachable and are pruned by gc like any other loose garbage.
import { readCommits, type CommitInfo } from './commits.js';
import { MergeConflictError, UnrelatedHistoriesError, type ConflictOperation } from './merge-errors.js';
import { mergeTree, type MergeTreeResult } from './merge-tree.js';
import { commitTree, emptyTree, type Identity } from './objects.js';
import { assertRevision, mergeBase } from './refs.js';
import { gitOk } from './runner.js';

// Fixed identity and date: the helper commits are deterministic, so repeating a rebase reuses them.
const HELPER: Identity = { name: 'pullhost', email: 'pullhost@localhost', date: '@0 +0000' };

async function helperCommit(repoPath: string, tree: string, parents: string[]): Promise<string> {
  return commitTree(repoPath, { tree, parents, message: 'rebase helper\n', author: HELPER, committer: HELPER, cleanup: 'verbatim' });
}

/** The tree of a three-way merge of `ours` and `theirs` whose common base is `baseTree`. */
export async function threeWayMergeTrees(
  repoPath: string,
  baseTree: string,
  oursTree: string,
  theirsTree: string,
): Promise<MergeTreeResult> {
  const base = await helperCommit(repoPath, baseTree, []);
  const ours = await helperCommit(repoPath, oursTree, [base]);
  const theirs = await helperCommit(repoPath, theirsTree, [base]);
  return mergeTree(repoPath, ours, theirs);
}

/** The commits `git rebase <onto>` would replay, oldest first: no merges, no commits already upstream. */
async function commitsToReplay(repoPath: string, onto: string, head: string): Promise<string[]> {
  const out = await gitOk(
    ['rev-list', '--reverse', '--topo-order', '--no-merges', '--right-only', '--cherry-pick', '--end-of-options', `${onto}...${head}`],
    { cwd: repoPath },
  );
  return out.split('\n').filter((l) => l.length > 0);
}

async function hasMergeCommits(repoPath: string, from: string, to: string): Promise<boolean> {
  const out = await gitOk(['rev-list', '--merges', '--max-count=1', '--end-of-options', to, `^${from}`], { cwd: repoPath });
  return out.trim().length > 0;
}

export interface RebaseOptions {
  /** The commit to build on (the base branch's tip). */
  onto: string;
  /** The tip of the commits to replay (the head branch's tip). */
  head: string;
  /** Committer of every rewritten commit; authors and messages are kept. */
  committer: Identity;
  /** Named in a MergeConflictError. */
  operation: ConflictOperation;
}

/**
 * Replays the commits of `head` that `onto` lacks on top of `onto`, as `git rebase` does: merge
 * commits are skipped, commits whose change is already upstream are skipped, commits that become
 * empty are dropped, commits that were empty are kept. When `onto` is already an ancestor of a linear
 * `head`, `head` is returned unchanged (git's "Current branch is up to date"). When `head` is already
 * contained in `onto`, `onto` is returned. Returns the new tip; no reference moves.
 */
export async function rebaseCommits(repoPath: string, opts: RebaseOptions): Promise<string> {
  assertRevision(opts.onto);
  assertRevision(opts.head);
  const [ontoCommit, headCommit] = await readCommits(repoPath, [opts.onto, opts.head]);
  const onto = ontoCommit!.sha;
  const head = headCommit!.sha;
  const base = await mergeBase(repoPath, onto, head);
  if (base === null) throw new UnrelatedHistoriesError(onto, head);
  if (base === head) return onto;
  if (base === onto && !(await hasMergeCommits(repoPath, onto, head))) return head;

  const shas = await commitsToReplay(repoPath, onto, head);
  const commits = await readCommits(repoPath, shas);
  const parentShas = [...new Set(commits.map((c) => c.parents[0]).filter((p): p is string => p !== undefined))];
  const parentTrees = new Map((await readCommits(repoPath, parentShas)).map((p) => [p.sha, p.tree]));
  let tip = onto;
  let tipTree = ontoCommit!.tree;
  let empty: string | undefined;

  for (const c of commits) {
    const parentTree = c.parents[0] ? parentTrees.get(c.parents[0])! : (empty ??= await emptyTree(repoPath));
    const startedEmpty = c.tree === parentTree;
    const tree = await replayedTree(repoPath, c, parentTree, tipTree, opts.operation);
    if (!startedEmpty && tree === tipTree) continue; // became empty: already applied upstream
    tip = await commitTree(repoPath, {
      tree,
      parents: [tip],
      message: c.message,
      cleanup: 'verbatim',
      author: { name: c.author.name, email: c.author.email, date: c.author.gitDate },
      committer: opts.committer,
    });
    tipTree = tree;
  }
  return tip;
}

async function replayedTree(
  repoPath: string,
  c: CommitInfo,
  parentTree: string,
  tipTree: string,
  operation: ConflictOperation,
): Promise<string> {
  // Shortcuts that need no merge: the tip still has the parent's content, or the commit changes nothing.
  if (parentTree === tipTree) return c.tree;
  if (c.tree === parentTree) return tipTree;
  const merged = await threeWayMergeTrees(repoPath, parentTree, tipTree, c.tree);
  if (!merged.clean) throw new MergeConflictError(operation, merged.conflictedFiles, c.sha);
  return merged.tree;
}

// Merge styles in a bare repository. Each function returns the commit the base (or, for updates,
// the head) should move to and moves no reference: the caller does a compare-and-swap updateRef, so
// a base that moved meanwhile makes the merge fail instead of losing commits.
import { EmptyMergeError, MergeConflictError, NotFastForwardError, UnrelatedHistoriesError, type MergeStyle } from './merge-errors.js';
import { mergeTree } from './merge-tree.js';
import { commitTree, commitTreeInStore, predictCommitName, treeOf, type CommitIdentities, type CommitTreeOptions, type Identity } from './objects.js';
import { rebaseCommits } from './rebase.js';
import { isAncestor, isValidSha, mergeBase } from './refs.js';
import { GitError } from './runner.js';

export * from './merge-errors.js';
export { mergeTree, checkMergeability, type MergeTreeResult, type Mergeability, type MergeabilityStatus } from './merge-tree.js';
export { commitTree, type CommitIdentities, type CommitTreeOptions, type Identity } from './objects.js';
export { rebaseCommits, threeWayMergeTrees } from './rebase.js';

function assertShas(...shas: string[]): void {
  for (const s of shas) if (!isValidSha(s)) throw new TypeError(`expected a full commit name, got ${JSON.stringify(s)}`);
}

/**
 * The merge base, refusing unrelated histories and a head the base already contains. `known` is a
 * merge base the caller already computed for exactly these two commits (it saves a git process).
 */
async function requireMergeableHistory(repoPath: string, base: string, head: string, known?: string): Promise<string> {
  const mb = known && isValidSha(known) ? known : await mergeBase(repoPath, base, head);
  if (mb === null) throw new UnrelatedHistoriesError(base, head);
  if (mb === head) throw new EmptyMergeError('already-merged', `${head} is already contained in ${base}`);
  return mb;
}

/**
 * What a caller already knows about merging exactly these two commits (a mergeability check of
 * them): each saves a git process.
 */
export interface KnownMerge {
  /** Their merge base. */
  knownMergeBase?: string;
  /** The tree of their clean merge, already in the object store. */
  knownTree?: string;
  /** The base commit's tree. */
  baseTree?: string;
  /** knownTree was written by merge-tree of these two commits in this same pass, so it is in the store. */
  treeJustWritten?: boolean;
}

/** commitTree, or commitTreeInStore when the tree is certainly in the store. */
type CommitWriter = typeof commitTree;

/**
 * Commits the clean merge's tree: the known tree, or merge-tree's when there is none or git no
 * longer has it (commit-tree refuses a missing tree; loose objects nothing refers to are pruned after
 * two weeks). A tree merge-tree has just written, with the commits it merged, is certainly in the
 * store: that commit is written without git (commitTreeInStore).
 */
async function commitMergedTree(
  repoPath: string, base: string, head: string, style: MergeStyle, known: KnownMerge, commit: (tree: string, write: CommitWriter) => Promise<string>,
): Promise<string> {
  if (known.knownTree && isValidSha(known.knownTree)) {
    try {
      return await commit(known.knownTree, known.treeJustWritten ? commitTreeInStore : commitTree);
    } catch (err) {
      if (!(err instanceof GitError)) throw err;
    }
  }
  const merged = await mergeTree(repoPath, base, head);
  if (!merged.clean) throw new MergeConflictError(style, merged.conflictedFiles);
  return commit(merged.tree, commitTreeInStore);
}

/** Style `merge` (`git merge --no-ff`): a commit with parents [base, head]. */
export async function mergeNoFastForward(
  repoPath: string,
  base: string,
  head: string,
  message: string,
  ids: CommitIdentities,
  known: KnownMerge = {},
): Promise<string> {
  assertShas(base, head);
  await requireMergeableHistory(repoPath, base, head, known.knownMergeBase);
  return commitMergedTree(repoPath, base, head, 'merge', known, (tree, write) => write(repoPath, { tree, parents: [base, head], message, ...ids }));
}

/**
 * Style `squash` (`git merge --squash` then commit): one commit on the base with the merged tree.
 * A squash that changes nothing throws EmptyMergeError('nothing-to-commit') unless allowEmpty.
 */
export async function squash(
  repoPath: string,
  base: string,
  head: string,
  message: string,
  author: Identity,
  committer: Identity,
  opts: KnownMerge & { allowEmpty?: boolean } = {},
): Promise<string> {
  assertShas(base, head);
  await requireMergeableHistory(repoPath, base, head, opts.knownMergeBase);
  return commitMergedTree(repoPath, base, head, 'squash', opts, async (tree, write) => {
    const baseTree = opts.baseTree && isValidSha(opts.baseTree) ? opts.baseTree : await treeOf(repoPath, base);
    if (!opts.allowEmpty && tree === baseTree) throw new EmptyMergeError('nothing-to-commit');
    return write(repoPath, { tree, parents: [base], message, author, committer });
  });
}

/** Style `fast-forward-only` (`git merge --ff-only`): the head itself, when the base is its ancestor. */
export async function fastForwardOnly(repoPath: string, base: string, head: string): Promise<string> {
  assertShas(base, head);
  if (base === head || (await isAncestor(repoPath, base, head))) return head;
  const mb = await mergeBase(repoPath, base, head);
  if (mb === null) throw new UnrelatedHistoriesError(base, head);
  if (mb === head) throw new EmptyMergeError('already-merged', `${head} is already contained in ${base}`);
  throw new NotFastForwardError(base, head);
}

/**
 * Style `rebase`: the head's commits replayed on the base (authors and messages kept, committer
 * given); the base then fast-forwards to the returned tip.
 */
export async function rebase(repoPath: string, base: string, head: string, ids: { committer: Identity }): Promise<string> {
  assertShas(base, head);
  await requireMergeableHistory(repoPath, base, head);
  const tip = await rebaseCommits(repoPath, { onto: base, head, committer: ids.committer, operation: 'rebase' });
  if (tip === base) throw new EmptyMergeError('nothing-to-commit', 'every commit of the head is already in the base');
  return tip;
}

/** Style `rebase-merge`: rebase, then a `--no-ff` merge commit of the rebased head onto the base. */
export async function rebaseMerge(
  repoPath: string,
  base: string,
  head: string,
  message: string,
  ids: CommitIdentities,
): Promise<string> {
  assertShas(base, head);
  await requireMergeableHistory(repoPath, base, head);
  const tip = await rebaseCommits(repoPath, { onto: base, head, committer: ids.committer, operation: 'rebase-merge' });
  if (tip === base) throw new EmptyMergeError('nothing-to-commit', 'every commit of the head is already in the base');
  return commitTree(repoPath, { tree: await treeOf(repoPath, tip), parents: [base, tip], message, ...ids });
}

export interface StyleMergeRequest {
  base: string;
  head: string;
  /** Title and body; unused by rebase and fast-forward-only. */
  message: string;
  author: Identity;
  committer: Identity;
  /** What a mergeability check of exactly base and head found, when the caller has one. */
  known?: KnownMerge;
}

/** The commit the base should move to for a merge `style`. */
export async function mergeCommitForStyle(repoPath: string, style: MergeStyle, req: StyleMergeRequest): Promise<string> {
  const ids = { author: req.author, committer: req.committer };
  switch (style) {
    case 'merge': return mergeNoFastForward(repoPath, req.base, req.head, req.message, ids, req.known);
    case 'squash': return squash(repoPath, req.base, req.head, req.message, req.author, req.committer, req.known);
    case 'fast-forward-only': return fastForwardOnly(repoPath, req.base, req.head);
    case 'rebase': return rebase(repoPath, req.base, req.head, ids);
    case 'rebase-merge': return rebaseMerge(repoPath, req.base, req.head, req.message, ids);
    default: throw new TypeError(`unknown merge style: ${String(style)}`);
  }
}

/**
 * The commit a merge or a squash of a known clean tree writes (mergeCommitForStyle runs commit-tree
 * with exactly these options); null for the other styles and when the tree is not known.
 */
export function knownMergeCommit(style: MergeStyle, req: StyleMergeRequest): CommitTreeOptions | null {
  const { knownTree: tree, knownMergeBase: mergeBase, baseTree } = req.known ?? {};
  if (!tree || !isValidSha(tree) || !mergeBase || mergeBase === req.head) return null;
  const ids = { author: req.author, committer: req.committer };
  if (style === 'merge') return { tree, parents: [req.base, req.head], message: req.message, ...ids };
  // A squash that changes nothing is refused, not committed.
  if (style === 'squash' && baseTree !== tree) return { tree, parents: [req.base], message: req.message, ...ids };
  return null;
}

/**
 * The name of the commit mergeCommitForStyle will return, when it can be known before git runs: a
 * merge or a squash of a known clean tree, with dated identities (see predictCommitName).
 */
export function predictMergeCommit(style: MergeStyle, req: StyleMergeRequest): string | null {
  const commit = knownMergeCommit(style, req);
  return commit && predictCommitName(commit);
}

export interface UpdateFromBaseRequest {
  /** The base branch's commit. */
  base: string;
  /** The pull request head's commit. */
  head: string;
  style: 'merge' | 'rebase';
  /** For style merge: "Merge branch '<base>' into <head>" (composed by the caller). */
  message: string;
  author: Identity;
  committer: Identity;
}

/**
 * "Update the PR branch": merges the base into the head (parents [head, base]) or rebases the head
 * onto the base. Returns the head's new commit. EmptyMergeError('up-to-date') when the head already
 * contains the base (Gitea answers that with 500 "is up to date").
 */
export async function updateBranchFromBase(repoPath: string, req: UpdateFromBaseRequest): Promise<string> {
  assertShas(req.base, req.head);
  const mb = await mergeBase(repoPath, req.base, req.head);
  if (mb === null) throw new UnrelatedHistoriesError(req.base, req.head);
  if (mb === req.base) throw new EmptyMergeError('up-to-date', `${req.head} already contains ${req.base}`);
  if (req.style === 'rebase') {
    return rebaseCommits(repoPath, { onto: req.base, head: req.head, committer: req.committer, operation: 'update-rebase' });
  }
  const merged = await mergeTree(repoPath, req.head, req.base);
  if (!merged.clean) throw new MergeConflictError('update-merge', merged.conflictedFiles);
  return commitTree(repoPath, {
    tree: merged.tree,
    parents: [req.head, req.base],
    message: req.message,
    author: req.author,
    committer: req.committer,
  });
}

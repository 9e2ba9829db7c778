// Three-way merges computed entirely in the object store with `git merge-tree --write-tree`
// (git >= 2.38), and the mergeability check built on it (gitea-wire §5.3).
import { UnrelatedHistoriesError } from './merge-errors.js';
import { treeOf } from './objects.js';
import { assertRevision, isValidSha, mergeBase } from './refs.js';
import { GitError, runGit } from './runner.js';

export type MergeTreeResult =
  | { clean: true; tree: string }
  | { clean: false; tree: string; conflictedFiles: string[] };

/**
 * Merges the trees of two commits (their merge base found by git) and writes the result tree.
 * A conflicted result still has a tree (with conflict markers) but must not be committed.
 * Throws UnrelatedHistoriesError when the commits share no history.
 */
export async function mergeTree(repoPath: string, baseSha: string, headSha: string): Promise<MergeTreeResult> {
  assertRevision(baseSha);
  assertRevision(headSha);
  const args = ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', '--end-of-options', baseSha, headSha];
  const r = await runGit(args, { cwd: repoPath });
  if (r.exitCode !== 0 && r.exitCode !== 1) {
    if (/unrelated histories/.test(r.stderr)) throw new UnrelatedHistoriesError(baseSha, headSha);
    throw new GitError(`git merge-tree failed: ${r.stderr.trim()}`, args, r.exitCode, r.stderr);
  }
  // "<tree>\0" then, on conflict, one "<path>\0" per conflicted path.
  const [tree, ...rest] = r.stdout.split('\0');
  if (!tree) throw new GitError('git merge-tree printed no tree', args, r.exitCode, r.stderr);
  if (r.exitCode === 0) return { clean: true, tree };
  return { clean: false, tree, conflictedFiles: rest.filter((p) => p.length > 0) };
}

export type MergeabilityStatus = 'mergeable' | 'conflict' | 'empty' | 'ancestor';

export interface Mergeability {
  status: MergeabilityStatus;
  mergeBase: string | null;
  conflictedFiles: string[];
  /** The clean merge's tree (mergeable or empty with a merge base), written to the object store: a merge of exactly these commits commits it as it is. */
  tree: string | null;
}

/**
 * Gitea's conflict check: no merge base → empty; head is the merge base (already contained in the
 * base) → ancestor; conflicting merge → conflict with its files; a clean merge whose tree equals the
 * base's tree (the head brings nothing) → empty; otherwise mergeable. The merge base and the merge
 * run side by side (the merge's answer is dropped when the history alone decides); `baseTree` is
 * the base commit's tree when the caller read it already; `merge` runs the merge (mergeTree unless
 * given: a landing's chain asks its repository's long-lived process, merge-tree-conversation.ts).
 */
export async function checkMergeability(
  repoPath: string, baseSha: string, headSha: string, opts: { baseTree?: string | null; merge?: typeof mergeTree } = {},
): Promise<Mergeability> {
  if (!isValidSha(baseSha) || !isValidSha(headSha)) throw new TypeError('checkMergeability takes full commit names');
  const merging = (opts.merge ?? mergeTree)(repoPath, baseSha, headSha).catch((err: unknown) => err as Error);
  const [base, baseTree] = await Promise.all([
    mergeBase(repoPath, baseSha, headSha),
    opts.baseTree && isValidSha(opts.baseTree) ? opts.baseTree : treeOf(repoPath, baseSha),
  ]);
  const merged = await merging;
  if (base === null) return { status: 'empty', mergeBase: null, conflictedFiles: [], tree: null };
  if (base === headSha) return { status: 'ancestor', mergeBase: base, conflictedFiles: [], tree: null };
  if (merged instanceof Error) throw merged;
  if (!merged.clean) return { status: 'conflict', mergeBase: base, conflictedFiles: merged.conflictedFiles, tree: null };
  return { status: merged.tree === baseTree ? 'empty' : 'mergeable', mergeBase: base, conflictedFiles: [], tree: merged.tree };
}

// The chain builder: merge commits built one after another on a base commit in the bare
// repository, in one pass, each on the tip the previous one left. Nothing moves a reference here:
// landing (land.ts) moves the base branch to the chain's tip once.
import {
  EmptyMergeError, MergeConflictError, NotFastForwardError, UnrelatedHistoriesError,
  checkMergeability, isValidSha, mergeCommitForStyle, mergeTreeInConversation, treeOf, type Identity, type Mergeability, type MergeStyle,
} from '../../../git/index.js';
import { failingPoint } from '../../fault-points.js';

export type ChainStyle = Exclude<MergeStyle, 'manually-merged'>;

/** One pull request to merge into the chain. */
export interface ChainEntry {
  /** pull_requests.id: whose journal the landing writes. */
  pullId: number;
  /** The head commit to merge (refs/pull/N/head as the caller read it). */
  head: string;
  style: ChainStyle;
  /** Title and body of the merge commit (unused by rebase and fast-forward-only). */
  message: string;
  author: Identity;
  committer: Identity;
  /**
   * A merge base of the head with an ancestor of `base`, when the caller knows one (the stored
   * mergeability check of this very head): for styles merge and squash it stands in for running
   * merge-base (merge-tree finds the real one itself), one git process less per link.
   */
  mergeBaseHint?: string;
}

/** An entry merged into the chain: its commit, built on `base` (the tip before it). */
export interface ChainLink {
  entry: ChainEntry;
  base: string;
  commit: string;
  /** The merge base of `base` and the head (the merged pull request keeps it for its diff). */
  mergeBase: string;
}

/** An entry git refused on the tip it met: a conflict, nothing to merge, unrelated histories. */
export interface ChainRejection {
  entry: ChainEntry;
  base: string;
  error: MergeConflictError | EmptyMergeError | NotFastForwardError | UnrelatedHistoriesError;
}

export interface Chain {
  /** The commit the chain starts from. */
  base: string;
  /** Its last commit (`base` when nothing merged). */
  tip: string;
  links: ChainLink[];
  rejected: ChainRejection[];
}

function isRefusal(err: unknown): err is ChainRejection['error'] {
  return err instanceof MergeConflictError || err instanceof EmptyMergeError || err instanceof NotFastForwardError || err instanceof UnrelatedHistoriesError;
}

/**
 * Builds the entries' commits in order on `base`. A refused entry is left out and the next one is
 * built on the same tip; with `stopAtFirstRejection` (a merge queue: what follows was built on
 * it) the chain ends there instead. Per merged entry: merge-tree (asked of the repository's
 * long-lived process) beside merge-base, then the commit (the clean tree is reused); other errors
 * (git failing, a full disk) are thrown.
 */
export async function buildChain(
  repoPath: string, base: string, entries: readonly ChainEntry[], opts: { stopAtFirstRejection?: boolean } = {},
): Promise<Chain> {
  const chain: Chain = { base, tip: base, links: [], rejected: [] };
  // The tip's tree: a merge's commit has the merged tree. Known from the start, so a head the
  // base already contains is told apart even on the first link (checkLink).
  let tipTree: string | null = entries.length > 0 ? await treeOf(repoPath, base) : null;
  const heads = new Set<string>();
  for (const entry of entries) {
    try {
      // The same head twice (an operation retried while its first attempt waits): already merged.
      if (heads.has(entry.head)) throw new EmptyMergeError('already-merged', `${entry.head} is already in the chain`);
      const check = await checkLink(repoPath, chain.tip, entry, tipTree);
      if (check.status === 'conflict') throw new MergeConflictError(entry.style, check.conflictedFiles);
      const known = { knownMergeBase: check.mergeBase ?? undefined, knownTree: check.tree ?? undefined, baseTree: tipTree ?? undefined, treeJustWritten: true };
      failingPoint('merge:before-commit');
      const commit = await mergeCommitForStyle(repoPath, entry.style, { base: chain.tip, head: entry.head, message: entry.message, author: entry.author, committer: entry.committer, known });
      chain.links.push({ entry, base: chain.tip, commit, mergeBase: check.mergeBase ?? '' });
      heads.add(entry.head);
      chain.tip = commit;
      tipTree = entry.style === 'merge' || entry.style === 'squash' ? check.tree : null;
    } catch (err) {
      if (!isRefusal(err)) throw err;
      chain.rejected.push({ entry, base: chain.tip, error: err });
      if (opts.stopAtFirstRejection) break;
    }
  }
  return chain;
}

/**
 * The merge of the entry's head into the tip: with a merge-base hint, merge-tree alone (for the
 * styles that commit its tree); otherwise the full check (merge-base beside merge-tree).
 */
async function checkLink(repoPath: string, tip: string, entry: ChainEntry, tipTree: string | null): Promise<Mergeability> {
  const hint = entry.mergeBaseHint;
  if (!hint || !isValidSha(hint) || (entry.style !== 'merge' && entry.style !== 'squash')) {
    return checkMergeability(repoPath, tip, entry.head, { baseTree: tipTree, merge: mergeTreeInConversation });
  }
  const merged = await mergeTreeInConversation(repoPath, tip, entry.head);
  // Nothing changes (the head may already be in the tip): the full check tells which refusal.
  if (merged.clean && tipTree && merged.tree === tipTree) return checkMergeability(repoPath, tip, entry.head, { baseTree: tipTree, merge: mergeTreeInConversation });
  if (!merged.clean) return { status: 'conflict', mergeBase: hint, conflictedFiles: merged.conflictedFiles, tree: null };
  return { status: 'mergeable', mergeBase: hint, conflictedFiles: [], tree: merged.tree };
}

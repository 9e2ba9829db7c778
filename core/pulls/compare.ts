// The git ranges behind a pull request's commits, files, diff and patch, all read in the base
// repository where refs/pull/<index>/head keeps the head commit (a fork's objects included).
import { NotFoundError } from '../errors.js';
import type { PullRow } from '../../db/pulls.js';
import {
  branchRef, countCommits, GitError, diffShortStat, isValidBranchName, iterateNumStat, listCommits, mergeBase, pullHeadRef, resolveRef,
  type CommitInfo, type DiffOptions, type NumStatEntry, type ShortStat,
} from '../../git/index.js';

export interface PullRange {
  /** The merge base: where the diff and files start. */
  from: string;
  /** The head commit (refs/pull/<index>/head). */
  to: string;
  /** Where the commit list starts: the base branch, or the merge base once merged. */
  commitsFrom: string;
}

/**
 * The ranges of a pull request. Merged ones use the stored merge base (the base branch has moved
 * past the head); open ones compute it against the current base branch.
 */
export async function pullRange(basePath: string, pull: PullRow): Promise<PullRange> {
  const to = await resolveRef(basePath, pullHeadRef(pull.index));
  if (!to) throw new NotFoundError('the pull request head is missing');
  if (pull.has_merged && pull.merge_base) return { from: pull.merge_base, to, commitsFrom: pull.merge_base };
  const baseSha = isValidBranchName(pull.base_branch) ? await resolveRef(basePath, branchRef(pull.base_branch)) : null;
  if (!baseSha) {
    // The base branch is gone: the stored merge base is the best start there is.
    if (!pull.merge_base) throw new NotFoundError(`base branch does not exist [name: ${pull.base_branch}]`);
    return { from: pull.merge_base, to, commitsFrom: pull.merge_base };
  }
  const from = (await mergeBase(basePath, baseSha, to)) ?? pull.merge_base;
  if (!from) throw new NotFoundError('the base and head branches have no common history');
  return { from, to, commitsFrom: baseSha };
}

export async function pullCommitPage(basePath: string, range: PullRange, page: { offset: number; limit: number }): Promise<{ total: number; commits: CommitInfo[] }> {
  const [total, commits] = await Promise.all([
    countCommits(basePath, range.commitsFrom, range.to),
    listCommits(basePath, { from: range.commitsFrom, to: range.to }, { skip: page.offset, limit: page.limit }),
  ]);
  return { total, commits };
}

/** Additions, deletions and changed files for the single-record view. */
export async function pullStats(basePath: string, range: PullRange): Promise<ShortStat> {
  return diffShortStat(basePath, range.from, range.to);
}

/**
 * One page of changed files: the total from `git diff --shortstat`, the records from numstat read
 * as a stream and abandoned once the page is full (the rest of the diff is never produced).
 */
export async function pullFilePage(
  basePath: string,
  range: PullRange,
  opts: DiffOptions,
  page: { offset: number; limit: number },
): Promise<{ total: number; files: NumStatEntry[] }> {
  const statsPromise = diffShortStat(basePath, range.from, range.to, { whitespace: opts.whitespace });
  statsPromise.catch(() => undefined); // awaited below; never an unhandled rejection if the page fails first
  const files: NumStatEntry[] = [];
  let seen = 0;
  try {
    for await (const entry of iterateNumStat(basePath, range.from, range.to, opts)) {
      if (seen++ < page.offset) continue;
      files.push(entry);
      if (files.length >= page.limit) break;
    }
  } catch (err) {
    // git refuses a skip-to path that is not in the diff; like a page past the end, that is empty.
    if (!(opts.skipTo && err instanceof GitError && /No such path/.test(err.stderr))) throw err;
  }
  const stats = await statsPromise;
  return { total: stats.files, files };
}

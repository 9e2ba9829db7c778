// The git ranges behind a pull request's commits, files, diff and patch, all read in the base
// repository where refs/pull/<index>/head keeps the head commit (a fork's objects included).
import { NotFoundError } from '../errors.js';
import type { PullRow } from '../../db/pulls.js';
import { readCache } from '../read-cache.js';
import {
  branchRef, countCommits, GitError, diffNumStat, diffShortStat, isValidBranchName, iterateNumStat, listCommits, mergeBase, pullHeadRef,
  type CommitInfo, type DiffOptions, type NumStatEntry, type ShortStat,
} from '../../git/index.js';
import { readRefs } from '../../git/ref-files.js';

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
  const headRef = pullHeadRef(pull.index);
  const baseRef = isValidBranchName(pull.base_branch) ? branchRef(pull.base_branch) : null;
  // Read from the reference files: no git process when nothing but references is needed.
  const refs = await readRefs(basePath, baseRef ? [headRef, baseRef] : [headRef]);
  const to = refs.get(headRef);
  if (!to) throw new NotFoundError('the pull request head is missing');
  if (pull.has_merged && pull.merge_base) return { from: pull.merge_base, to, commitsFrom: pull.merge_base };
  const baseSha = baseRef ? refs.get(baseRef) : undefined;
  if (!baseSha) {
    // The base branch is gone: the stored merge base is the best start there is.
    if (!pull.merge_base) throw new NotFoundError(`base branch does not exist [name: ${pull.base_branch}]`);
    return { from: pull.merge_base, to, commitsFrom: pull.merge_base };
  }
  const from = (await cachedMergeBase(basePath, baseSha, to)) ?? pull.merge_base;
  if (!from) throw new NotFoundError('the base and head branches have no common history');
  return { from, to, commitsFrom: baseSha };
}

/** The merge base of two commits, computed once per pair. */
export async function cachedMergeBase(basePath: string, a: string, b: string): Promise<string | null> {
  const found = await readCache.memo(`mb\0${basePath}\0${a}\0${b}`, async () => (await mergeBase(basePath, a, b)) ?? '', () => 128);
  return found || null;
}

export async function pullCommitPage(basePath: string, range: PullRange, page: { offset: number; limit: number }): Promise<{ total: number; commits: CommitInfo[] }> {
  const key = `${basePath}\0${range.commitsFrom}\0${range.to}`;
  const [total, commits] = await Promise.all([
    readCache.memo(`cc\0${key}`, () => countCommits(basePath, range.commitsFrom, range.to), () => 64),
    readCache.memo(`cl\0${key}\0${page.offset}\0${page.limit}`, () => listCommits(basePath, { from: range.commitsFrom, to: range.to }, { skip: page.offset, limit: page.limit })),
  ]);
  return { total, commits };
}

/** Additions, deletions and changed files for the single-record view. */
export function pullStats(basePath: string, range: PullRange): Promise<ShortStat> {
  return cachedShortStat(basePath, range.from, range.to, {});
}

function cachedShortStat(basePath: string, from: string, to: string, opts: DiffOptions): Promise<ShortStat> {
  return readCache.memo(`ss\0${basePath}\0${from}\0${to}\0${opts.whitespace ?? ''}`, () => diffShortStat(basePath, from, to, opts), () => 128);
}

// Every changed file of a range, filled in the background after a first request streamed its page.
const filling = new Set<string>();

function fillFileList(basePath: string, key: string, range: PullRange, opts: DiffOptions): void {
  if (filling.has(key)) return;
  filling.add(key);
  diffNumStat(basePath, range.from, range.to, opts)
    .then((all) => readCache.set(key, all, all.reduce((n, f) => n + 2 * (f.filename.length + (f.previousFilename?.length ?? 0)) + 96, 0)))
    .catch(() => undefined)
    .finally(() => filling.delete(key));
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
  const statsPromise = cachedShortStat(basePath, range.from, range.to, { whitespace: opts.whitespace });
  statsPromise.catch(() => undefined); // awaited below; never an unhandled rejection if the page fails first
  const listKey = `fl\0${basePath}\0${range.from}\0${range.to}\0${opts.whitespace ?? ''}`;
  const all = opts.skipTo === undefined ? readCache.get<NumStatEntry[]>(listKey) : undefined;
  if (all) return { total: (await statsPromise).files, files: all.slice(page.offset, page.offset + page.limit) };
  if (opts.skipTo === undefined) fillFileList(basePath, listKey, range, opts);
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

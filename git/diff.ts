// Diffs between two commits, produced by git as streams (the diff and patch downloads, the PR files
// list) plus the summaries (shortstat, per-file numstat) that need no text parsing.
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { assertRevision } from './refs.js';
import { gitOk, spawnGitReadable } from './runner.js';

// The parser lives in its own module with no Node imports (worker threads can load it alone);
// re-exported here for callers that think of it as part of "diff".
export { parseUnifiedDiff, type DiffFileStatus, type DiffLimits, type ParsedDiffFile } from './diff-parse.js';

export type WhitespaceMode = 'ignore-all' | 'ignore-change' | 'ignore-eol' | 'show-all';

export interface DiffOptions {
  /** Gitea's `whitespace` query value; unknown or absent shows all. */
  whitespace?: WhitespaceMode | string;
  /** Start the output at this file (git diff --skip-to), for Gitea's `skip-to`. */
  skipTo?: string;
}

// Gitea sets core.quotePath=false, so non-ASCII names appear as UTF-8 rather than octal escapes.
const PATH_CONFIG = ['-c', 'core.quotePath=false'];
const DIFF_BASE = ['--no-color', '--no-ext-diff', '--no-textconv', '-M'];

/** The git flag for Gitea's whitespace values (GetWhitespaceFlag). */
export function whitespaceFlag(mode: string | undefined): string[] {
  switch (mode) {
    case 'ignore-all': return ['-w'];
    case 'ignore-change': return ['-b'];
    case 'ignore-eol': return ['--ignore-space-at-eol'];
    default: return [];
  }
}

function rangeArgs(from: string, to: string): string[] {
  assertRevision(from);
  assertRevision(to);
  return ['--end-of-options', from, to];
}

function optionArgs(opts: DiffOptions): string[] {
  const args = whitespaceFlag(opts.whitespace);
  if (opts.skipTo !== undefined && opts.skipTo !== '') {
    if (opts.skipTo.includes('\0')) throw new TypeError('invalid skip-to path');
    args.push(`--skip-to=${opts.skipTo}`);
  }
  return args;
}

/**
 * `git diff from to` as a stream. With `binary`, binary changes are included (--binary) so the output
 * applies with `git apply`. The stream errors if git fails.
 */
export function streamDiff(
  repoPath: string,
  fromSha: string,
  toSha: string,
  opts: DiffOptions & { binary?: boolean } = {},
): Readable {
  const args = [...PATH_CONFIG, 'diff', ...DIFF_BASE, ...(opts.binary ? ['--binary'] : []), ...optionArgs(opts)];
  return spawnGitReadable([...args, ...rangeArgs(fromSha, toSha)], { cwd: repoPath });
}

/** `git format-patch --stdout from..to`: one mail per commit, oldest first. */
export function streamFormatPatch(repoPath: string, fromSha: string, toSha: string, opts: { binary?: boolean } = {}): Readable {
  assertRevision(fromSha);
  assertRevision(toSha);
  const args = [...PATH_CONFIG, 'format-patch', '--stdout', '--no-signature', '--no-color', '-M',
    opts.binary === false ? '--no-binary' : '--binary', '--end-of-options', `${fromSha}..${toSha}`];
  return spawnGitReadable(args, { cwd: repoPath });
}

export interface ShortStat {
  files: number;
  additions: number;
  deletions: number;
}

/** Parses " 3 files changed, 10 insertions(+), 2 deletions(-)" (any part may be absent). */
export function parseShortStat(out: string): ShortStat {
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  return {
    files: num(/(\d+) files? changed/),
    additions: num(/(\d+) insertions?\(\+\)/),
    deletions: num(/(\d+) deletions?\(-\)/),
  };
}

/** Files changed and lines added and deleted between two commits (`git diff --shortstat`). */
export async function diffShortStat(repoPath: string, from: string, to: string, opts: DiffOptions = {}): Promise<ShortStat> {
  const out = await gitOk(
    ['diff', '--shortstat', ...DIFF_BASE, ...whitespaceFlag(opts.whitespace), ...rangeArgs(from, to)],
    { cwd: repoPath },
  );
  return parseShortStat(out);
}

export type NumStatStatus = 'added' | 'deleted' | 'changed' | 'renamed' | 'copied' | 'unchanged';

export interface NumStatEntry {
  filename: string;
  previousFilename?: string;
  status: NumStatStatus;
  additions: number;
  deletions: number;
  binary: boolean;
  oldMode: string;
  newMode: string;
}

interface RawEntry {
  oldMode: string;
  newMode: string;
  code: string;
  paths: string[];
}

function toEntry(raw: RawEntry, add: string, del: string): NumStatEntry {
  const binary = add === '-' && del === '-';
  const additions = binary ? 0 : Number(add);
  const deletions = binary ? 0 : Number(del);
  const kind = raw.code[0];
  const filename = raw.paths[raw.paths.length - 1]!;
  const entry: NumStatEntry = { filename, status: 'changed', additions, deletions, binary, oldMode: raw.oldMode, newMode: raw.newMode };
  if (kind === 'A') entry.status = 'added';
  else if (kind === 'D') entry.status = 'deleted';
  else if (kind === 'R' || kind === 'C') {
    entry.status = kind === 'R' ? 'renamed' : 'copied';
    entry.previousFilename = raw.paths[0]!;
  } else if (additions === 0 && deletions === 0) entry.status = 'unchanged'; // Gitea's ToChangedFile rule
  return entry;
}

/**
 * Per-file line counts between two commits, read incrementally from one
 * `git diff --raw --numstat -z -M` (all raw records first, then the numstat records in the same
 * order). With a whitespace flag git leaves whitespace-only files out of numstat, as it does out of
 * the diff itself, so raw records are matched to numstat records by path and unmatched ones dropped.
 */
export async function* iterateNumStat(repoPath: string, from: string, to: string, opts: DiffOptions = {}): AsyncGenerator<NumStatEntry> {
  const args = ['diff', '--raw', '--numstat', '-z', ...DIFF_BASE, ...optionArgs(opts), ...rangeArgs(from, to)];
  const stream = spawnGitReadable(args, { cwd: repoPath });
  const decoder = new StringDecoder('utf8'); // a chunk may end inside a multi-byte character
  const raws: RawEntry[] = [];
  let next = 0;
  let pending: RawEntry | null = null; // a raw record waiting for its path tokens
  let rename: { add: string; del: string; paths: string[] } | null = null; // a rename's numstat waiting for its paths
  let carry = '';
  const match = (path: string, add: string, del: string): NumStatEntry => {
    while (next < raws.length) {
      const raw = raws[next++]!;
      if (raw.paths[raw.paths.length - 1] === path) return toEntry(raw, add, del);
    }
    throw new Error(`numstat record for ${path} has no raw record`);
  };
  try {
    for await (const chunk of stream) {
      const tokens = (carry + decoder.write(chunk as Buffer)).split('\0');
      carry = tokens.pop()!; // the last piece is incomplete until its NUL arrives
      for (const token of tokens) {
        if (pending) {
          pending.paths.push(token);
          const needed = pending.code[0] === 'R' || pending.code[0] === 'C' ? 2 : 1;
          if (pending.paths.length === needed) { raws.push(pending); pending = null; }
          continue;
        }
        if (rename) {
          rename.paths.push(token);
          if (rename.paths.length === 2) {
            yield match(rename.paths[1]!, rename.add, rename.del);
            rename = null;
          }
          continue;
        }
        // Numstat records start with a digit or '-', never ':'.
        if (token.startsWith(':')) {
          const [oldMode, newMode, , , code] = token.slice(1).split(' ');
          pending = { oldMode: oldMode!, newMode: newMode!, code: code!, paths: [] };
          continue;
        }
        // "<added>\t<deleted>\t<path>"; the path itself may contain tabs.
        const t1 = token.indexOf('\t');
        const t2 = token.indexOf('\t', t1 + 1);
        const add = token.slice(0, t1);
        const del = token.slice(t1 + 1, t2);
        const path = token.slice(t2 + 1);
        if (path === '') rename = { add, del, paths: [] };
        else yield match(path, add, del);
      }
    }
  } finally {
    stream.destroy();
  }
}

/** All of iterateNumStat in an array. */
export async function diffNumStat(repoPath: string, from: string, to: string, opts: DiffOptions = {}): Promise<NumStatEntry[]> {
  const out: NumStatEntry[] = [];
  for await (const e of iterateNumStat(repoPath, from, to, opts)) out.push(e);
  return out;
}

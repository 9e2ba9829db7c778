// References read from their files without starting git: the read paths that only need to know
// where a few references point (a single pull request, its files, commits and diff) otherwise
// spend a git process (several milliseconds) on each. Loose file first, then packed-refs, as
// git's files backend reads them; anything else (a reftable, a symbolic reference) is asked of git.
// The files are read synchronously: a reference is 41 bytes in the page cache, and the promise API
// pays four thread-pool round trips (open, stat, read, close) for each, which cost more than the
// reads themselves (measured: 17 % of a single pull request's CPU under load).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isValidRefName, isValidSha, resolveRefs } from './refs.js';

interface PackedRefs {
  key: string;
  refs: Map<string, string>;
}

// packed-refs parsed once per version of the file (inode, size, modification time).
const packedCache = new Map<string, PackedRefs>();
const reftableRepos = new Map<string, boolean>();

function packedRefs(repoPath: string): Map<string, string> {
  const file = join(repoPath, 'packed-refs');
  const st = statSync(file, { bigint: true, throwIfNoEntry: false });
  if (!st) return new Map();
  const key = `${st.ino}:${st.size}:${st.mtimeNs}`;
  const hit = packedCache.get(repoPath);
  if (hit && hit.key === key) return hit.refs;
  const refs = new Map<string, string>();
  for (const line of readOrEmpty(file).split('\n')) {
    if (line.startsWith('#') || line.startsWith('^') || line.length === 0) continue;
    const space = line.indexOf(' ');
    refs.set(line.slice(space + 1).trim(), line.slice(0, space));
  }
  if (packedCache.size >= 1000) packedCache.clear();
  packedCache.set(repoPath, { key, refs });
  return refs;
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function isReftable(repoPath: string): boolean {
  let known = reftableRepos.get(repoPath);
  if (known === undefined) {
    known = statSync(join(repoPath, 'reftable'), { throwIfNoEntry: false }) !== undefined;
    if (reftableRepos.size >= 10_000) reftableRepos.clear();
    reftableRepos.set(repoPath, known);
  }
  return known;
}

function isRepository(repoPath: string): boolean {
  return statSync(join(repoPath, 'HEAD'), { throwIfNoEntry: false })?.isFile() ?? false;
}

/** 'missing' when there is no loose file, null when the file is there but not an object name. */
function looseRef(repoPath: string, ref: string): string | null | 'missing' {
  try {
    const text = readFileSync(join(repoPath, ref), 'utf8').trim();
    return isValidSha(text) ? text : null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : null;
  }
}

/**
 * Where each of `refs` (full names under refs/) points; missing references are absent. One git
 * process answers instead when a reference is not a plain loose or packed one.
 */
export async function readRefs(repoPath: string, refs: string[]): Promise<Map<string, string>> {
  if (refs.some((r) => !isValidRefName(r)) || isReftable(repoPath)) return resolveRefs(repoPath, refs);
  const found = new Map<string, string>();
  const loose = refs.map((r) => looseRef(repoPath, r));
  if (loose.includes(null)) return resolveRefs(repoPath, refs);
  // A missing reference of a repository that is not there at all (storage gone, a path that names
  // nothing) is git's to report, so the caller sees the same error as from any git read.
  if (loose.includes('missing') && !isRepository(repoPath)) return resolveRefs(repoPath, refs);
  const packed = loose.includes('missing') ? packedRefs(repoPath) : null;
  refs.forEach((ref, i) => {
    const sha = loose[i] === 'missing' ? packed!.get(ref) : loose[i];
    if (sha) found.set(ref, sha);
  });
  return found;
}

/**
 * Whether the reflog of `ref` records its move from `oldSha` to `newSha` at `sinceUnix` or later
 * (a record's time is git's clock when it moved the reference). Hosted repositories log every branch
 * move (core.logAllRefUpdates), tags excepted; a reference without a reflog (a tag, a deleted branch,
 * whose reflog went with it) or in a reftable answers false.
 */
export function reflogRecords(repoPath: string, ref: string, oldSha: string, newSha: string, sinceUnix = 0): boolean {
  if (!isValidRefName(ref) || isReftable(repoPath)) return false;
  const move = `${oldSha} ${newSha} `;
  return readOrEmpty(join(repoPath, 'logs', ref)).split('\n').some((line) => line.startsWith(move) && reflogRecordUnix(line) >= sinceUnix);
}

/** `<old> <new> <name> <email> <seconds> <zone>[\t<message>]`: the seconds (NaN when malformed). */
function reflogRecordUnix(line: string): number {
  const tab = line.indexOf('\t');
  const fields = (tab >= 0 ? line.slice(0, tab) : line).split(' ');
  return Number(fields[fields.length - 2]);
}

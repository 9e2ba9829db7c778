// Reading trees and blobs without a worktree: the entries of a tree (one level or all), the entry at
// a path of a commit, a blob's bytes (bounded) or stream. Paths are plain repository paths; git is
// told to read them literally, never as pathspec magic.
import type { Readable } from 'node:stream';
import { assertRevision, isValidSha } from './refs.js';
import { gitOk, runGit, runGitBuffer, spawnGitReadable } from './runner.js';

export type TreeEntryType = 'blob' | 'tree' | 'commit';

export interface TreeEntryInfo {
  /** git's six-digit octal mode: 100644, 100755, 120000 (symlink), 040000 (tree), 160000 (submodule). */
  mode: string;
  type: TreeEntryType;
  sha: string;
  /** Bytes of a blob; 0 for trees and submodules. */
  size: number;
  /** The path relative to the tree listed (the full path for recursive listings). */
  path: string;
}

// Paths given to git below are file names, never patterns.
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

/**
 * A repository-relative path git can name and a tree may hold: no NUL, not absolute, no empty,
 * '.', '..' or '.git' component (git's update-index would store a `.git` entry that clones refuse).
 */
export function assertTreePath(path: string): void {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0') || path.startsWith('/')) {
    throw new TypeError(`invalid tree path: ${JSON.stringify(path)}`);
  }
  for (const part of path.split('/')) {
    if (part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git') throw new TypeError(`invalid tree path: ${JSON.stringify(path)}`);
  }
}

/** Parses `git ls-tree -z -l` output: "<mode> <type> <sha> <size>\t<path>\0". */
export function parseLsTree(out: string): TreeEntryInfo[] {
  const entries: TreeEntryInfo[] = [];
  for (const record of out.split('\0')) {
    if (record.length === 0) continue;
    const tab = record.indexOf('\t');
    const [mode, type, sha, size] = record.slice(0, tab).split(/ +/) as [string, TreeEntryType, string, string];
    entries.push({ mode, type, sha, size: size === '-' ? 0 : Number(size), path: record.slice(tab + 1) });
  }
  return entries;
}

/** The entries of a tree (or of a commit's tree), in git's order; with `recursive`, subtrees too. */
export async function listTree(repoPath: string, treeish: string, opts: { recursive?: boolean } = {}): Promise<TreeEntryInfo[]> {
  if (!isValidSha(treeish)) throw new TypeError(`invalid tree: ${treeish}`);
  const args = ['ls-tree', '-z', '-l', ...(opts.recursive ? ['-r', '-t'] : []), '--end-of-options', treeish];
  return parseLsTree(await gitOk(args, { cwd: repoPath }));
}

/**
 * The entry at `path` in `commit` (a full object name or reference), or null when nothing is there.
 * The empty path names the commit's root tree.
 */
export async function treeEntryAt(repoPath: string, commit: string, path: string): Promise<TreeEntryInfo | null> {
  assertRevision(commit);
  if (path === '') {
    const r = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${commit}^{tree}`], { cwd: repoPath });
    return r.exitCode === 0 ? { mode: '040000', type: 'tree', sha: r.stdout.trim(), size: 0, path: '' } : null;
  }
  assertTreePath(path);
  const out = await gitOk(['ls-tree', '-z', '-l', '--full-tree', '--end-of-options', commit, '--', path], { cwd: repoPath, env: LITERAL });
  return parseLsTree(out).find((e) => e.path === path) ?? null;
}

/** A blob's bytes, buffered: callers check the size first (streamBlob for large ones). */
export async function readBlob(repoPath: string, sha: string): Promise<Buffer> {
  if (!isValidSha(sha)) throw new TypeError(`invalid blob: ${sha}`);
  return (await runGitBuffer(['cat-file', 'blob', sha], { cwd: repoPath, okExitCodes: [0] })).stdout;
}

/** A blob's bytes as a stream, for downloads of any size. */
export function streamBlob(repoPath: string, sha: string): Readable {
  if (!isValidSha(sha)) throw new TypeError(`invalid blob: ${sha}`);
  return spawnGitReadable(['cat-file', 'blob', sha], { cwd: repoPath });
}

/** The type of an object ('commit', 'tree', 'blob', 'tag'), or null when it does not exist. */
export async function objectType(repoPath: string, sha: string): Promise<string | null> {
  if (!isValidSha(sha)) return null;
  const r = await runGit(['cat-file', '-t', '--end-of-options', sha], { cwd: repoPath });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/** A blob's size in bytes. */
export async function blobSize(repoPath: string, sha: string): Promise<number> {
  if (!isValidSha(sha)) throw new TypeError(`invalid blob: ${sha}`);
  return Number((await gitOk(['cat-file', '-s', sha], { cwd: repoPath })).trim());
}

/** The submodule URLs a `.gitmodules` blob names, by submodule path. */
export async function submoduleUrls(repoPath: string, gitmodulesBlob: string): Promise<Map<string, string>> {
  if (!isValidSha(gitmodulesBlob)) throw new TypeError(`invalid blob: ${gitmodulesBlob}`);
  const r = await runGit(['config', '-z', '--list', `--blob=${gitmodulesBlob}`], { cwd: repoPath });
  const byName = new Map<string, { path?: string; url?: string }>();
  for (const record of r.exitCode === 0 ? r.stdout.split('\0') : []) {
    const m = /^submodule\.(.+)\.(path|url)\n([\s\S]*)$/.exec(record);
    if (!m) continue;
    const entry = byName.get(m[1]!) ?? {};
    entry[m[2] as 'path' | 'url'] = m[3];
    byName.set(m[1]!, entry);
  }
  const urls = new Map<string, string>();
  for (const { path, url } of byName.values()) if (path !== undefined && url !== undefined) urls.set(path, url);
  return urls;
}

// Reading a repository's files at a commit as Gitea's contents API shows them: a file (with its
// content), a directory (its entries), a symlink (with its target) or a submodule (with its URL),
// each with the last commit that changed it.
import { resolveRevision } from './code-refs.js';
import {
  commitExists, lastCommitsOfEntries, listTree, objectType, readBlob, readCommits, readTagObject, submoduleUrls, treeEntryAt,
  treeOf, type CommitInfo, type TreeEntryInfo,
} from '../git/index.js';

/** Gitea's API.DefaultMaxBlobSize: larger files are described without their content. */
export const MAX_INLINE_BLOB_BYTES = 10 * 1024 * 1024;
/** Symlink targets are read up to this many bytes, as Gitea does. */
const MAX_SYMLINK_TARGET = 1024;

export type ContentKind = 'file' | 'dir' | 'symlink' | 'submodule';

export interface ContentEntry {
  name: string;
  path: string;
  sha: string;
  kind: ContentKind;
  size: number;
  /** Base64 of a file's bytes when asked for and small enough; null otherwise. */
  contentBase64: string | null;
  target: string | null;
  submoduleUrl: string | null;
  lastCommit: CommitInfo | null;
}

export function contentKind(entry: Pick<TreeEntryInfo, 'mode' | 'type'>): ContentKind {
  if (entry.type === 'tree') return 'dir';
  if (entry.type === 'commit') return 'submodule';
  return entry.mode === '120000' ? 'symlink' : 'file';
}

/**
 * The tree `name` leads to and what Gitea reports as its sha: a tree id is itself, a commit (or a
 * ref to one) reports the commit, an annotated tag reports the tag. Null when nothing is found.
 */
export async function resolveTreeish(repoPath: string, name: string): Promise<{ tree: string; resolved: string } | null> {
  const lower = name.toLowerCase();
  const type = await objectType(repoPath, lower);
  if (type === 'tree') return { tree: lower, resolved: lower };
  if (type === 'tag') {
    const tag = await readTagObject(repoPath, lower);
    if (!tag || !(await commitExists(repoPath, tag.object))) return null;
    return { tree: await treeOf(repoPath, tag.object), resolved: lower };
  }
  const commit = type === 'commit' ? lower : await resolveRevision(repoPath, name);
  return commit ? { tree: await treeOf(repoPath, commit), resolved: commit } : null;
}

interface ReadOptions {
  /** Include a file's bytes (the single-file answer; never in directory listings). */
  withContent: boolean;
}

async function describe(repoPath: string, commit: string, entry: TreeEntryInfo, path: string, last: CommitInfo | null, opts: ReadOptions, submodules: () => Promise<Map<string, string>>): Promise<ContentEntry> {
  const kind = contentKind(entry);
  const out: ContentEntry = {
    name: path.split('/').pop()!, path, sha: entry.sha, kind, size: entry.size, contentBase64: null, target: null, submoduleUrl: null, lastCommit: last,
  };
  if (kind === 'file' && opts.withContent && entry.size <= MAX_INLINE_BLOB_BYTES) out.contentBase64 = (await readBlob(repoPath, entry.sha)).toString('base64');
  if (kind === 'symlink') out.target = (await readBlob(repoPath, entry.sha)).subarray(0, MAX_SYMLINK_TARGET).toString('utf8');
  if (kind === 'submodule') out.submoduleUrl = (await submodules()).get(path) ?? null;
  return out;
}

/** The submodules of a commit, read once per request and only when a submodule is shown. */
function submodulesOf(repoPath: string, commit: string): () => Promise<Map<string, string>> {
  let cached: Promise<Map<string, string>> | undefined;
  return () => (cached ??= treeEntryAt(repoPath, commit, '.gitmodules').then((e) => (e && e.type === 'blob' ? submoduleUrls(repoPath, e.sha) : new Map())));
}

export type ContentsAt = { file: ContentEntry } | { dir: ContentEntry[] } | null;

/** What is at `treePath` ('' for the root) in `commit`; null when nothing is there. */
export async function contentsAt(repoPath: string, commit: string, treePath: string, opts: ReadOptions): Promise<ContentsAt> {
  const entry = await treeEntryAt(repoPath, commit, treePath);
  if (!entry) return null;
  const submodules = submodulesOf(repoPath, commit);
  if (entry.type !== 'tree') {
    const dir = treePath.includes('/') ? treePath.slice(0, treePath.lastIndexOf('/')) : '';
    const name = treePath.slice(dir.length === 0 ? 0 : dir.length + 1);
    const lastSha = (await lastCommitsOfEntries(repoPath, commit, dir, [name])).get(name);
    const [last] = lastSha ? await readCommits(repoPath, [lastSha]) : [null];
    return { file: await describe(repoPath, commit, entry, treePath, last ?? null, opts, submodules) };
  }
  const children = await listTree(repoPath, entry.sha);
  const lastShas = await lastCommitsOfEntries(repoPath, commit, treePath, children.map((c) => c.path));
  const wanted = [...new Set(lastShas.values())];
  const commits = new Map((await readCommits(repoPath, wanted)).map((c) => [c.sha, c] as const));
  const prefix = treePath === '' ? '' : `${treePath}/`;
  const dir = await Promise.all(children.map((child) => {
    const last = commits.get(lastShas.get(child.path) ?? '') ?? null;
    return describe(repoPath, commit, child, `${prefix}${child.path}`, last, { withContent: false }, submodules);
  }));
  return { dir };
}

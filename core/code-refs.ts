// What a user-given ref means in the code routes, in Gitea's orders: a branch name, then a tag, then
// a commit id (full, or abbreviated where Gitea allows it). Only these are ever handed to git, as
// full reference names or object names, so no revision syntax (`main~1`, `@{-1}`, `-x`) reaches it.
import { branchRef, isValidBranchName, isValidRefName, readAllRefs, runGit } from '../git/index.js';

export type RefKind = 'branch' | 'tag' | 'commit';

export interface RefCommit {
  /** What the caller sent. */
  input: string;
  kind: RefKind;
  /** The branch or tag name, or the commit id. */
  name: string;
  /** The commit it resolves to. */
  commit: string;
}

const HEX = /^[0-9a-f]+$/;

/** The commit an abbreviated or full commit id names (peeling tags), or null. */
export async function commitByIdPrefix(repoPath: string, id: string, minLength = 4): Promise<string | null> {
  if (!HEX.test(id) || id.length < minLength || id.length > 64) return null;
  const r = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${id}^{commit}`], { cwd: repoPath });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/** The commit a full reference name (or HEAD) leads to, peeling tags; null when none. */
async function refCommit(repoPath: string, ref: string): Promise<string | null> {
  if (ref !== 'HEAD' && !isValidRefName(ref)) return null;
  const r = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd: repoPath });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/**
 * Gitea's ResolveRefCommit: `input` as a branch, a tag, or a commit id of at least `minShaLength`
 * hex digits (a full id by default). Null when it names none of them.
 */
export async function resolveRefCommit(repoPath: string, input: string, opts: { minShaLength?: number } = {}): Promise<RefCommit | null> {
  if (typeof input !== 'string' || input.length === 0) return null;
  if (isValidBranchName(input)) {
    const commit = await refCommit(repoPath, branchRef(input));
    if (commit) return { input, kind: 'branch', name: input, commit };
  }
  const tagCommit = await refCommit(repoPath, `refs/tags/${input}`);
  if (tagCommit) return { input, kind: 'tag', name: input, commit: tagCommit };
  const commit = await commitByIdPrefix(repoPath, input.toLowerCase(), opts.minShaLength ?? 40);
  return commit ? { input, kind: 'commit', name: commit, commit } : null;
}

/**
 * What git's own revision lookup would find for a plain name, limited to safe forms: a full
 * reference (refs/...), HEAD, a branch, a tag, or an abbreviated commit id. For the routes that take
 * "a sha or a ref" (commit lists, trees, archives, tag targets).
 */
export async function resolveRevision(repoPath: string, input: string): Promise<string | null> {
  if (typeof input !== 'string' || input.length === 0 || input.length > 1024) return null;
  if (input === 'HEAD' || input.startsWith('refs/')) return refCommit(repoPath, input);
  const hex = input.toLowerCase();
  if (HEX.test(hex) && hex.length >= 40) return commitByIdPrefix(repoPath, hex, 40);
  const byName = await resolveRefCommit(repoPath, input, { minShaLength: 4 });
  return byName?.commit ?? null;
}

/**
 * Gitea's legacy "<ref>/<path>" split for raw downloads: the shortest leading part of
 * `ref/path` that is a branch, else a tag, else HEAD, else a full commit id as first segment; with
 * none, the default branch and the whole path. Branch and tag names are read with one git process.
 */
export async function splitRefAndPath(repoPath: string, defaultBranch: string, refQuery: string, reqPath: string): Promise<{ ref: RefCommit | null; treePath: string }> {
  const joined = [refQuery, reqPath].filter((s) => s.length > 0).join('/');
  const parts = joined.split('/');
  const refs = await readAllRefs(repoPath);
  for (const prefix of ['refs/heads/', 'refs/tags/']) {
    for (let i = 1; i <= parts.length; i++) {
      const name = parts.slice(0, i).join('/');
      const sha = refs.get(`${prefix}${name}`);
      if (sha === undefined) continue;
      const commit = await refCommit(repoPath, `${prefix}${name}`);
      const kind: RefKind = prefix === 'refs/heads/' ? 'branch' : 'tag';
      return { ref: commit ? { input: name, kind, name, commit } : null, treePath: parts.slice(i).join('/') };
    }
  }
  if (parts[0] === 'HEAD') {
    const commit = await refCommit(repoPath, branchRef(defaultBranch));
    return { ref: commit ? { input: 'HEAD', kind: 'branch', name: defaultBranch, commit } : null, treePath: parts.slice(1).join('/') };
  }
  if (HEX.test(parts[0]!) && (parts[0]!.length === 40 || parts[0]!.length === 64)) {
    const commit = await commitByIdPrefix(repoPath, parts[0]!, 40);
    return { ref: commit ? { input: parts[0]!, kind: 'commit', name: commit, commit } : null, treePath: parts.slice(1).join('/') };
  }
  const commit = isValidBranchName(defaultBranch) ? await refCommit(repoPath, branchRef(defaultBranch)) : null;
  return { ref: commit ? { input: defaultBranch, kind: 'branch', name: defaultBranch, commit } : null, treePath: reqPath };
}

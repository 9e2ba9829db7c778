// Reference names and reference updates. Names are validated in TypeScript (git's refs.c rules) so no
// process is spawned to validate, and every update is a compare-and-swap so a concurrent push or merge
// makes the update fail instead of being overwritten.
import { GitError, gitOk, runGit } from './runner.js';
import { readRefs } from './ref-files.js';

export const MAX_BRANCH_NAME_LENGTH = 255;

const SHA1 = /^[0-9a-f]{40}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** A full object name: 40 lowercase hex digits (SHA-1) or 64 (SHA-256). */
export function isValidSha(s: string): boolean {
  return SHA1.test(s) || SHA256.test(s);
}

/** The all-zero object name git uses for "no object", of the same length as `like`. */
export function zeroSha(like = ''): string {
  return '0'.repeat(like.length === 64 ? 64 : 40);
}

export function isZeroSha(s: string): boolean {
  return /^0+$/.test(s) && (s.length === 40 || s.length === 64);
}

// Characters git refuses anywhere in a reference name (refs.c refname_disposition): control
// characters, DEL, space, ~ ^ : ? * [ and backslash.
const FORBIDDEN_CHARACTERS = /[\x00-\x20\x7f~^:?*[\\]/;

/** git's check_refname_format with no flags: at least two components for a full name. */
function checkRefnameFormat(name: string, allowOneLevel: boolean): boolean {
  if (name === '@' || name.length === 0) return false;
  if (FORBIDDEN_CHARACTERS.test(name) || name.includes('..') || name.includes('@{')) return false;
  if (name.endsWith('.')) return false;
  const components = name.split('/');
  for (const c of components) {
    // Empty components come from a leading or trailing slash or from "//".
    if (c.length === 0 || c.startsWith('.') || c.endsWith('.lock')) return false;
  }
  return allowOneLevel || components.length >= 2;
}

/**
 * The rules of `git check-ref-format --branch`: `refs/heads/<name>` must be a valid reference name,
 * the name may not start with '-' and may not be "HEAD". Additionally refused, as the service
 * stores and shows branch names: "@" (git reads it as HEAD) and names longer than 255 characters.
 * A name such as "refs/heads/x" is valid, as for git (it names refs/heads/refs/heads/x).
 */
export function isValidBranchName(name: string): boolean {
  if (typeof name !== 'string' || name.length === 0) return false;
  if ([...name].length > MAX_BRANCH_NAME_LENGTH) return false;
  if (name.startsWith('-') || name === 'HEAD' || name === '@') return false;
  return checkRefnameFormat(`refs/heads/${name}`, false);
}

/** A full reference name under refs/ that git would accept for update-ref. */
export function isValidRefName(ref: string): boolean {
  return typeof ref === 'string' && ref.startsWith('refs/') && checkRefnameFormat(ref, false);
}

export function assertValidRefName(ref: string): void {
  if (!isValidRefName(ref)) throw new TypeError(`invalid reference name: ${JSON.stringify(ref)}`);
}

/** `refs/heads/<name>`; throws a TypeError for an invalid branch name. */
export function branchRef(name: string): string {
  if (!isValidBranchName(name)) throw new TypeError(`invalid branch name: ${JSON.stringify(name)}`);
  return `refs/heads/${name}`;
}

/** The branch name of `refs/heads/<name>`, or null for another kind of reference. */
export function branchNameOf(ref: string): string | null {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
}

/** `refs/pull/<index>/head`, where the base repository keeps each pull request's head commit. */
export function pullHeadRef(index: number): string {
  if (!Number.isSafeInteger(index) || index <= 0) throw new TypeError(`invalid pull request index: ${index}`);
  return `refs/pull/${index}/head`;
}

/**
 * A revision given to git by this layer: a full object name, a full reference name or HEAD. Anything
 * else (abbreviations, `main~1`, `-x`) is refused so user input never reaches git's revision parser.
 */
export function assertRevision(rev: string): void {
  if (!(isValidSha(rev) || rev === 'HEAD' || isValidRefName(rev))) {
    throw new TypeError(`invalid revision: ${JSON.stringify(rev)}`);
  }
}

/**
 * The object name a full reference (or HEAD) points to, or null when it does not exist. A
 * reference under refs/ is read from its file (ref-files.ts; git answers what that cannot).
 */
export async function resolveRef(repoPath: string, ref: string): Promise<string | null> {
  if (ref !== 'HEAD') {
    assertValidRefName(ref);
    return (await readRefs(repoPath, [ref])).get(ref) ?? null;
  }
  const r = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', ref], { cwd: repoPath });
  if (r.exitCode === 0) return r.stdout.trim();
  if (r.exitCode === 1) return null;
  throw new GitError(`git rev-parse failed: ${r.stderr.trim()}`, ['rev-parse', ref], r.exitCode, r.stderr);
}

export interface RefUpdateOptions {
  /** Recorded in the reflog. */
  reason?: string;
}

/**
 * Compare-and-swap: sets `ref` to `newSha` only if it currently points to `expectedOldSha` (null:
 * only if it does not exist). Returns false when the reference had moved; throws for anything else
 * (missing object, non-commit on a branch, invalid name).
 */
export async function updateRef(
  repoPath: string,
  ref: string,
  newSha: string,
  expectedOldSha: string | null,
  opts: RefUpdateOptions = {},
): Promise<boolean> {
  assertValidRefName(ref);
  if (!isValidSha(newSha) || isZeroSha(newSha)) throw new TypeError(`invalid object name: ${newSha}`);
  if (expectedOldSha !== null && !isValidSha(expectedOldSha)) {
    throw new TypeError(`invalid expected object name: ${expectedOldSha}`);
  }
  const old = expectedOldSha ?? zeroSha(newSha);
  const args = ['update-ref', ...reasonArgs(opts), '--end-of-options', ref, newSha, old];
  const r = await runGit(args, { cwd: repoPath });
  if (r.exitCode === 0) return true;
  // update-ref says "cannot lock ref" both for a moved ref and for other problems; only the current
  // value tells them apart.
  const current = await resolveRef(repoPath, ref);
  const expected = expectedOldSha === null || isZeroSha(expectedOldSha) ? null : expectedOldSha;
  if (current !== expected) return false;
  throw new GitError(`git update-ref ${ref} failed: ${r.stderr.trim()}`, args, r.exitCode, r.stderr);
}

/**
 * Deletes `ref`, only if it still points to `expectedOldSha` when given. Returns false when the
 * reference had moved or did not exist.
 */
export async function deleteRef(
  repoPath: string,
  ref: string,
  expectedOldSha?: string,
  opts: RefUpdateOptions = {},
): Promise<boolean> {
  assertValidRefName(ref);
  if (expectedOldSha !== undefined && (!isValidSha(expectedOldSha) || isZeroSha(expectedOldSha))) {
    throw new TypeError(`invalid expected object name: ${expectedOldSha}`);
  }
  const current = await resolveRef(repoPath, ref);
  if (current === null) return false;
  const old = expectedOldSha ?? current;
  const args = ['update-ref', ...reasonArgs(opts), '-d', '--end-of-options', ref, old];
  const r = await runGit(args, { cwd: repoPath });
  if (r.exitCode === 0) return true;
  const now = await resolveRef(repoPath, ref);
  if (now !== old) return false;
  throw new GitError(`git update-ref -d ${ref} failed: ${r.stderr.trim()}`, args, r.exitCode, r.stderr);
}

function reasonArgs(opts: RefUpdateOptions): string[] {
  if (opts.reason === undefined) return [];
  return ['-m', opts.reason.replace(/[\r\n]+/g, ' ')];
}

export interface BranchInfo {
  name: string;
  sha: string;
}

/** Every branch, sorted by name, with the commit it points to. */
export async function listBranches(repoPath: string): Promise<BranchInfo[]> {
  const out = await gitOk(
    ['for-each-ref', '--format=%(objectname) %(refname)', '--end-of-options', 'refs/heads/'],
    { cwd: repoPath },
  );
  const branches: BranchInfo[] = [];
  for (const [ref, sha] of parseRefLines(out)) {
    branches.push({ name: ref.slice('refs/heads/'.length), sha });
  }
  return branches;
}

/**
 * Several references of one repository read by a single git process (each spawn costs
 * milliseconds on the merge path). Missing references are absent from the map.
 */
export async function resolveRefs(repoPath: string, refs: string[]): Promise<Map<string, string>> {
  for (const ref of refs) assertValidRefName(ref);
  // for-each-ref patterns also match references below a name (refs/heads/a matches refs/heads/a/b):
  // only exact names are kept.
  const out = await gitOk(['for-each-ref', '--format=%(objectname) %(refname)', '--end-of-options', ...refs], { cwd: repoPath });
  const wanted = new Set(refs);
  const found = new Map<string, string>();
  for (const [ref, sha] of parseRefLines(out)) if (wanted.has(ref)) found.set(ref, sha);
  return found;
}

/** A reference's commit and that commit's tree (null when the reference names no commit). */
export interface RefTip {
  sha: string;
  tree: string | null;
}

/**
 * Like resolveRefs, with each commit's tree read by the same git process (a merge needs the base's
 * tree to tell an empty merge apart, and would otherwise ask for it with one more process).
 */
export async function resolveRefTips(repoPath: string, refs: string[]): Promise<Map<string, RefTip>> {
  for (const ref of refs) assertValidRefName(ref);
  const out = await gitOk(['for-each-ref', '--format=%(objectname) %(tree) %(refname)', '--end-of-options', ...refs], { cwd: repoPath });
  const wanted = new Set(refs);
  const found = new Map<string, RefTip>();
  // "<sha> <tree> <ref>", the tree empty for a reference to something other than a commit.
  for (const [rest, sha] of parseRefLines(out)) {
    const space = rest.indexOf(' ');
    const tree = rest.slice(0, space);
    const ref = rest.slice(space + 1);
    if (wanted.has(ref)) found.set(ref, { sha, tree: tree || null });
  }
  return found;
}

/** Every reference (not HEAD) and the object it points to. */
export async function readAllRefs(repoPath: string): Promise<Map<string, string>> {
  const out = await gitOk(['for-each-ref', '--format=%(objectname) %(refname)'], { cwd: repoPath });
  return new Map(parseRefLines(out));
}

// Reference names cannot contain a newline or a space, so "<sha> <ref>\n" lines are unambiguous.
function* parseRefLines(out: string): Generator<[string, string]> {
  for (const line of out.split('\n')) {
    if (line.length === 0) continue;
    const space = line.indexOf(' ');
    yield [line.slice(space + 1), line.slice(0, space)];
  }
}

/** Whether commit `a` is reachable from commit `b` (a commit is its own ancestor). */
export async function isAncestor(repoPath: string, a: string, b: string): Promise<boolean> {
  assertRevision(a);
  assertRevision(b);
  const args = ['merge-base', '--is-ancestor', '--end-of-options', a, b];
  const r = await runGit(args, { cwd: repoPath, okExitCodes: [0, 1] });
  return r.exitCode === 0;
}

/** The best common ancestor of two commits, or null when their histories are unrelated. */
export async function mergeBase(repoPath: string, a: string, b: string): Promise<string | null> {
  assertRevision(a);
  assertRevision(b);
  const r = await runGit(['merge-base', '--end-of-options', a, b], { cwd: repoPath, okExitCodes: [0, 1] });
  const sha = r.stdout.trim();
  return r.exitCode === 0 && sha ? sha : null;
}

/** Whether `sha` names a commit present in the repository. */
export async function commitExists(repoPath: string, sha: string): Promise<boolean> {
  if (!isValidSha(sha) || isZeroSha(sha)) return false;
  const r = await runGit(['cat-file', '-t', '--end-of-options', sha], { cwd: repoPath });
  return r.exitCode === 0 && r.stdout.trim() === 'commit';
}

export interface RefWithType {
  ref: string;
  sha: string;
  /** The type of the object the reference names: 'commit', 'tag' (annotated), 'tree' or 'blob'. */
  type: string;
}

/** Every reference under refs/ with the type of its object, in git's (name) order. */
export async function listRefsWithTypes(repoPath: string): Promise<RefWithType[]> {
  const out = await gitOk(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)'], { cwd: repoPath });
  const refs: RefWithType[] = [];
  for (const [rest, sha] of parseRefLines(out)) {
    const space = rest.indexOf(' ');
    refs.push({ sha, type: rest.slice(0, space), ref: rest.slice(space + 1) });
  }
  return refs;
}

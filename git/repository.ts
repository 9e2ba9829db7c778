// Bare repositories on disk: where they live, creating, forking, copying a branch between them and
// removing them.
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { commitTree, hashBlob, makeTree, type Identity, type TreeEntry } from './objects.js';
import { assertValidRefName, branchRef, resolveRef, updateRef } from './refs.js';
import { gitOk, runGit } from './runner.js';

const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

function assertPathSegment(value: string, what: string): void {
  if (
    typeof value !== 'string' || !NAME_PATTERN.test(value) || value === '.' || value === '..'
    || value.toLowerCase().endsWith('.git') || value.startsWith('-')
  ) {
    throw new TypeError(`invalid ${what}: ${JSON.stringify(value)}`);
  }
}

/**
 * `<root>/<owner>/<name>.git`, lowercased as Gitea stores them. Throws for names that are not plain
 * path segments or for a result outside root.
 */
export function repositoryPath(root: string, owner: string, name: string): string {
  assertPathSegment(owner, 'owner name');
  assertPathSegment(name, 'repository name');
  const base = resolve(root);
  const full = resolve(base, owner.toLowerCase(), `${name.toLowerCase()}.git`);
  const rel = relative(base, full);
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).length !== 2) {
    throw new TypeError(`repository path escapes the root: ${full}`);
  }
  return full;
}

// Settings every hosted repository carries: pushes may rewrite branches (branch protection is the
// service's job, not git's), smart HTTP may receive, and branch moves are logged.
const REPOSITORY_CONFIG: ReadonlyArray<[string, string]> = [
  ['receive.denyNonFastForwards', 'false'],
  ['http.receivepack', 'true'],
  ['core.logAllRefUpdates', 'true'],
];

async function applyRepositoryConfig(path: string): Promise<void> {
  for (const [key, value] of REPOSITORY_CONFIG) {
    await gitOk(['config', '--local', '--end-of-options', key, value], { cwd: path });
  }
}

function assertAbsolute(path: string): void {
  if (!isAbsolute(path)) throw new TypeError(`repository path must be absolute: ${path}`);
}

/** Creates an empty bare repository whose HEAD names `defaultBranch`. Creates missing parents. */
export async function initBareRepository(path: string, defaultBranch: string): Promise<void> {
  assertAbsolute(path);
  branchRef(defaultBranch); // validates
  await mkdir(dirname(path), { recursive: true });
  // An absolute path never starts with '-', so it cannot be read as an option.
  await gitOk(
    ['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, '--end-of-options', path],
    { cwd: dirname(path) },
  );
  await applyRepositoryConfig(path);
}

/** Points HEAD (the default branch) at `branch`; the branch need not exist yet. */
export async function setDefaultBranch(path: string, branch: string): Promise<void> {
  await gitOk(['symbolic-ref', '--end-of-options', 'HEAD', branchRef(branch)], { cwd: path });
}

/** The branch HEAD names, or null when HEAD is detached. */
export async function getDefaultBranch(path: string): Promise<string | null> {
  const r = await runGit(['symbolic-ref', '--quiet', 'HEAD'], { cwd: path });
  const ref = r.stdout.trim();
  return r.exitCode === 0 && ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
}

export interface InitialCommitOptions {
  authorName: string;
  authorEmail: string;
  message: string;
  /** Repository-relative paths ("docs/a.md") and their contents. */
  files: Record<string, string | Buffer>;
  date?: Date | string;
}

interface DirNode {
  files: Map<string, string | Buffer>;
  dirs: Map<string, DirNode>;
}

function buildDirTree(files: Record<string, string | Buffer>): DirNode {
  const root: DirNode = { files: new Map(), dirs: new Map() };
  for (const [path, content] of Object.entries(files)) {
    const parts = path.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git' || p.includes('\0'))) {
      throw new TypeError(`invalid file path: ${JSON.stringify(path)}`);
    }
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      if (node.files.has(dir)) throw new TypeError(`path is both a file and a directory: ${dir}`);
      let next = node.dirs.get(dir);
      if (!next) node.dirs.set(dir, (next = { files: new Map(), dirs: new Map() }));
      node = next;
    }
    const name = parts[parts.length - 1]!;
    if (node.dirs.has(name)) throw new TypeError(`path is both a file and a directory: ${path}`);
    node.files.set(name, content);
  }
  return root;
}

async function writeDirTree(repoPath: string, node: DirNode): Promise<string> {
  const entries: TreeEntry[] = [];
  for (const [name, content] of node.files) {
    entries.push({ mode: '100644', type: 'blob', sha: await hashBlob(repoPath, content), name });
  }
  for (const [name, child] of node.dirs) {
    entries.push({ mode: '040000', type: 'tree', sha: await writeDirTree(repoPath, child), name });
  }
  return makeTree(repoPath, entries);
}

/**
 * Creates the first commit of `branch` from in-memory files, without a worktree. Fails if the
 * branch already exists. Returns the commit's name.
 */
export async function createInitialCommit(path: string, branch: string, opts: InitialCommitOptions): Promise<string> {
  const ref = branchRef(branch);
  const tree = await writeDirTree(path, buildDirTree(opts.files));
  const who: Identity = { name: opts.authorName, email: opts.authorEmail, date: opts.date };
  const sha = await commitTree(path, { tree, parents: [], message: opts.message, author: who, committer: who });
  if (!(await updateRef(path, ref, sha, null, { reason: 'initial commit' }))) {
    throw new Error(`branch ${branch} already exists`);
  }
  return sha;
}

/**
 * Copies a repository as a fork: all branches and tags, sharing history. A local clone hard-links
 * the object files (copying when across file systems), so the fork stays whole if the base is
 * deleted, which alternates (--shared) would not. refs/pull/* are not copied.
 */
export async function forkRepository(srcPath: string, dstPath: string): Promise<void> {
  assertAbsolute(srcPath);
  assertAbsolute(dstPath);
  await mkdir(dirname(dstPath), { recursive: true });
  await gitOk(['clone', '--quiet', '--bare', '--local', '--end-of-options', srcPath, dstPath], { cwd: dirname(dstPath) });
  // The fork should not remember where on disk it came from.
  await runGit(['config', '--local', '--remove-section', 'remote.origin'], { cwd: dstPath });
  await applyRepositoryConfig(dstPath);
}

/**
 * Copies `srcRef` of another repository on disk into `dstRef` here (forced, no tags), e.g. a
 * fork's head branch into `refs/pull/N/head`. Returns the commit `dstRef` now points to.
 */
export async function fetchIntoRepository(
  dstPath: string,
  srcPath: string,
  srcRef: string,
  dstRef: string,
): Promise<string> {
  assertAbsolute(srcPath);
  assertValidRefName(srcRef);
  assertValidRefName(dstRef);
  await gitOk(
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-auto-gc', '--end-of-options', srcPath, `+${srcRef}:${dstRef}`],
    { cwd: dstPath },
  );
  const sha = await resolveRef(dstPath, dstRef);
  if (sha === null) throw new Error(`fetch did not create ${dstRef}`);
  return sha;
}

/**
 * Removes a repository directory. Refuses anything that does not look like a bare repository
 * (HEAD file and objects directory, name ending in .git), so a wrong path cannot wipe other data.
 */
export async function deleteRepositoryDirectory(path: string): Promise<void> {
  assertAbsolute(path);
  if (!path.endsWith('.git')) throw new TypeError(`not a repository path: ${path}`);
  const exists = await stat(path).then((s) => s.isDirectory(), () => false);
  if (!exists) return;
  const looksBare = await Promise.all([
    stat(join(path, 'HEAD')).then((s) => s.isFile(), () => false),
    stat(join(path, 'objects')).then((s) => s.isDirectory(), () => false),
  ]);
  if (!looksBare.every(Boolean)) throw new Error(`refusing to delete ${path}: not a bare repository`);
  await rm(path, { recursive: true, force: true });
}

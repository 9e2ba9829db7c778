// Shared fixtures for the git layer's tests: temporary directories removed on teardown, bare
// repositories, and commits built from file maps through a throw-away index (no worktree).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitTree, hashBlob, type Identity } from '../../git/objects.js';
import { initBareRepository } from '../../git/repository.js';
import { gitOk, runGit } from '../../git/runner.js';
import { updateRef } from '../../git/refs.js';
import { writeTagObject } from '../../git/tags.js';

export interface Teardown {
  teardown(fn: () => unknown): void;
}

export async function tempDir(t: Teardown, prefix = 'git-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export async function bareRepo(t: Teardown, branch = 'main'): Promise<string> {
  const dir = await tempDir(t);
  const path = join(dir, 'owner', 'repo.git');
  await initBareRepository(path, branch);
  return path;
}

export const alice: Identity = { name: 'Alice Author', email: 'alice@example.com', date: '@1700000000 +0200' };
export const bob: Identity = { name: 'Bob Builder', email: 'bob@example.com', date: '@1700003600 -0500' };
export const carol: Identity = { name: 'Carol Committer', email: 'carol@example.com', date: '@1700007200 +0000' };

/** A file's new content, `null` to delete it, or `{ mode, content }` for executables. */
export type FileChange = string | Buffer | null | { mode: '100755' | '100644'; content: string | Buffer };

/**
 * Commits `changes` on top of `parent` (null: a root commit) using a temporary index file and
 * returns the new commit. No reference moves unless `ref` is given.
 */
export async function commit(
  repo: string,
  parent: string | null | string[],
  changes: Record<string, FileChange>,
  message: string,
  opts: { author?: Identity; committer?: Identity; ref?: string } = {},
): Promise<string> {
  const parents = parent === null ? [] : Array.isArray(parent) ? parent : [parent];
  const env = { GIT_INDEX_FILE: join(repo, `test-index-${process.pid}-${Math.random().toString(36).slice(2)}`) };
  try {
    if (parents[0]) await gitOk(['read-tree', parents[0]], { cwd: repo, env });
    else await gitOk(['read-tree', '--empty'], { cwd: repo, env });
    // --index-info works without a work tree; mode 0 removes a path.
    const lines: string[] = [];
    const blobs = new Map<string, string>(); // identical text contents share one hash-object call
    for (const [path, change] of Object.entries(changes)) {
      if (change === null) {
        lines.push(`0 ${'0'.repeat(40)}\t${path}\n`);
        continue;
      }
      const { mode, content } = typeof change === 'string' || Buffer.isBuffer(change) ? { mode: '100644', content: change } : change;
      let sha = typeof content === 'string' ? blobs.get(content) : undefined;
      if (sha === undefined) {
        sha = await hashBlob(repo, content);
        if (typeof content === 'string') blobs.set(content, sha);
      }
      lines.push(`${mode} ${sha}\t${path}\n`);
    }
    if (lines.length > 0) await gitOk(['update-index', '--index-info'], { cwd: repo, env, input: lines.join('') });
    const tree = (await gitOk(['write-tree'], { cwd: repo, env })).trim();
    const author = opts.author ?? alice;
    const sha = await commitTree(repo, { tree, parents, message, author, committer: opts.committer ?? author });
    if (opts.ref) await gitOk(['update-ref', opts.ref, sha], { cwd: repo });
    return sha;
  } finally {
    await rm(env.GIT_INDEX_FILE, { force: true });
  }
}

/** `git log --format=...` lines for a range, newest first. */
export async function log(repo: string, rev: string, format: string): Promise<string[]> {
  const out = await gitOk(['log', `--format=${format}`, rev], { cwd: repo });
  return out.split('\n').filter((l) => l.length > 0);
}

/** The content of `path` at `rev`. */
export async function show(repo: string, rev: string, path: string): Promise<string> {
  const r = await runGit(['show', `${rev}:${path}`], { cwd: repo, okExitCodes: [0] });
  return r.stdout;
}

/**
 * Creates refs/tags/<name> at `commit` as core/tags.ts does (without its journal): an annotated tag
 * object first when `message` is not empty. Returns false when the tag already exists.
 */
export async function createTag(repoPath: string, name: string, commit: string, opts: { message?: string; tagger?: Identity } = {}): Promise<boolean> {
  const target = await writeTagObject(repoPath, name, commit, opts);
  return updateRef(repoPath, `refs/tags/${name}`, target, null, { reason: 'tag created' });
}

// Writing a new tree from an old one plus file changes, without a worktree: a private index file is
// filled from the old tree, edited with `update-index --index-info` (paths travel on stdin, never as
// arguments) and written out; the index file is removed whatever happens.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashBlob } from './objects.js';
import { isValidSha, zeroSha } from './refs.js';
import { gitOk } from './runner.js';
import { assertTreePath } from './tree.js';

export type FileMode = '100644' | '100755' | '120000';

export type TreeChange =
  | { path: string; delete: true }
  | { path: string; mode: FileMode; content: Buffer }
  /** An object already in the repository (a renamed file keeps its blob). */
  | { path: string; mode: FileMode; sha: string };

/** The tree `baseTree` (null: the empty tree) becomes after `changes`, applied in order. */
export async function editTree(repoPath: string, baseTree: string | null, changes: TreeChange[]): Promise<string> {
  if (baseTree !== null && !isValidSha(baseTree)) throw new TypeError(`invalid tree: ${baseTree}`);
  const lines: string[] = [];
  for (const change of changes) {
    assertTreePath(change.path);
    if ('delete' in change) {
      lines.push(`0 ${zeroSha(baseTree ?? '')}\t${change.path}\0`);
      continue;
    }
    if (!['100644', '100755', '120000'].includes(change.mode)) throw new TypeError(`invalid file mode: ${change.mode}`);
    const sha = 'sha' in change ? change.sha : await hashBlob(repoPath, change.content);
    if (!isValidSha(sha)) throw new TypeError(`invalid blob: ${sha}`);
    lines.push(`${change.mode} ${sha}\t${change.path}\0`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'pullhost-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    if (baseTree !== null) await gitOk(['read-tree', '--end-of-options', baseTree], { cwd: repoPath, env });
    if (lines.length > 0) await gitOk(['update-index', '-z', '--index-info'], { cwd: repoPath, env, input: lines.join('') });
    return (await gitOk(['write-tree'], { cwd: repoPath, env })).trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

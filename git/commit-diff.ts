// One commit's diff or patch as a stream, as Gitea's raw diff download makes them: the diff against
// the first parent (`git show` for a root commit), the patch of what the commit brings over that parent.
import type { Readable } from 'node:stream';
import { streamDiff } from './diff.js';
import { isValidSha } from './refs.js';
import { spawnGitReadable } from './runner.js';

const PATH_CONFIG = ['-c', 'core.quotePath=false'];

export function streamCommitDiff(repoPath: string, commit: string, firstParent: string | null): Readable {
  if (!isValidSha(commit)) throw new TypeError(`invalid commit: ${commit}`);
  if (firstParent !== null) return streamDiff(repoPath, firstParent, commit);
  return spawnGitReadable([...PATH_CONFIG, 'show', '--no-color', '--no-ext-diff', '--no-textconv', '--end-of-options', commit], { cwd: repoPath });
}

export function streamCommitPatch(repoPath: string, commit: string, firstParent: string | null): Readable {
  if (!isValidSha(commit) || (firstParent !== null && !isValidSha(firstParent))) throw new TypeError(`invalid commit: ${commit}`);
  const range = firstParent === null ? ['--root', '--end-of-options', commit] : ['--end-of-options', `${commit}...${firstParent}`];
  return spawnGitReadable([...PATH_CONFIG, 'format-patch', '--no-signature', '--stdout', '--no-color', ...range], { cwd: repoPath });
}

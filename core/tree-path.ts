// Repository paths from requests, cleaned as Gitea's CleanGitTreePath does: slashes and dot
// segments collapse (so "../x" is "x" and can never leave the tree), and a `.git` component or a
// NUL makes the path unusable.
import { posix } from 'node:path';

/** The cleaned path ('' for the root), or null when git could never hold it. */
export function cleanTreePath(name: string): string | null {
  if (name.includes('\0')) return null;
  if (name === '') return '';
  const cleaned = posix.normalize(`/${name}`).replace(/^\/+/, '').replace(/\/+$/, '');
  if (cleaned.split('/').some((part) => part.toLowerCase() === '.git')) return null;
  return cleaned === '.' ? '' : cleaned;
}

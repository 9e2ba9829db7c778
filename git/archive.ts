// Source archives streamed straight from `git archive` (zip, or tar with git's own gzip): nothing is
// written to disk, and a client that goes away stops git.
import type { Readable } from 'node:stream';
import { assertTreePath } from './tree.js';
import { isValidSha } from './refs.js';
import { spawnGitReadable } from './runner.js';

export type ArchiveFormat = 'zip' | 'tar.gz';

export interface ArchiveOptions {
  /** The directory every entry is put under, e.g. "widget/" (no leading '-', no '..'). */
  prefix: string;
  /** Only these repository paths (files or directories). */
  paths?: string[];
}

export function streamArchive(repoPath: string, commit: string, format: ArchiveFormat, opts: ArchiveOptions): Readable {
  if (!isValidSha(commit)) throw new TypeError(`invalid commit: ${commit}`);
  if (format !== 'zip' && format !== 'tar.gz') throw new TypeError(`invalid archive format: ${String(format)}`);
  if (opts.prefix !== '') assertTreePath(opts.prefix.replace(/\/$/, ''));
  const paths = opts.paths ?? [];
  for (const p of paths) assertTreePath(p);
  const args = ['archive', `--format=${format}`, `--prefix=${opts.prefix}`, '--end-of-options', commit, ...paths];
  return spawnGitReadable(args, { cwd: repoPath, env: { GIT_LITERAL_PATHSPECS: '1' } });
}

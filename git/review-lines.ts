// What a review comment on a line needs from git: the diff of one file between two commits, the
// commit that last changed a line, and the lines of a file at a commit. Paths are the caller's
// (a client's) text: they follow `--` and are read literally, never as pathspec magic.
import { runGit } from './runner.js';
import { assertRevision } from './refs.js';

const LITERAL = ['--literal-pathspecs'];
const SMALL = { maxBuffer: 16 * 1024 * 1024, timeoutMs: 30_000 };

/** `git diff` of one file between two commits ('' when it did not change or git refuses the path). */
export async function fileDiff(repoPath: string, from: string, to: string, path: string): Promise<string> {
  assertRevision(from);
  assertRevision(to);
  const r = await runGit([...LITERAL, 'diff', '--find-renames=50%', '--end-of-options', from, to, '--', path], { cwd: repoPath, ...SMALL }).catch(() => null);
  return r?.exitCode === 0 ? r.stdout : '';
}

/**
 * The commit that last changed line `line` (1-based) of `path` as of `rev`, or null when the file
 * is not there or is shorter (Gitea records no commit then).
 */
export async function blameLine(repoPath: string, rev: string, path: string, line: number): Promise<string | null> {
  assertRevision(rev);
  if (!Number.isSafeInteger(line) || line < 1) return null;
  // blame takes no --end-of-options (git 2.39); assertRevision has refused anything option-like.
  const r = await runGit([...LITERAL, 'blame', '--porcelain', '-L', `${line},${line}`, rev, '--', path], { cwd: repoPath, ...SMALL }).catch(() => null);
  if (!r) return null;
  if (r.exitCode !== 0) return null;
  const sha = /^([0-9a-f]{40,64}) /.exec(r.stdout)?.[1];
  return sha ?? null;
}

/** Lines `from`..`to` (1-based, inclusive) of `path` at `rev`; null when there is no such file. */
export async function fileLines(repoPath: string, rev: string, path: string, from: number, to: number): Promise<string[] | null> {
  assertRevision(rev);
  if (path.includes('\n') || path.startsWith(':')) return null;
  const r = await runGit(['cat-file', 'blob', '--end-of-options', `${rev}:${path}`], { cwd: repoPath, ...SMALL }).catch(() => null);
  if (!r || r.exitCode !== 0) return null;
  // Lines as Go's bufio.Scanner reads them: no empty line after the last newline, no trailing CR.
  const text = r.stdout.endsWith('\n') ? r.stdout.slice(0, -1) : r.stdout;
  return text === '' ? [] : text.split('\n').slice(from - 1, to).map((l) => l.replace(/\r$/, ''));
}

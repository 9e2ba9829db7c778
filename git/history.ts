// History queries: a page of the commits reachable from a tip (optionally only those touching a
// path, excluding others' history, within dates), their count, and the last commit that touched
// each entry of a directory.
import { StringDecoder } from 'node:string_decoder';
import { assertTreePath } from './tree.js';
import { assertRevision } from './refs.js';
import { gitOk, spawnGitReadable } from './runner.js';

export interface HistoryQuery {
  /** Full object name or reference the walk starts from. */
  tip: string;
  /** Commits whose history is left out (`git log ^x`). */
  not?: string[];
  /** Only commits that changed this repository path (a file or a directory). */
  path?: string;
  /** RFC 3339 bounds on the committer date. */
  since?: string;
  until?: string;
}

const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether a string is an RFC 3339 date-time git can read (Gitea's `since`/`until` check). */
export function isRfc3339(value: string): boolean {
  return RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}

function queryArgs(q: HistoryQuery): string[] {
  assertRevision(q.tip);
  const args: string[] = [];
  for (const [flag, value] of [['--since', q.since], ['--until', q.until]] as const) {
    if (value === undefined) continue;
    if (!isRfc3339(value)) throw new TypeError(`invalid date: ${JSON.stringify(value)}`);
    args.push(`${flag}=${value}`);
  }
  args.push('--end-of-options', q.tip);
  for (const n of q.not ?? []) {
    assertRevision(n);
    args.push(`^${n}`);
  }
  if (q.path !== undefined) {
    assertTreePath(q.path);
    args.push('--', q.path);
  }
  return args;
}

/** Commit names of one page of the history, newest first (git's log order). */
export async function historyPage(repoPath: string, q: HistoryQuery, page: { skip: number; limit: number }): Promise<string[]> {
  if (!Number.isSafeInteger(page.skip) || page.skip < 0 || !Number.isSafeInteger(page.limit) || page.limit < 0) {
    throw new TypeError(`invalid page: ${JSON.stringify(page)}`);
  }
  if (page.limit === 0) return [];
  const out = await gitOk(['rev-list', `--skip=${page.skip}`, `--max-count=${page.limit}`, ...queryArgs(q)], { cwd: repoPath, env: LITERAL });
  return out.split('\n').filter((l) => l.length > 0);
}

/** How many commits the history query selects. */
export async function historyCount(repoPath: string, q: HistoryQuery): Promise<number> {
  return Number((await gitOk(['rev-list', '--count', ...queryArgs(q)], { cwd: repoPath, env: LITERAL })).trim());
}

/**
 * The last commit (from `commit` back) that changed each of `names`, entries of directory `dir`
 * ('' for the root). One `git log` walks the directory's history and stops once every entry is
 * placed; merges are judged by their combined diff (a path that differs from every parent).
 */
export async function lastCommitsOfEntries(repoPath: string, commit: string, dir: string, names: string[]): Promise<Map<string, string>> {
  assertRevision(commit);
  if (dir !== '') assertTreePath(dir);
  const found = new Map<string, string>();
  const wanted = new Set(names);
  if (wanted.size === 0) return found;
  const prefix = dir === '' ? '' : `${dir}/`;
  const args = ['log', '-z', '--name-only', '-c', '--no-renames', '--format=%x00commit %H', '--end-of-options', commit];
  if (dir !== '') args.push('--', dir);
  const stream = spawnGitReadable(args, { cwd: repoPath, env: LITERAL });
  const decoder = new StringDecoder('utf8');
  let current = '';
  let pending = '';
  // Records are "\0commit <sha>\0\n<path>\0<path>\0...": paths are never empty, so an empty token
  // is always the separator before a header, and only the first path after a header has the "\n".
  let afterSeparator = true;
  let firstPath = false;
  try {
    for await (const chunk of stream) {
      const tokens = (pending + decoder.write(chunk as Buffer)).split('\0');
      pending = tokens.pop()!;
      for (const token of tokens) {
        if (token === '') {
          afterSeparator = true;
          continue;
        }
        if (afterSeparator && token.startsWith('commit ')) {
          current = token.slice('commit '.length);
          afterSeparator = false;
          firstPath = true;
          continue;
        }
        const path = firstPath && token.startsWith('\n') ? token.slice(1) : token;
        afterSeparator = firstPath = false;
        if (!path.startsWith(prefix)) continue;
        const name = path.slice(prefix.length).split('/')[0]!;
        if (wanted.has(name) && !found.has(name)) found.set(name, current);
      }
      if (found.size === wanted.size) break;
    }
  } finally {
    stream.destroy();
  }
  return found;
}

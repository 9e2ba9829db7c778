// Writing objects without a worktree: blobs, trees and commits. Merges and initial commits are built
// from these so nothing is ever checked out.
import { objectName, writeLooseObject } from './loose-objects.js';
import { assertRevision, isValidSha } from './refs.js';
import { gitOk, type GitEnv } from './runner.js';

export interface Identity {
  name: string;
  email: string;
  /**
   * When the commit was authored or committed. A Date, or a string git accepts as a date (ISO 8601
   * or git's raw "<unix seconds> <+hhmm>", which keeps the original time zone). Now when absent.
   */
  date?: Date | string;
}

export interface CommitIdentities {
  author: Identity;
  committer: Identity;
}

// git rejects or silently strips these; refusing them keeps what is stored equal to what was asked.
const IDENT_FORBIDDEN = /[<>\x00\n\r]/;

function assertIdentity(who: Identity, role: string): void {
  if (!who || typeof who.name !== 'string' || typeof who.email !== 'string') {
    throw new TypeError(`${role} identity is missing`);
  }
  if (who.name.trim().length === 0 || IDENT_FORBIDDEN.test(who.name) || IDENT_FORBIDDEN.test(who.email)) {
    throw new TypeError(`invalid ${role} identity: ${JSON.stringify(who)}`);
  }
}

function gitDate(date: Date | string | undefined): string | undefined {
  if (date === undefined) return undefined;
  if (date instanceof Date) {
    if (Number.isNaN(date.getTime())) throw new TypeError('invalid date');
    return `@${Math.floor(date.getTime() / 1000)} +0000`;
  }
  if (/[\x00-\x1f]/.test(date)) throw new TypeError(`invalid date: ${JSON.stringify(date)}`);
  return date;
}

/** GIT_AUTHOR_* and GIT_COMMITTER_* for a command that creates commits. */
export function identityEnv(ids: CommitIdentities): GitEnv {
  assertIdentity(ids.author, 'author');
  assertIdentity(ids.committer, 'committer');
  return {
    GIT_AUTHOR_NAME: ids.author.name,
    GIT_AUTHOR_EMAIL: ids.author.email,
    GIT_AUTHOR_DATE: gitDate(ids.author.date),
    GIT_COMMITTER_NAME: ids.committer.name,
    GIT_COMMITTER_EMAIL: ids.committer.email,
    GIT_COMMITTER_DATE: gitDate(ids.committer.date),
  };
}

/**
 * What `git commit -m` stores (cleanup mode "whitespace"): trailing spaces removed from each line,
 * runs of blank lines collapsed, leading and trailing blank lines removed, one final newline.
 */
export function cleanupMessage(message: string): string {
  const lines = message.replace(/\r\n/g, '\n').split('\n').map((l) => l.replace(/\s+$/, ''));
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

export interface CommitTreeOptions extends CommitIdentities {
  tree: string;
  parents: string[];
  message: string;
  /** 'whitespace' (default) stores what `git commit -m` would; 'verbatim' keeps the bytes given. */
  cleanup?: 'whitespace' | 'verbatim';
}

const storedMessage = (opts: CommitTreeOptions) => (opts.cleanup === 'verbatim' ? opts.message : cleanupMessage(opts.message));

/** Creates a commit object (no reference moves) and returns its name. The message goes by stdin. */
export async function commitTree(repoPath: string, opts: CommitTreeOptions): Promise<string> {
  if (!isValidSha(opts.tree)) throw new TypeError(`invalid tree: ${opts.tree}`);
  const args = ['commit-tree'];
  for (const p of opts.parents) {
    if (!isValidSha(p)) throw new TypeError(`invalid parent: ${p}`);
    args.push('-p', p);
  }
  args.push('--end-of-options', opts.tree);
  const out = await gitOk(args, { cwd: repoPath, input: storedMessage(opts), env: identityEnv(opts) });
  return out.trim();
}

/** Now, as git writes a date of its own: Unix seconds and this machine's offset from UTC. */
export function gitTimestamp(at: Date = new Date()): string {
  const offset = -at.getTimezoneOffset();
  const abs = Math.abs(offset);
  const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `@${Math.floor(at.getTime() / 1000)} ${zone}`;
}

// What git trims from the ends of a name or an email (ident.c's "crud"; the list differs between
// versions, so an identity with any of these at an end is not predicted at all).
const IDENT_CRUD_AT_END = /^[\x00-\x20.,:;<>"\\']|[\x00-\x20.,:;<>"\\']$/;

function identLine(who: Identity): string | null {
  const date = typeof who.date === 'string' ? /^@?(\d+) ([+-]\d{4})$/.exec(who.date) : null;
  if (!date || IDENT_CRUD_AT_END.test(who.name) || IDENT_CRUD_AT_END.test(who.email)) return null;
  return `${who.name} <${who.email}> ${date[1]} ${date[2]}`;
}

/**
 * The name commitTree will give this commit, worked out without git (the bytes of a commit object
 * are fixed by its tree, parents, identities with dates and message), so a caller can record it
 * while git writes it. Null when it cannot be sure: no explicit dates, an identity git would trim,
 * a SHA-256 repository. Only a forecast: callers compare it with what commitTree returns.
 */
export function predictCommitName(opts: CommitTreeOptions): string | null {
  const content = commitContent(opts);
  return content && objectName('commit', content);
}

/** The bytes of the commit object commitTree writes, when they are certain (see predictCommitName). */
function commitContent(opts: CommitTreeOptions): Buffer | null {
  if (!/^[0-9a-f]{40}$/.test(opts.tree) || !opts.parents.every((p) => /^[0-9a-f]{40}$/.test(p))) return null;
  assertIdentity(opts.author, 'author');
  assertIdentity(opts.committer, 'committer');
  const author = identLine(opts.author);
  const committer = identLine(opts.committer);
  if (author === null || committer === null) return null;
  const header = [`tree ${opts.tree}`, ...opts.parents.map((p) => `parent ${p}`), `author ${author}`, `committer ${committer}`].join('\n');
  return Buffer.from(`${header}\n\n${storedMessage(opts)}`, 'utf8');
}

/**
 * commitTree without a git process, for a caller that knows the tree and the parents are in the
 * object store (a tree merge-tree has just written): git checks that, this does not. Falls back to
 * commitTree when the bytes are not certain or the repository is not a bare SHA-1 one.
 */
export async function commitTreeInStore(repoPath: string, opts: CommitTreeOptions): Promise<string> {
  const content = commitContent(opts);
  return (content && await writeLooseObject(repoPath, 'commit', content)) ?? commitTree(repoPath, opts);
}

/** Writes a blob and returns its name. */
export async function hashBlob(repoPath: string, content: string | Buffer): Promise<string> {
  return (await gitOk(['hash-object', '-w', '--stdin'], { cwd: repoPath, input: content })).trim();
}

export interface TreeEntry {
  mode: '100644' | '100755' | '120000' | '040000' | '160000';
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  name: string;
}

/** Writes one tree level from its entries (names without slashes) and returns its name. */
export async function makeTree(repoPath: string, entries: TreeEntry[]): Promise<string> {
  const input = entries.map((e) => {
    if (e.name.length === 0 || /[/\0]/.test(e.name) || e.name === '.' || e.name === '..') {
      throw new TypeError(`invalid tree entry name: ${JSON.stringify(e.name)}`);
    }
    return `${e.mode} ${e.type} ${e.sha}\t${e.name}\0`;
  }).join('');
  return (await gitOk(['mktree', '-z'], { cwd: repoPath, input })).trim();
}

/** The name of the empty tree in this repository's hash format (written if absent). */
export async function emptyTree(repoPath: string): Promise<string> {
  return makeTree(repoPath, []);
}

/** The tree of a commit. */
export async function treeOf(repoPath: string, commit: string): Promise<string> {
  assertRevision(commit);
  return (await gitOk(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`], { cwd: repoPath })).trim();
}

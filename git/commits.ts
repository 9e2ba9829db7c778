// Reading commits: one, a page of a range, counts, changed files, stats and signatures.
import { parseCatFileBatch, type CommitInfo, type GpgSignature } from './commit-parse.js';
import { diffShortStat } from './diff.js';
import { emptyTree } from './objects.js';
import { assertRevision } from './refs.js';
import { gitOk, runGitBuffer } from './runner.js';

export type { CommitInfo, CommitSignatureLine, GpgSignature } from './commit-parse.js';

/** Reads commits by name with one `git cat-file --batch`, in the order given. */
export async function readCommits(repoPath: string, revs: string[]): Promise<CommitInfo[]> {
  if (revs.length === 0) return [];
  for (const rev of revs) assertRevision(rev);
  // `<rev>^{commit}` makes cat-file peel and refuse non-commits; the batch header then names the sha.
  const input = revs.map((r) => `${r}^{commit}\n`).join('');
  const r = await runGitBuffer(['cat-file', '--batch'], { cwd: repoPath, input, okExitCodes: [0] });
  return parseCatFileBatch(r.stdout);
}

/** One commit: tree, parents, author, committer (dates in RFC 3339 with their offset), message. */
export async function readCommit(repoPath: string, rev: string): Promise<CommitInfo> {
  const [commit] = await readCommits(repoPath, [rev]);
  if (!commit) throw new Error(`commit not found: ${rev}`);
  return commit;
}

export interface CommitRange {
  /** Exclusive lower end; null for all history up to `to`. */
  from: string | null;
  to: string;
}

export interface PageOptions {
  skip?: number;
  limit?: number;
}

function rangeArgs(range: CommitRange): string[] {
  assertRevision(range.to);
  if (range.from === null) return ['--end-of-options', range.to];
  assertRevision(range.from);
  return ['--end-of-options', range.to, `^${range.from}`];
}

function pageArgs(page: PageOptions): string[] {
  const args: string[] = [];
  if (page.skip !== undefined) {
    if (!Number.isSafeInteger(page.skip) || page.skip < 0) throw new TypeError(`invalid skip: ${page.skip}`);
    args.push(`--skip=${page.skip}`);
  }
  if (page.limit !== undefined) {
    if (!Number.isSafeInteger(page.limit) || page.limit < 0) throw new TypeError(`invalid limit: ${page.limit}`);
    args.push(`--max-count=${page.limit}`);
  }
  return args;
}

/** The commits of `from..to`, newest first (git log order), one page. */
export async function listCommits(repoPath: string, range: CommitRange, page: PageOptions = {}): Promise<CommitInfo[]> {
  if (page.limit === 0) return [];
  const out = await gitOk(['rev-list', ...pageArgs(page), ...rangeArgs(range)], { cwd: repoPath });
  const shas = out.split('\n').filter((l) => l.length > 0);
  return readCommits(repoPath, shas);
}

/** The number of commits in `from..to`. */
export async function countCommits(repoPath: string, from: string | null, to: string): Promise<number> {
  const out = await gitOk(['rev-list', '--count', ...rangeArgs({ from, to })], { cwd: repoPath });
  return Number(out.trim());
}

export type CommitFileStatus = 'added' | 'modified' | 'removed' | 'renamed';

export interface CommitFile {
  filename: string;
  status: CommitFileStatus;
  previousFilename?: string;
}

/**
 * The files a commit changed relative to its first parent (all files for a root commit), as Gitea
 * lists them: rename detection is off unless asked for, so a rename shows as removed plus added.
 */
export async function commitFiles(
  repoPath: string,
  sha: string,
  opts: { detectRenames?: boolean } = {},
): Promise<CommitFile[]> {
  assertRevision(sha);
  const out = await gitOk(
    ['log', '-1', '-m', '--first-parent', '--name-status', '-z', '--format=',
      opts.detectRenames ? '-M' : '--no-renames', '--end-of-options', sha],
    { cwd: repoPath },
  );
  const tokens = out.replace(/^[\n\0]+/, '').split('\0');
  const files: CommitFile[] = [];
  for (let i = 0; i < tokens.length;) {
    const code = tokens[i++]!.trim();
    if (code === '') continue;
    const kind = code[0];
    if (kind === 'R' || kind === 'C') {
      const from = tokens[i++]!;
      const to = tokens[i++]!;
      files.push(kind === 'R' ? { filename: to, status: 'renamed', previousFilename: from } : { filename: to, status: 'added' });
      continue;
    }
    const path = tokens[i++]!;
    if (kind === 'A') files.push({ filename: path, status: 'added' });
    else if (kind === 'D') files.push({ filename: path, status: 'removed' });
    else files.push({ filename: path, status: 'modified' });
  }
  return files;
}

export interface CommitStats {
  additions: number;
  deletions: number;
  total: number;
}

/** Lines added and deleted by a commit relative to its first parent (empty tree for a root commit). */
export async function commitStats(repoPath: string, sha: string): Promise<CommitStats> {
  assertRevision(sha);
  const [commit] = await readCommits(repoPath, [sha]);
  if (!commit) throw new Error(`commit not found: ${sha}`);
  const from = commit.parents[0] ?? (await emptyTree(repoPath));
  const stat = await diffShortStat(repoPath, from, commit.sha);
  return { additions: stat.additions, deletions: stat.deletions, total: stat.additions + stat.deletions };
}

/** The signature and signed payload of a commit, or null when it is not signed. Not verified. */
export async function commitSignature(repoPath: string, sha: string): Promise<GpgSignature | null> {
  return (await readCommit(repoPath, sha)).signature;
}

export interface CommitVerification {
  verified: boolean;
  reason: string;
  signature: string;
  signer: null;
  payload: string;
}

export const NOT_SIGNED_REASON = 'gpg.error.not_signed_commit';

/**
 * Gitea's verification record for a commit this service does not verify: unsigned commits get
 * `gpg.error.not_signed_commit`; signed ones carry their signature and payload, unverified, with the
 * reason given (Gitea says `gpg.error.no_gpg_keys_found` when it knows no key for the signer).
 */
export function unverifiedCommit(
  signature: GpgSignature | null,
  signedReason = 'gpg.error.no_gpg_keys_found',
): CommitVerification {
  if (!signature) return { verified: false, reason: NOT_SIGNED_REASON, signature: '', signer: null, payload: '' };
  return { verified: false, reason: signedReason, signature: signature.signature, signer: null, payload: signature.payload };
}

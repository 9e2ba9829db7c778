// The checks a file change passes before anything is written (Gitea's handleCheckErrors and
// VerifyBranchProtection), worded as Gitea words them: they are the messages clients see.
import type { Knex } from 'knex';
import { matchesFilePatterns, protectionFor, canPushUnder } from './branch-protection.js';
import { ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import type { RepoContext } from './permissions.js';
import type { UserRow } from '../db/users.js';
import { treeEntryAt, type TreeEntryInfo } from '../git/index.js';

export type FileOperation = 'create' | 'update' | 'upload' | 'rename' | 'delete';

export interface PlannedChange {
  operation: FileOperation;
  /** Cleaned repository paths. */
  treePath: string;
  fromPath: string;
  content?: Buffer;
  sha?: string;
  /** Filled by the check: the entry being replaced or moved, when there is one. */
  fromEntry?: TreeEntryInfo | null;
}

const READS_OLD: FileOperation[] = ['update', 'upload', 'delete', 'rename'];
const WRITES_NEW: FileOperation[] = ['create', 'update', 'upload', 'rename'];

/** The shortest leading part of `path` that is not in the tree (what git's lookup reports). */
async function firstMissing(repoPath: string, base: string, path: string): Promise<string> {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const sub = parts.slice(0, i).join('/');
    const entry = await treeEntryAt(repoPath, base, sub);
    if (!entry) return sub;
    if (entry.type !== 'tree') return parts.slice(0, i + 1).join('/');
  }
  return path;
}

/** Checks one change against the base commit; records the entry it replaces. */
export async function checkChange(repoPath: string, base: string, change: PlannedChange): Promise<void> {
  if (READS_OLD.includes(change.operation)) {
    const from = await treeEntryAt(repoPath, base, change.fromPath);
    if (!from && change.operation !== 'upload') throw new NotFoundError(`object does not exist [id: , rel_path: ${await firstMissing(repoPath, base, change.fromPath)}]`);
    change.fromEntry = from;
    if (change.sha && change.sha !== (from?.sha ?? '')) {
      throw new UnprocessableError(`sha does not match [given: ${change.sha}, expected: ${from?.sha ?? ''}]`);
    }
  }
  if (!WRITES_NEW.includes(change.operation)) return;
  // No part of the target path may be a file or a link, and the target itself must be free when
  // the file is new or moves there.
  const parts = change.treePath.split('/');
  for (let i = 0; i < parts.length; i++) {
    const sub = parts.slice(0, i + 1).join('/');
    const entry = await treeEntryAt(repoPath, base, sub);
    if (!entry) break;
    if (i < parts.length - 1) {
      if (entry.type !== 'tree') throw new UnprocessableError(`a file exists where you’re trying to create a subdirectory [path: ${sub}]`);
    } else if (entry.mode === '120000') {
      throw new UnprocessableError(`a symbolic link exists where you’re trying to create a subdirectory [path: ${sub}]`);
    } else if (entry.type === 'tree') {
      throw new UnprocessableError(`a directory exists where you’re trying to create a file [path: ${sub}]`);
    } else if (change.fromPath !== change.treePath || change.operation === 'create') {
      throw new UnprocessableError(`repository file already exists [path: ${change.treePath}]`);
    }
  }
}

/**
 * Gitea's VerifyBranchProtection for commits straight onto a protected branch: without push
 * rights only unprotected files may change, protected files never, and no unsigned commit where
 * signatures are required.
 */
export async function verifyBranchProtection(db: Knex, ctx: RepoContext, doer: UserRow, branch: string, treePaths: string[]): Promise<void> {
  const rule = await protectionFor(db, ctx.repo.id, branch);
  if (!rule) return;
  const canPush = await canPushUnder(db, ctx, doer, rule);
  for (const path of treePaths) {
    if (!canPush && !matchesFilePatterns(rule.settings.unprotected_file_patterns, path)) throw new ForbiddenError(`user cannot commit to repo [user: ${doer.lower_name}]`);
    if (matchesFilePatterns(rule.settings.protected_file_patterns, path)) throw new ForbiddenError(`path is protected and can not be changed [path: ${path}]`);
  }
  if (rule.settings.require_signed_commits) throw new ForbiddenError(`user cannot commit to repo [user: ${doer.lower_name}]`);
}

// Creating, updating, moving and deleting files through the API (Gitea's ChangeRepoFiles): the
// changes are checked against the branch's commit, a new tree and commit are written without a
// worktree, and the branch moves as a push would (branch protection, pull requests follow).
import { pushToBranch } from './branch-write.js';
import { checkChange, verifyBranchProtection, type FileOperation, type PlannedChange } from './file-change-checks.js';
import { ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import type { RepoContext } from './permissions.js';
import { gitIdentity } from './pulls/git-identity.js';
import type { PushServices } from './push.js';
import { repoDiskPath } from './repositories.js';
import { cleanTreePath } from './tree-path.js';
import type { UserRow } from '../db/users.js';
import {
  branchRef, commitTree, editTree, isValidBranchName, readCommit, resolveRef, treeOf, type CommitInfo, type TreeChange,
} from '../git/index.js';

export type { FileOperation };

export interface FileChangeInput {
  operation: FileOperation;
  path: string;
  fromPath?: string;
  content?: Buffer;
  sha?: string;
}

export interface ChangeFilesInput {
  files: FileChangeInput[];
  /** Empty: the default message Gitea's route makes ("Add x", "Update y", "Delete z"). */
  message?: string;
  branch?: string;
  newBranch?: string;
  forcePush?: boolean;
  author?: { name?: string; email?: string };
  committer?: { name?: string; email?: string };
  /** RFC 3339 date-times, kept with their offsets. */
  dates?: { author?: string; committer?: string };
  signoff?: boolean;
}

export interface ChangeFilesResult {
  commit: CommitInfo;
  branch: string;
  treePaths: string[];
}

interface Logger {
  warn(obj: object, msg: string): void;
}

/** Gitea's changeFilesCommitMessage: one line per kind of change. */
export function defaultCommitMessage(files: Array<{ operation: FileOperation; path: string }>): string {
  const pick = (ops: FileOperation[]) => files.filter((f) => ops.includes(f.operation)).map((f) => f.path);
  const lines: string[] = [];
  const added = pick(['create']);
  const updated = pick(['update', 'upload', 'rename']);
  const deleted = pick(['delete']);
  if (added.length) lines.push(`Add ${added.join(', ')}`);
  if (updated.length) lines.push(`Update ${updated.join(', ')}`);
  if (deleted.length) lines.push(`Delete ${deleted.join(', ')}`);
  return lines.join('\n');
}

/** Gitea's makeGitUserSignature: the identity given, else the other one given, else the doer. */
function signature(doer: UserRow, own: { name?: string; email?: string } | undefined, other: { name?: string; email?: string } | undefined) {
  const fallback = gitIdentity(doer);
  return { name: own?.name || other?.name || fallback.name, email: own?.email || other?.email || fallback.email };
}

function plan(input: FileChangeInput): PlannedChange {
  const treePath = cleanTreePath(input.path);
  if (!treePath) throw new UnprocessableError(`path contains a malformed path component [path: ${input.path}]`);
  const fromRaw = input.fromPath || input.path;
  const fromPath = cleanTreePath(fromRaw);
  if (!fromPath) throw new UnprocessableError(`path contains a malformed path component [path: ${fromRaw}]`);
  return { operation: input.operation, treePath, fromPath, content: input.content, sha: input.sha || undefined };
}

function toTreeChanges(changes: PlannedChange[]): TreeChange[] {
  const out: TreeChange[] = [];
  for (const c of changes) {
    if (c.operation === 'delete') {
      out.push({ path: c.treePath, delete: true });
      continue;
    }
    if (c.fromEntry && c.fromPath !== c.treePath) out.push({ path: c.fromPath, delete: true });
    const mode = c.fromEntry?.mode === '100755' ? '100755' : '100644';
    if (c.operation === 'rename' && c.fromEntry) out.push({ path: c.treePath, mode, sha: c.fromEntry.sha });
    else out.push({ path: c.treePath, mode, content: c.content ?? Buffer.alloc(0) });
  }
  return out;
}

export async function changeRepoFiles(
  services: PushServices, ctx: RepoContext, doer: UserRow, input: ChangeFilesInput, log?: Logger,
): Promise<ChangeFilesResult> {
  const path = repoDiskPath(services.config, ctx.owner.name, ctx.repo.name);
  const oldBranch = input.branch || ctx.repo.default_branch;
  const newBranch = input.newBranch || oldBranch;
  if (!isValidBranchName(oldBranch)) throw new UnprocessableError('[BranchName]: GitRefName');
  if (!isValidBranchName(newBranch)) throw new UnprocessableError('[NewBranchName]: GitRefName');
  const base = await resolveRef(path, branchRef(oldBranch));
  if (!base && !ctx.repo.is_empty) throw new NotFoundError(`branch does not exist [repo_id: ${ctx.repo.id} name: ${oldBranch}]`);
  const changes = input.files.map(plan);
  const treePaths = changes.map((c) => c.treePath);

  let target: string | null = base;
  if (newBranch !== oldBranch) {
    target = await resolveRef(path, branchRef(newBranch));
    if (target && !input.forcePush) throw new UnprocessableError(`branch already exists [name: ${newBranch}]`);
  } else {
    await verifyBranchProtection(services.db, ctx, doer, oldBranch, treePaths);
  }
  if (!base && changes.some((c) => c.operation === 'delete')) throw new NotFoundError(`branch does not exist [repo_id: ${ctx.repo.id} name: ${oldBranch}]`);
  if (base) for (const change of changes) await checkChange(path, base, change);

  const message = (input.message ?? '').trim() || defaultCommitMessage(changes.map((c) => ({ operation: c.operation, path: c.treePath })));
  const author = signature(doer, input.author, input.committer);
  const committer = signature(doer, input.committer, input.author);
  const now = new Date();
  const authorDate: Date | string = input.dates?.author || now;
  const committerDate: Date | string = input.dates?.committer || now;
  const tree = await editTree(path, base ? await treeOf(path, base) : null, toTreeChanges(changes));
  const sha = await commitTree(path, {
    tree, parents: base ? [base] : [], cleanup: 'verbatim',
    message: `${message}\n${input.signoff ? `\nSigned-off-by: ${committer.name} <${committer.email}>` : ''}`,
    author: { ...author, date: authorDate }, committer: { ...committer, date: committerDate },
  }).catch((err: Error) => {
    if (err instanceof TypeError) throw new UnprocessableError(err.message);
    throw err;
  });
  await pushToBranch(services, ctx, doer, { branch: newBranch, newSha: sha, oldSha: target, changedPaths: treePaths }, log);
  return { commit: await readCommit(path, sha), branch: newBranch, treePaths };
}

/** The writes a doer may attempt (Gitea's CanWriteToBranch): code write access. */
export function assertCanWriteFiles(ctx: RepoContext): void {
  if (!['write', 'admin', 'owner'].includes(ctx.mode)) throw new ForbiddenError('user should have a permission to write to the target branch');
}

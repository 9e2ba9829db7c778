// Merges a pull request in the bare base repository: a fresh mergeability check, the readiness
// rules, the commit for the style, a journal entry, a compare-and-swap of the base branch and the
// database update. Safe to retry at any point: never two merges, never a flag without the commit.
import type { Knex } from 'knex';
import {
  EmptyMergeError, MergeConflictError, NotFastForwardError, UnrelatedHistoriesError,
  branchRef, commitExists, gitTimestamp, isAncestor, isValidSha, mergeCommitForStyle, predictMergeCommit, readCommit, resolveRef, updateRef,
  type StyleMergeRequest,
} from '../../git/index.js';
import { pullsStore } from '../../db/pulls.js';
import type { UserRow } from '../../db/users.js';
import { nowUnix } from '../../db/time.js';
import { isSqlite } from '../../db/connection.js';
import { issuesStore } from '../../db/issues.js';
import { storageFailure } from '../errors.js';
import { recordHookEvent } from '../webhooks/outbox.js';
import { recordRefEvents } from '../webhooks/ref-events.js';
import { failingPoint, faultPoint } from '../fault-points.js';
import { withKeyedLock } from '../keyed-lock.js';
import { workInProgressPrefixes } from './wip.js';
import { computeMergeability, currentRefs, readRefsEarly, type MergeabilityResult, type PullRefsLocation } from './mergeability.js';
import { repoDiskPath } from '../repositories.js';
import { checkMergeReadiness, loadReadinessFacts } from './merge-readiness.js';
import { isStyleAllowed, styleNotAllowedMessage } from './merge-message.js';
import { planMergeCommit } from './merge-commit.js';
import type { OperationDeps, PullOperationContext } from './operation-context.js';
import { loadMergeInputs, type MergeInputs } from './merge-inputs.js';
import { landAutoMerge } from './auto-merge-landing.js';
import type { MergeOperation, MergeOutcome, MergeRequest, MergeStyle, PullKey } from '../../workflows/pull-messages.js';

// Racing merges into one base each retry on the new base; this bounds the retries under contention.
const CAS_ATTEMPTS = 10;

const commitStats = { journalledMeanwhile: 0, mispredicted: 0, unpredicted: 0 };

/**
 * How merges' commits were written: journalled meanwhile (the name known first), or after git
 * wrote them (the name not known first, or worked out wrong: mispredicted).
 */
export function mergeCommitStats(): Readonly<typeof commitStats> {
  return { ...commitStats };
}

export function refuse(status: number, message: string, extra: Partial<MergeOutcome> = {}): MergeOutcome {
  return { status, body: { message }, ...extra };
}

/**
 * Writes a finished merge: the pull request merged, its issue closed, the event comment, no more
 * auto-merge. With `moveRef`, the rows are written first and committed only when it moves the base
 * branch (false: rolled back, nothing recorded); see recordMergeAroundRefUpdate.
 */
export async function recordMerge(
  db: Knex, ctx: PullOperationContext, doer: UserRow, style: MergeStyle, commit: string, mergeBase: string, operationId: string,
  moveRef?: () => Promise<boolean>, baseBefore?: string,
): Promise<boolean> {
  const now = nowUnix();
  const events = await mergeEvents(ctx, doer, style, commit, baseBefore);
  try {
    await db.transaction(async (trx) => {
      const updated = await trx('pull_requests').where({ id: ctx.pull.id, has_merged: false }).update({
        has_merged: true, merged_unix: now, merger_id: doer.id, merge_commit_sha: commit, merge_style: style,
        merge_base: mergeBase || ctx.pull.merge_base, status: style === 'manually-merged' ? 'manually_merged' : 'mergeable',
        merge_operation_id: operationId, pending_merge_commit: null, pending_merge_base: null,
      });
      if (Number(updated) === 0) return; // another attempt of this operation finished it
      await trx('issues').where({ id: ctx.issue.id }).update({ is_closed: true, closed_unix: now, updated_unix: now });
      // Not addComment: an event comment changes no count, and nobody reads the row back here.
      await issuesStore(trx).insertComment({ issue_id: ctx.issue.id, poster_id: doer.id, type: 'merge_pull', content: commit }, trx);
      await trx('pull_auto_merges').where({ pull_id: ctx.pull.id }).delete();
      await events(trx);
      if (!moveRef) return;
      if (!(await moveRef())) throw new RefNotMoved();
      faultPoint('merge:after-ref-update');
    });
  } catch (err) {
    if (err instanceof RefNotMoved) return false;
    throw err;
  }
  return true;
}

/**
 * What hooks hear of a merge, recorded with it: the base branch pushed (not for a manual merge,
 * which moves nothing) and the pull request closed. A merge resumed after a crash no longer knows
 * where the base was: the merge commit's first parent stands in.
 */
async function mergeEvents(ctx: PullOperationContext, doer: UserRow, style: MergeStyle, commit: string, baseBefore?: string) {
  const before = style === 'manually-merged' ? null : baseBefore ?? (await readCommit(ctx.basePath, commit).catch(() => null))?.parents[0] ?? null;
  return async (trx: Knex) => {
    if (before) await recordRefEvents(trx, ctx.baseRepo.id, doer.id, [{ ref: branchRef(ctx.pull.base_branch), oldSha: before, newSha: commit }]);
    await recordHookEvent(trx, { repoId: ctx.baseRepo.id, event: 'pull_request', action: 'closed', doerId: doer.id, detail: { kind: 'issue', issueId: ctx.issue.id, merged: true } });
  };
}

/** Thrown inside the transaction to roll it back when the compare-and-swap finds the base moved. */
class RefNotMoved extends Error {}

/**
 * Moves the base branch to the journalled commit and records the merge. On MariaDB the rows are
 * written while git moves the branch and committed after it (the transaction's commit, and its log
 * flush, is then all the database adds after the move): a crash in between rolls the rows back and
 * the journal finishes the merge on retry. SQLite has one connection per process, which a
 * transaction held across a git process would keep from every other request: there the branch
 * moves first and the rows follow.
 */
async function recordMergeAroundRefUpdate(
  db: Knex, ctx: PullOperationContext, doer: UserRow, style: MergeStyle, commit: string, mergeBase: string, operationId: string,
  moveRef: () => Promise<boolean>, baseBefore: string,
): Promise<boolean> {
  if (!isSqlite(db)) return recordMerge(db, ctx, doer, style, commit, mergeBase, operationId, moveRef, baseBefore);
  if (!(await moveRef())) return false;
  faultPoint('merge:after-ref-update');
  return recordMerge(db, ctx, doer, style, commit, mergeBase, operationId, undefined, baseBefore);
}

/** A retry of an operation that already journalled or finished its merge completes it, nothing more. */
export async function resumeJournalled(deps: OperationDeps, ctx: PullOperationContext, doer: UserRow, op: MergeOperation): Promise<MergeOutcome | null> {
  if (ctx.pull.merge_operation_id !== op.operationId) return null;
  if (ctx.pull.has_merged) return { status: 200, deleteBranch: shouldDeleteBranch(ctx, op), moved: baseMoved(ctx, ctx.pull.merge_commit_sha ?? '') };
  const pending = ctx.pull.pending_merge_commit;
  if (!pending) return null;
  const current = await resolveRef(ctx.basePath, branchRef(ctx.pull.base_branch));
  if (current && (current === pending || (await isAncestor(ctx.basePath, pending, current)))) {
    await recordMerge(deps.db, ctx, doer, (op.style || 'merge') as MergeStyle, pending, ctx.pull.pending_merge_base ?? '', op.operationId);
    return { status: 200, deleteBranch: shouldDeleteBranch(ctx, op), moved: baseMoved(ctx, pending) };
  }
  // The earlier attempt never moved the branch: forget it and merge afresh.
  await pullsStore(deps.db).update(ctx.pull.id, { pending_merge_commit: null, pending_merge_base: null });
  return null;
}

/** The base branch a merge moved to `commit` (the other pull requests into it check again). */
export function baseMoved(ctx: PullOperationContext, commit: string): MergeOutcome['moved'] {
  return { repoId: ctx.baseRepo.id, branch: ctx.pull.base_branch, sha: commit };
}

export function shouldDeleteBranch(ctx: PullOperationContext, op: MergeRequest): boolean {
  return op.deleteBranchAfterMerge ?? ctx.baseRepo.default_delete_branch_after_merge;
}

async function manualMerge(deps: OperationDeps, ctx: PullOperationContext, doer: UserRow, op: MergeOperation): Promise<MergeOutcome> {
  const commit = op.mergeCommitId.trim().toLowerCase();
  const baseSha = await resolveRef(ctx.basePath, branchRef(ctx.pull.base_branch));
  const valid = isValidSha(commit) && baseSha !== null && (await commitExists(ctx.basePath, commit)) && (await isAncestor(ctx.basePath, commit, baseSha));
  if (!valid) return refuse(409, 'Wrong commit ID');
  await recordMerge(deps.db, ctx, doer, 'manually-merged', commit, ctx.pull.merge_base, op.operationId);
  return { status: 200 };
}

export function gitFailure(err: unknown, style: MergeStyle): MergeOutcome | null {
  if (err instanceof MergeConflictError) {
    return { status: 409, body: { raw: { Style: style, StdOut: '', StdErr: `CONFLICT (content): ${err.conflictedFiles.join(', ')}`, Err: {}, ConflictedFiles: err.conflictedFiles, ...(err.commitSha ? { CommitSHA: err.commitSha } : {}) } } };
  }
  if (err instanceof NotFastForwardError) return refuse(409, 'fast-forward-only merge is not possible: the head branch has diverged from the base branch');
  if (err instanceof UnrelatedHistoriesError) return refuse(409, 'refusing to merge unrelated histories');
  if (err instanceof EmptyMergeError) return refuse(405, 'nothing to merge: the head branch is already contained in the base branch');
  // A full disk will not clear by retrying now; `waiting` keeps a scheduled auto-merge scheduled.
  const storage = storageFailure(err);
  if (storage) return refuse(storage.status, storage.message, { waiting: true });
  return null;
}

export async function mergePullRequest(deps: OperationDeps, key: PullKey, op: MergeOperation): Promise<MergeOutcome> {
  // An auto-merge that is due lands with the others due into its base (core/pulls/auto-merge-landing.ts).
  if (op.landTogether && op.style !== 'manually-merged') return landAutoMerge(deps, key, op);
  const first: MergeInputs = await readInputs(deps, key, op);
  // Scheduling an auto-merge usually waits (checks pending): found out without the base's lock, so a
  // thousand schedules into one base do not queue behind each other.
  if (op.mergeWhenChecksSucceed) {
    const assessed = await assess(deps, op, first);
    if ('outcome' in assessed && assessed.outcome.waiting) return assessed.outcome;
  }
  // What was read before the lock is still current when nobody held it; after a wait, another
  // merge into the same base may have changed it.
  return withKeyedLock(`merge/${key.repoId}/${first.ctx.pull.base_branch}`, (waited) => mergeUnderLock(deps, key, op, waited ? null : first));
}

/** Reads the rows, and the references at the route's guess of where they are at the same time. */
async function readInputs(deps: OperationDeps, key: PullKey, op: MergeOperation): Promise<MergeInputs> {
  const early = op.where ? readRefsEarly(guessedLocation(deps, key, op.where)) : undefined;
  return { ...(await loadMergeInputs(deps, key, op.doerId)), early };
}

function guessedLocation(deps: OperationDeps, key: PullKey, where: NonNullable<MergeRequest['where']>): PullRefsLocation {
  const path = repoDiskPath(deps.config, where.owner, where.repo);
  return { basePath: path, headPath: path, baseBranch: where.baseBranch, headBranch: where.headBranch, index: key.index };
}

interface Journal {
  write(commit: string): Promise<void>;
  forget(): Promise<void>;
}

/**
 * Writes the merge's commit and journals it; a refusal when git finds the merge impossible. When
 * the name can be worked out first, the journal is written while git writes it.
 */
async function commitAndJournal(
  repoPath: string, style: Exclude<MergeStyle, 'manually-merged'>, request: StyleMergeRequest, journal: Journal,
): Promise<string | MergeOutcome> {
  const predicted = predictMergeCommit(style, request);
  const journalled = predicted ? journal.write(predicted) : null;
  journalled?.catch(() => {}); // awaited below; a failure must not surface as unhandled meanwhile
  let commit: string;
  try {
    commit = await mergeCommitForStyle(repoPath, style, request);
  } catch (err) {
    if (journalled) await journalled.then(journal.forget);
    const failure = gitFailure(err, style);
    if (failure) return failure;
    throw err;
  }
  await journalled;
  commitStats[commit === predicted ? 'journalledMeanwhile' : predicted ? 'mispredicted' : 'unpredicted']++;
  if (commit !== predicted) await journal.write(commit);
  return commit;
}

/** What a merge found before writing anything: a refusal, or the inputs to merge with. */
type Assessment =
  | { outcome: MergeOutcome }
  | { inputs: MergeInputs; doer: UserRow; style: MergeStyle; mergeability: MergeabilityResult };

/**
 * Where a merge's mergeability comes from: git (a plain merge), or taken as mergeable for the chain
 * to prove (a due auto-merge, core/pulls/auto-merge-landing.ts). null: the references are not there yet.
 */
export type MergeabilitySource = (ctx: PullOperationContext, early: MergeInputs['early']) => Promise<MergeabilityResult | null>;

const computedMergeability: MergeabilitySource = (ctx, early) => currentRefs(ctx, early).then((refs) => computeMergeability(ctx, { reuseStored: true, refs }));

/** The rules and the mergeability, in Gitea's order (checkMergeReadiness); nothing is written. */
export async function assess(deps: OperationDeps, op: MergeOperation, inputs: MergeInputs, mergeabilityOf = computedMergeability): Promise<Assessment> {
  const { ctx, doer, early } = inputs;
  if (!doer) return { outcome: refuse(405, 'User not allowed to merge PR') };
  const resumed = await resumeJournalled(deps, ctx, doer, op);
  if (resumed) return { outcome: resumed };

  const style: MergeStyle = op.style || 'merge';
  const manual = style === 'manually-merged';
  if (ctx.issue.is_closed && !ctx.pull.has_merged) return { outcome: refuse(404, 'not found') };
  if (!isStyleAllowed(ctx.baseRepo, style) && !ctx.pull.has_merged) return { outcome: refuse(405, styleNotAllowedMessage(style)) };
  // The database facts are read while git works out the mergeability.
  const [mergeability, facts] = await Promise.all([
    manual
      ? { status: 'mergeable' as const, headSha: ctx.pull.head_commit_id, baseSha: '', mergeBase: ctx.pull.merge_base, conflictedFiles: [], tree: '', baseTree: '' }
      : mergeabilityOf(ctx, early),
    loadReadinessFacts(deps.db, ctx, doer),
  ]);
  if (!mergeability) return { outcome: refuse(405, 'Please try again later') };
  const readiness = await checkMergeReadiness({ db: deps.db, ctx, doer, facts, mergeability, wipPrefixes: workInProgressPrefixes(deps.config), forceMerge: op.forceMerge, manual });
  if (!readiness.ready) {
    return { outcome: readiness.waiting
      ? refuse(readiness.status, readiness.message, { waiting: true })
      : readiness.status === 409 && 'raw' in readiness && readiness.raw ? { status: 409, body: { raw: readiness.raw } } : refuse(readiness.status, readiness.message) };
  }
  return { inputs, doer, style, mergeability };
}

async function mergeUnderLock(deps: OperationDeps, key: PullKey, op: MergeOperation, first: MergeInputs | null): Promise<MergeOutcome> {
  for (let attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
    const assessed = await assess(deps, op, attempt === 1 && first ? first : await loadMergeInputs(deps, key, op.doerId));
    if ('outcome' in assessed) return assessed.outcome;
    const { inputs: { ctx }, doer, style, mergeability } = assessed;
    if (style === 'manually-merged') return manualMerge(deps, ctx, doer, op);
    if (op.headCommitId && op.headCommitId !== mergeability.headSha) return refuse(409, 'head out of date');

    failingPoint('merge:before-commit');
    const request = await planMergeCommit(deps.db, ctx, doer, op, style, mergeability, gitTimestamp());
    // The journal names the commit before the branch moves to it: a crash in between is resolved by
    // resumeJournalled.
    const journal: Journal = {
      write: (commit) => pullsStore(deps.db).update(ctx.pull.id, { merge_operation_id: op.operationId, pending_merge_commit: commit, pending_merge_base: mergeability.mergeBase }),
      forget: () => pullsStore(deps.db).update(ctx.pull.id, { pending_merge_commit: null, pending_merge_base: null }),
    };
    const commit = await commitAndJournal(ctx.basePath, style, request, journal);
    if (typeof commit !== 'string') return commit;
    faultPoint('merge:after-journal');
    const moveRef = () => updateRef(ctx.basePath, branchRef(ctx.pull.base_branch), commit, mergeability.baseSha, { reason: `merge pull request #${ctx.pull.index}` });
    if (!(await recordMergeAroundRefUpdate(deps.db, ctx, doer, style, commit, mergeability.mergeBase, op.operationId, moveRef, mergeability.baseSha))) {
      // The base moved under us (another merge or a push): merge again on the new base.
      await journal.forget();
      continue;
    }
    faultPoint('merge:after-record');
    return { status: 200, deleteBranch: shouldDeleteBranch(ctx, op), moved: baseMoved(ctx, commit) };
  }
  return refuse(409, 'merge push out of date');
}

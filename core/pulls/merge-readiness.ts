// Whether a pull request may be merged now, in Gitea's order (CheckPullMergeable): permission,
// merged, WIP, mergeability, branch protection (status checks, approvals, rejected reviews,
// outdated branch, signed commits), open dependencies. Pending checks are told apart from refusals
// so an auto-merge can wait for them.
import type { Knex } from 'knex';
import { canMergeUnder, protectionFor, statusContextMatches } from '../branch-protection.js';
import { approvalState } from '../reviews.js';
import { latestStatusesByContext } from '../commit-statuses.js';
import { openDependencies } from '../dependencies.js';
import { atLeast, repoAccessMode, type RepoContext } from '../permissions.js';
import { isAncestor } from '../../git/index.js';
import type { UserRow } from '../../db/users.js';
import type { PullOperationContext } from './operation-context.js';
import type { MergeabilityResult } from './mergeability.js';
import { isWorkInProgress } from './wip.js';

export type Readiness =
  | { ready: true }
  /** Conditions that more waiting can satisfy: required statuses not yet successful, approvals missing. */
  | { ready: false; waiting: true; status: 405; message: string }
  | { ready: false; waiting: false; status: number; message: string; raw?: unknown };

export async function repoContextFor(db: Knex, ctx: PullOperationContext, doer: UserRow): Promise<RepoContext> {
  return { repo: ctx.baseRepo, owner: ctx.baseOwner, mode: await repoAccessMode(db, ctx.baseRepo, ctx.baseOwner, doer) };
}

/** What readiness depends on besides git: read while git computes the mergeability. */
export interface ReadinessFacts {
  repoCtx: RepoContext;
  rule: Awaited<ReturnType<typeof protectionFor>>;
  blockers: unknown[];
}

export async function loadReadinessFacts(db: Knex, ctx: PullOperationContext, doer: UserRow): Promise<ReadinessFacts> {
  const [repoCtx, rule, blockers] = await Promise.all([
    repoContextFor(db, ctx, doer), protectionFor(db, ctx.baseRepo.id, ctx.pull.base_branch), openDependencies(db, ctx.issue.id),
  ]);
  return { repoCtx, rule, blockers };
}

export interface ReadinessInput {
  db: Knex;
  ctx: PullOperationContext;
  doer: UserRow;
  facts: ReadinessFacts;
  mergeability: MergeabilityResult;
  wipPrefixes: string[];
  forceMerge: boolean;
  manual: boolean;
  /** Judged for joining the merge queue: the queue's own checks come later, so statuses are not read. */
  forQueue?: boolean;
}

export async function checkMergeReadiness(i: ReadinessInput): Promise<Readiness> {
  const { db, ctx, doer, mergeability } = i;
  if (ctx.issue.is_closed && !ctx.pull.has_merged) return { ready: false, waiting: false, status: 404, message: 'not found' };
  const { repoCtx, rule, blockers } = i.facts;
  if (!(await canMergeUnder(db, repoCtx, doer, rule))) return { ready: false, waiting: false, status: 405, message: 'User not allowed to merge PR' };
  if (ctx.pull.has_merged) return { ready: false, waiting: false, status: 405, message: '' };
  if (i.manual) return { ready: true };
  if (isWorkInProgress(ctx.issue.title, i.wipPrefixes)) return { ready: false, waiting: false, status: 405, message: 'Work in progress PRs cannot be merged' };

  if (mergeability.status === 'conflict') {
    return {
      ready: false, waiting: false, status: 409, message: 'merge conflict',
      raw: { Style: 'merge', StdOut: '', StdErr: `CONFLICT: ${mergeability.conflictedFiles.join(', ')}`, Err: {}, ConflictedFiles: mergeability.conflictedFiles },
    };
  }
  if (mergeability.status === 'ancestor') return { ready: false, waiting: false, status: 405, message: 'the head branch is already contained in the base branch: nothing to merge' };
  if (mergeability.status === 'error') return { ready: false, waiting: false, status: 405, message: 'Please try again later' };

  const mayOverride = i.forceMerge && atLeast(repoCtx.mode, 'admin') && !rule?.settings.block_admin_merge_override;
  if (rule?.settings.enable_merge_queue && !mayOverride && !i.forQueue) {
    return { ready: false, waiting: false, status: 405, message: `${ctx.pull.base_branch} is protected by a merge queue: join it with merge_when_checks_succeed (only an administrator may force a merge past it)` };
  }
  if (rule && !mayOverride) {
    const s = rule.settings;
    if (s.require_signed_commits) return { ready: false, waiting: false, status: 405, message: 'require signed commits: this server does not sign merge commits' };
    if (s.block_on_outdated_branch && !i.forQueue && !(await isAncestor(ctx.basePath, mergeability.baseSha, mergeability.headSha))) {
      return { ready: false, waiting: false, status: 405, message: 'Not allowed to merge: the head branch is behind the base branch' };
    }
    const [approvals, statuses] = await Promise.all([
      approvalState(db, ctx.issue.id, mergeability.headSha, s),
      s.enable_status_check && !i.forQueue ? latestStatusesByContext(db, ctx.baseRepo.id, mergeability.headSha) : [],
    ]);
    if (s.block_on_rejected_reviews && approvals.rejected) {
      return { ready: false, waiting: true, status: 405, message: 'Not allowed to merge: there are official change requests' };
    }
    if (approvals.approvals < s.required_approvals) {
      return { ready: false, waiting: true, status: 405, message: `Not allowed to merge: ${approvals.approvals} of ${s.required_approvals} required approvals` };
    }
    if (s.enable_status_check && !i.forQueue) {
      for (const pattern of s.status_check_contexts) {
        const matching = statuses.filter((st) => statusContextMatches(pattern, st.context));
        if (matching.some((st) => st.state === 'error' || st.state === 'failure')) {
          return { ready: false, waiting: true, status: 405, message: `Not all required status checks successful: ${pattern} failed` };
        }
        if (matching.length === 0 || !matching.every((st) => ['success', 'warning', 'skipped'].includes(st.state))) {
          return { ready: false, waiting: true, status: 405, message: `Not all required status checks successful: ${pattern} is pending` };
        }
      }
    }
  }
  if (blockers.length > 0) {
    return { ready: false, waiting: false, status: 405, message: 'pull request is blocked by an open dependency' };
  }
  return { ready: true };
}

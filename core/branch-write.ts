// Moving a branch on behalf of an API call (a file change, a branch update) as a push through smart
// HTTP would: branch protection judges it as the pre-receive check does, the move is a
// compare-and-swap, and the pull requests from or into the branch follow it (core/push.ts).
import type { RepoContext } from './permissions.js';
import { canPushUnder, matchesFilePatterns, protectionFor } from './branch-protection.js';
import { ConflictError, ForbiddenError, storageFailure } from './errors.js';
import { afterPush, type PushServices } from './push.js';
import { journalledWrite } from './push-journal.js';
import { repoDiskPath } from './repositories.js';
import type { UserRow } from '../db/users.js';
import { branchRef, GitError, isAncestor, updateRef, zeroSha } from '../git/index.js';

export interface BranchMove {
  branch: string;
  newSha: string;
  /** Where the branch must be now; null: it must not exist. */
  oldSha: string | null;
  /** The files the new commits change, when known: a push touching only unprotected files is let through. */
  changedPaths?: string[];
}

interface Logger {
  warn(obj: object, msg: string): void;
}

/**
 * What a refused reference write means to a client: git refuses `a/b` beside an existing `a` (and
 * the reverse), a clash of names rather than a server fault. A push answers it as a rejected push
 * (403 with git's words, as Gitea does); other writes as a conflict.
 */
export function refConflict(err: Error, what: string, asPush = false): Error {
  if (!(err instanceof GitError) || !/cannot lock ref|exists; cannot create/.test(err.stderr)) return err;
  if (asPush) return new ForbiddenError(err.stderr.trim().split('\n')[0]!.replace(/^(fatal|error): /, '').replace(/^update_ref failed for ref '[^']*': /, ''));
  return new ConflictError(`cannot create ${what}: its name clashes with an existing reference`);
}

/** Whether moving from `oldSha` to `newSha` rewrites history. */
export async function isForcePush(repoPath: string, oldSha: string | null, newSha: string): Promise<boolean> {
  return oldSha !== null && oldSha !== newSha && !(await isAncestor(repoPath, oldSha, newSha));
}

/** Why branch protection refuses this move for `doer` (Gitea's pre-receive wording), or null. */
export async function pushRefusal(services: PushServices, ctx: RepoContext, doer: UserRow, move: BranchMove): Promise<string | null> {
  const rule = await protectionFor(services.db, ctx.repo.id, move.branch);
  if (!rule) return null;
  const force = await isForcePush(repoDiskPath(services.config, ctx.owner.name, ctx.repo.name), move.oldSha, move.newSha);
  if (force && !rule.settings.enable_force_push) return `branch ${move.branch} is protected from force push`;
  // This service verifies no signatures, so every new commit counts as unverified.
  if (rule.settings.require_signed_commits && move.newSha !== move.oldSha) return `branch ${move.branch} is protected from unverified commit ${move.newSha}`;
  const onlyUnprotected = !force && move.changedPaths !== undefined && move.changedPaths.length > 0
    && move.changedPaths.every((p) => matchesFilePatterns(rule.settings.unprotected_file_patterns, p));
  if (!onlyUnprotected && !(await canPushUnder(services.db, ctx, doer, rule, { force }))) {
    return force ? `Not allowed to force-push to protected branch ${move.branch}` : `Not allowed to push to protected branch ${move.branch}`;
  }
  return null;
}

/**
 * Moves the branch after the protection check, then runs the post-push work. 403 when protection
 * refuses, 409 when the branch moved meanwhile.
 */
export async function pushToBranch(services: PushServices, ctx: RepoContext, doer: UserRow, move: BranchMove, log?: Logger): Promise<void> {
  const why = await pushRefusal(services, ctx, doer, move);
  if (why) throw new ForbiddenError(why);
  const path = repoDiskPath(services.config, ctx.owner.name, ctx.repo.name);
  const update = { ref: branchRef(move.branch), oldSha: move.oldSha ?? zeroSha(move.newSha), newSha: move.newSha };
  const journalId = await journalledWrite(services.db, ctx.repo.id, doer.id, [update], () =>
    updateRef(path, update.ref, move.newSha, move.oldSha, { reason: `api push by ${doer.name}` })
      .catch((err: Error) => { throw storageFailure(err) ?? refConflict(err, `branch ${move.branch}`, true); }));
  if (journalId === null) throw new ConflictError('The branch has changed meanwhile; try again.');
  const result = await afterPush(services, ctx.repo, { updates: [update], pusherId: doer.id, journalId });
  for (const problem of result.problems) log?.warn({ err: problem }, 'post-push step failed');
}

// Commit statuses: recording reports, the combined state (Gitea's latest rules) and telling the
// workflows of pull requests whose head is the reported commit.
import type { Knex } from 'knex';
import { isUniqueViolation } from '../db/connection.js';
import { statusesStore, type CommitStatusState, type StatusRow } from '../db/statuses.js';
import { checksChangedSignal } from '../workflows/pull-messages.js';
import type { SignalDefinition } from '@temporalio/common';
import type { PullKey } from '../workflows/pull-messages.js';
import { commitExists } from '../git/index.js';
import { recordHookEvent } from './webhooks/outbox.js';
import { nudgeQueues, type QueueNudger } from './merge-queue/nudge.js';

/** What this module needs of the pull request workflow client (api/pull-workflows.ts). */
export interface PullSignaller extends QueueNudger {
  signal<A extends unknown[]>(key: PullKey, signal: SignalDefinition<A>, args: A): Promise<void>;
}

interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export const COMMIT_STATUS_STATES: readonly CommitStatusState[] = ['pending', 'success', 'error', 'failure', 'warning', 'skipped'];

/**
 * Gitea 1.26's rules (modules/commitstatus CommitStatusStates.Combine): any error, failure or
 * warning fails; all success or skipped succeeds; anything else (a pending report, or none at
 * all) is pending.
 */
export function combineStates(states: readonly CommitStatusState[]): CommitStatusState {
  if (states.some((s) => s === 'error' || s === 'failure' || s === 'warning')) return 'failure';
  if (states.length > 0 && states.every((s) => s === 'success' || s === 'skipped')) return 'success';
  return 'pending';
}

export async function latestStatusesByContext(db: Knex, repoId: number, sha: string): Promise<StatusRow[]> {
  return statusesStore(db).latestByContext(repoId, sha);
}

export interface CombinedStatus {
  /** Combined over the page's statuses, as Gitea combines them (pending when there are none). */
  state: CommitStatusState;
  statuses: StatusRow[];
  /** Contexts reported on the commit, over every page. */
  contexts: number;
}

/** One page of the latest status per context, the contexts reported most recently first (Gitea's paging). */
export async function combinedStatus(db: Knex, repoId: number, sha: string, page: { limit: number; offset: number }): Promise<CombinedStatus> {
  const store = statusesStore(db);
  const [statuses, contexts] = await Promise.all([store.latestByContext(repoId, sha, page), store.countContexts(repoId, sha)]);
  return { state: combineStates(statuses.map((s) => s.state)), statuses, contexts };
}

/**
 * Whether `sha` is a commit of the repository: the database answers for the commits it knows (a
 * pull request's head, a commit with statuses), which are what CI reports on, and git for the rest.
 */
export async function commitOfRepository(db: Knex, repoId: number, repoPath: string, sha: string): Promise<boolean> {
  return (await statusesStore(db).knowsCommit(repoId, sha)) || commitExists(repoPath, sha);
}

export interface NewCommitStatus {
  repoId: number;
  sha: string;
  state: CommitStatusState;
  targetUrl: string;
  description: string;
  context: string;
  creatorId: number | null;
}

/** Records a report; concurrent reports for one sha race for the next index, so retry on collision. */
export async function createCommitStatus(db: Knex, input: NewCommitStatus): Promise<StatusRow> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction(async (trx) => {
        const row = await statusesStore(trx).insert({
          repo_id: input.repoId, sha: input.sha, state: input.state, target_url: input.targetUrl,
          description: input.description, context: input.context || 'default', creator_id: input.creatorId,
        }, trx);
        await recordHookEvent(trx, { repoId: input.repoId, event: 'status', doerId: input.creatorId, detail: { kind: 'status', statusId: row.id, sha: row.sha } });
        return row;
      });
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * (attempt + 1)));
    }
  }
}

/**
 * Signals `checksChanged(sha)` to every open pull request whose head is `sha`. The status is
 * already stored: a failure here is logged, never reported to the reporter, and the workflow
 * re-reads statuses whenever it next evaluates anyway.
 */
export async function notifyChecksChanged(
  db: Knex, pullWorkflows: PullSignaller | null, repoId: number, sha: string, log: WarnLogger,
): Promise<void> {
  if (!pullWorkflows) return;
  await nudgeQueues(db, pullWorkflows, { repoId, specCommit: sha }, `status on ${sha}`, log);
  try {
    const pulls = await statusesStore(db).openPullsWithHead(repoId, sha);
    await Promise.all(pulls.map(async (p) => {
      try {
        await pullWorkflows.signal({ repoId: p.baseRepoId, index: p.index }, checksChangedSignal, [sha]);
      } catch (err) {
        log.warn({ err, repoId: p.baseRepoId, index: p.index, sha }, 'could not signal checksChanged');
      }
    }));
  } catch (err) {
    log.warn({ err, repoId, sha }, 'could not find pull requests to notify of a commit status');
  }
}

// The database mirror of a merge queue (merge_queue_entries): written by the queue workflow's
// activities, read by the API. Joining and leaving write the timeline comment with the row.
import type { Knex } from 'knex';
import { nowUnix } from '../../db/time.js';
import { addComment } from '../comments.js';
import { recordHookEvent, recordHookEvents } from '../webhooks/outbox.js';
import { queuePullEvent } from './group-events.js';
import type { QueueEntry, QueueEntryState, QueueKey } from '../../workflows/queue-messages.js';

export interface QueueEntryRow {
  pull_id: number;
  pull_index: number;
  doer_id: number;
  head_sha: string;
  position: number;
  state: string;
  spec_commit: string | null;
  spec_branch: string | null;
  checks: string | null;
  queued_unix: number;
}

/** Records a join with its timeline comment; false when the pull request already has an entry. */
export async function insertEntry(
  db: Knex, key: QueueKey, pull: { id: number; issue_id: number; index: number }, doerId: number, headSha: string, position: number,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    if (await trx('merge_queue_entries').where({ pull_id: pull.id }).first('id')) return false;
    const now = nowUnix();
    await trx('merge_queue_entries').insert({
      repo_id: key.repoId, base_branch: key.branch, pull_id: pull.id, pull_index: pull.index, doer_id: doerId, head_sha: headSha,
      position, state: 'waiting', queued_unix: now, updated_unix: now,
    });
    await addComment(trx, { issueId: pull.issue_id, posterId: doerId, type: 'merge_queue_join', content: `added to the merge queue of ${key.branch}` });
    await recordHookEvent(trx, queuePullEvent(key, pull.issue_id, 'enqueued', doerId));
    return true;
  });
}

/** Removes an entry with a comment saying why; nothing (no second comment) when it is already gone. */
export async function removeEntry(db: Knex, key: QueueKey, index: number, doerId: number | null, reason: string): Promise<void> {
  await db.transaction(async (trx) => {
    const row = await trx('merge_queue_entries as e').join('pull_requests as p', 'p.id', 'e.pull_id')
      .where({ 'e.repo_id': key.repoId, 'e.base_branch': key.branch, 'e.pull_index': index }).first('e.id', 'e.doer_id', 'p.issue_id');
    if (!row) return;
    await trx('merge_queue_entries').where({ id: row.id }).delete();
    await addComment(trx, { issueId: Number(row.issue_id), posterId: doerId, type: 'merge_queue_leave', content: `removed from the merge queue: ${reason}` });
    // The queue's own removals are sent as by who queued it (a pull_request payload names a sender).
    await recordHookEvent(trx, queuePullEvent(key, Number(row.issue_id), 'dequeued', doerId ?? Number(row.doer_id), reason));
  });
}

/** Drops the rows of entries that landed (their merge comment says the rest), each `dequeued` as merged. */
export async function dropLanded(db: Knex, key: QueueKey, indexes: number[]): Promise<void> {
  if (indexes.length === 0) return;
  await db.transaction(async (trx) => {
    const rows = await trx('merge_queue_entries as e').join('pull_requests as p', 'p.id', 'e.pull_id')
      .where({ 'e.repo_id': key.repoId, 'e.base_branch': key.branch }).whereIn('e.pull_index', indexes).select('e.id', 'e.doer_id', 'p.issue_id');
    if (rows.length === 0) return;
    await trx('merge_queue_entries').whereIn('id', rows.map((r: { id: number }) => r.id)).delete();
    await recordHookEvents(trx, rows.map((r: Record<string, unknown>) => queuePullEvent(key, Number(r.issue_id), 'dequeued', Number(r.doer_id), 'merged')));
  });
}

/** Writes the workflow's view of each entry: position, state, speculative commit and branch, checks seen. */
export async function publishEntries(db: Knex, key: QueueKey, entries: QueueEntry[]): Promise<void> {
  const now = nowUnix();
  await db.transaction(async (trx) => {
    for (const [i, e] of entries.entries()) {
      await trx('merge_queue_entries').where({ repo_id: key.repoId, base_branch: key.branch, pull_index: e.index }).update({
        position: i + 1, state: e.state, spec_commit: e.commit || null, spec_branch: e.branch || null,
        checks: JSON.stringify(e.checks), updated_unix: now,
      });
    }
  });
}

/** Sets the state the API shows for some entries (the workflow publishes the rest of each entry after its round). */
export async function setEntriesState(db: Knex, key: QueueKey, indexes: number[], state: QueueEntryState, extra: Record<string, unknown> = {}): Promise<void> {
  if (indexes.length === 0) return;
  await db('merge_queue_entries').where({ repo_id: key.repoId, base_branch: key.branch }).whereIn('pull_index', indexes)
    .update({ state, ...extra, updated_unix: nowUnix() });
}

export async function listEntries(db: Knex, repoId: number, branch: string): Promise<QueueEntryRow[]> {
  const rows = await db('merge_queue_entries').where({ repo_id: repoId, base_branch: branch }).orderBy([{ column: 'position' }, { column: 'id' }]);
  return rows.map((r: Record<string, unknown>) => ({
    pull_id: Number(r.pull_id), pull_index: Number(r.pull_index), doer_id: Number(r.doer_id), head_sha: String(r.head_sha),
    position: Number(r.position), state: String(r.state), spec_commit: (r.spec_commit as string | null) ?? null,
    spec_branch: (r.spec_branch as string | null) ?? null, checks: (r.checks as string | null) ?? null, queued_unix: Number(r.queued_unix),
  }));
}

/** Where a pull request is queued, for its JSON: null when it is not. */
export async function entryOfPull(db: Knex, pullId: number): Promise<{ branch: string; position: number; state: string; spec_branch: string | null } | null> {
  const row = await db('merge_queue_entries').where({ pull_id: pullId }).first('base_branch', 'position', 'state', 'spec_branch');
  return row ? { branch: String(row.base_branch), position: Number(row.position), state: String(row.state), spec_branch: (row.spec_branch as string | null) ?? null } : null;
}

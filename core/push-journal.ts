// The push journal (db/migrations/0052_push_journal.ts): a push's row is written before git moves
// its references and deleted in the transaction that records its webhook events. A process that
// dies in between leaves the row, and the next catch-up (core/push-recovery.ts) records the events
// of the updates git applied. Whoever takes an update out of the journal records its events, so
// they are recorded once even when a catch-up and the push's own process race, or when a push that
// died before git applied it is sent again.
import type { Knex } from 'knex';
import { nowUnix } from '../db/time.js';
import { isZeroSha, reflogRecords } from '../git/index.js';
import { recordRefEvents } from './webhooks/ref-events.js';
import { faultPoint } from './fault-points.js';

export interface JournalledUpdate {
  ref: string;
  oldSha: string;
  newSha: string;
}

export interface JournalledPush {
  id: number;
  repoId: number;
  pusherId: number | null;
  updates: JournalledUpdate[];
  createdUnix: number;
}

/**
 * How long a push that applied nothing is kept. It died before git moved anything, or is still
 * sending its pack: a push of gigabytes takes a while, and deleting its row would lose its events.
 */
export const UNAPPLIED_PUSH_KEPT_SECONDS = 7 * 24 * 3600;

/** Writes the journal row of a push about to be applied; returns its id. */
export async function journalPush(db: Knex, repoId: number, pusherId: number | null, updates: JournalledUpdate[]): Promise<number> {
  const commands = JSON.stringify(updates.map(({ ref, oldSha, newSha }) => ({ ref, oldSha, newSha })));
  const [id] = await db('push_journal').insert({ repo_id: repoId, pusher_id: pusherId, commands, created_unix: nowUnix() });
  return Number(id);
}

/** Drops the row of a push that applied nothing (git refused it, or the request failed before git ran). */
export async function forgetPush(db: Knex, id: number): Promise<void> {
  await db('push_journal').where({ id }).del();
}

/**
 * Journals `updates` around git's write of them (`write` answers whether git applied it): the id of
 * the journal row when it did, for announcePush; null, and no row, when it did not. A write that
 * throws leaves no row either.
 */
export async function journalledWrite(db: Knex, repoId: number, pusherId: number | null, updates: JournalledUpdate[], write: () => Promise<boolean>): Promise<number | null> {
  const id = await journalPush(db, repoId, pusherId, updates);
  let applied = false;
  try {
    applied = await write();
  } finally {
    if (!applied) await forgetPush(db, id);
  }
  return applied ? id : null;
}

/**
 * Records the webhook events of a push's applied updates and deletes its journal row, in one
 * transaction. With no journal row (`journalId` null) the events are simply recorded. False when
 * the row was gone: a catch-up, or a push of the same updates, recorded them already.
 *
 * The same update may be journalled twice: a push retried after its first try died before git
 * applied it (a restart mid-pack), or two clients pushing the same commits at once. Git applies it
 * once, and its events are recorded once: they are taken out of every row of the repository here,
 * and whoever takes an update out of the journal records its event.
 */
export async function announcePush(db: Knex, journalId: number | null, repoId: number, pusherId: number | null, updates: JournalledUpdate[]): Promise<boolean> {
  if (journalId !== null) faultPoint('push:before-announce');
  return db.transaction(async (trx) => {
    // Locked, so a row's owner announcing at the same time reads it as this leaves it.
    const rows = await trx('push_journal').where({ repo_id: repoId }).forUpdate().select('id', 'commands');
    let recorded = updates;
    if (journalId !== null) {
      const own = rows.find((r: Record<string, unknown>) => Number(r.id) === journalId);
      if (!own) return false;
      const left = commandsOf(own);
      recorded = updates.filter((u) => left.some((c) => sameUpdate(c, u)));
      await trx('push_journal').where({ id: journalId }).del();
    }
    for (const row of rows) {
      if (Number(row.id) === journalId) continue;
      const commands = commandsOf(row);
      const left = commands.filter((c) => !recorded.some((u) => sameUpdate(c, u)));
      if (left.length === commands.length) continue;
      if (left.length === 0) await trx('push_journal').where({ id: row.id }).del();
      else await trx('push_journal').where({ id: row.id }).update({ commands: JSON.stringify(left) });
    }
    await recordRefEvents(trx, repoId, pusherId, recorded);
    return true;
  });
}

function sameUpdate(a: JournalledUpdate, b: JournalledUpdate): boolean {
  return a.ref === b.ref && a.oldSha === b.oldSha && a.newSha === b.newSha;
}

function commandsOf(row: Record<string, unknown>): JournalledUpdate[] {
  return JSON.parse(String(row.commands)) as JournalledUpdate[];
}

/** Every journalled push, oldest first. */
export async function journalledPushes(db: Knex): Promise<JournalledPush[]> {
  const rows = await db('push_journal').orderBy('id').select('id', 'repo_id', 'pusher_id', 'commands', 'created_unix');
  return rows.map((r: Record<string, unknown>) => ({
    id: Number(r.id), repoId: Number(r.repo_id), pusherId: r.pusher_id === null ? null : Number(r.pusher_id),
    updates: commandsOf(r), createdUnix: Number(r.created_unix),
  }));
}

/** What git did of a push's updates. */
export interface LandedUpdates {
  /** The updates whose references still name their new commit (deleted: are gone): the push's work is theirs to do. */
  followed: JournalledUpdate[];
  /**
   * Those, and the updates whose branch moved on since, with its reflog recording the push's move:
   * the later move did the rest, but their events are still the push's. In the push's order.
   */
  announced: JournalledUpdate[];
}

/**
 * A reflog record counts for a push if git wrote it at most this long before the push was journalled:
 * the same host's clock, read in whole seconds and perhaps stepped back meanwhile. The same move
 * recorded earlier (a branch forced back and forth) is not this push's, which git may have refused.
 */
const REFLOG_CLOCK_SLACK_SECONDS = 60;

/**
 * What git applied of `updates`, journalled at `journalledUnix`, given where their references are
 * now (`current`; absent: no such reference), read by the push's own process once git is done and by
 * a catch-up later. A branch deleted since, or a tag moved since, has no reflog to tell: such an
 * update counts as not applied.
 */
export function landedUpdates(repoPath: string, updates: JournalledUpdate[], current: Map<string, string>, journalledUnix: number): LandedUpdates {
  const since = journalledUnix - REFLOG_CLOCK_SLACK_SECONDS;
  const followed: JournalledUpdate[] = [];
  const announced: JournalledUpdate[] = [];
  for (const u of updates) {
    const now = current.get(u.ref);
    if (isZeroSha(u.newSha) ? now === undefined : now === u.newSha) {
      followed.push(u);
      announced.push(u);
    } else if (!isZeroSha(u.newSha) && now !== undefined && reflogRecords(repoPath, u.ref, u.oldSha, u.newSha, since)) {
      announced.push(u);
    }
  }
  return { followed, announced };
}

// The outbox: a change that hooks must hear about writes its event row inside the change's own
// transaction, so an event exists exactly when its change was committed. The payload is built later,
// off the request path, when the event is dispatched to its hooks (core/webhooks/dispatch.ts).
import type { Knex } from 'knex';
import { hookEventsStore, hooksStore } from '../../db/hooks.js';
import type { HookEventType } from './events.js';

/** What a comment looked like, for the `deleted` event sent after its row is gone. */
export interface CommentSnapshot {
  id: number;
  poster_id: number | null;
  content: string;
  created_unix: number;
  updated_unix: number;
}

/** What each event's payload is built from: ids to read back, and what cannot be read back later. */
export type EventDetail =
  /** issues and pull_request events (the issue's kind decides which payload). */
  | { kind: 'issue'; issueId: number; changes?: { title?: string; body?: string; ref?: string }; commitId?: string; reviewerId?: number; merged?: boolean; reason?: string }
  | { kind: 'comment'; issueId: number; commentId: number; changes?: { body: string }; deleted?: CommentSnapshot }
  | { kind: 'review'; issueId: number; reviewId: number; reviewerId: number; content: string; reviewType: 'approved' | 'rejected' | 'comment' }
  /** push, create, delete: the full ref name and where it moved (zero ids for none). */
  | { kind: 'ref'; ref: string; before: string; after: string }
  | { kind: 'status'; statusId: number; sha: string }
  /** merge_group: a speculative commit on its queue branch (full ref names), and why it was dropped. */
  | { kind: 'merge_group'; headRef: string; headSha: string; baseRef: string; baseSha: string; reason?: string };

export interface NewHookEvent {
  repoId: number;
  event: HookEventType;
  action?: string;
  doerId: number | null;
  detail: EventDetail;
}

type Listener = () => void;
const listeners = new Set<Listener>();

/**
 * Called after a transaction that recorded events has committed, in this process (the dispatcher of
 * this process's worker picks them up at once instead of at its next poll). Returns the remover.
 */
export function onHookEventsCommitted(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function notifyCommitted(): void {
  for (const listener of listeners) {
    try {
      listener();
    } catch {
      // A listener's failure delays dispatch until the next poll; it never fails the change.
    }
  }
}

function afterCommit(trx: Knex): void {
  const execution = (trx as Knex.Transaction).executionPromise as Promise<unknown> | undefined;
  if (trx.isTransaction && execution) execution.then(notifyCommitted, () => {});
  else queueMicrotask(notifyCommitted);
}

// Whether a repository's events are heard, asked once per transaction (a change may record several).
const heardIn = new WeakMap<Knex, Map<number, Promise<boolean>>>();

/** Whether any active hook hears the repository's events (asked once per transaction). */
export function isHeard(trx: Knex, repoId: number): Promise<boolean> {
  if (!trx.isTransaction) return hooksStore(trx).anyActiveFor(repoId, trx);
  let cache = heardIn.get(trx);
  if (!cache) heardIn.set(trx, (cache = new Map()));
  let heard = cache.get(repoId);
  if (!heard) cache.set(repoId, (heard = hooksStore(trx).anyActiveFor(repoId, trx)));
  return heard;
}

/**
 * Records events in the caller's transaction. Nothing is written when no active hook of the
 * repository or its owner exists (one indexed look-up): repositories without hooks pay nothing more.
 */
export async function recordHookEvents(trx: Knex, events: NewHookEvent[]): Promise<void> {
  const store = hookEventsStore(trx);
  let recorded = false;
  for (const e of events) {
    if (!(await isHeard(trx, e.repoId))) continue;
    await store.insert({
      repo_id: e.repoId, event: e.event, action: e.action ?? '', doer_id: e.doerId, detail: JSON.stringify(e.detail), created_ms: Date.now(),
    }, trx);
    recorded = true;
  }
  if (recorded) afterCommit(trx);
}

export function recordHookEvent(trx: Knex, event: NewHookEvent): Promise<void> {
  return recordHookEvents(trx, [event]);
}

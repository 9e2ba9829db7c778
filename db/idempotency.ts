// Answers to pull request operations sent with an Idempotency-Key (migration 0013). Every API
// process reads and writes the same rows, so a retried request gets the first answer back from any
// process, and after the workflow run that gave it has ended. A request claims its key before the
// operation runs; the answer is recorded on that claim; claims and answers expire after 24 hours.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { isUniqueViolation } from './connection.js';
import { nowUnix } from './time.js';

export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** Expired rows are deleted at most this often per process. */
const PRUNE_INTERVAL_MS = 60_000;

/** Whose key it is: one key names one request per pull request, operation and user. */
export interface IdempotencyScope {
  repoId: number;
  index: number;
  operation: string;
  userId: number;
  key: string;
}

export interface StoredAnswer {
  status: number;
  body?: unknown;
}

export type Claim =
  /** This request is the key's first: run the operation as claim `id`. */
  | { state: 'new'; id: number }
  /** An earlier request with the key has no answer recorded yet (under way, or its caller gave up). */
  | { state: 'unanswered'; id: number }
  | { state: 'answered'; id: number; answer: StoredAnswer }
  /** The key was first used with a different request. */
  | { state: 'mismatch'; id: number };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface AnswerRow {
  id: number;
  request_hash: string;
  status: number | null;
  body: string | null;
  created_unix: number | string;
}

let lastPrune = 0;

export function idempotencyStore(db: Knex) {
  const scopeWhere = (s: IdempotencyScope) => ({ repo_id: s.repoId, pull_index: s.index, operation: s.operation, user_id: s.userId, key_hash: sha256(s.key) });

  const judge = (row: AnswerRow, requestHash: string): Claim => {
    if (row.request_hash !== requestHash) return { state: 'mismatch', id: row.id };
    if (row.status === null) return { state: 'unanswered', id: row.id };
    return { state: 'answered', id: row.id, answer: { status: row.status, ...(row.body !== null ? { body: JSON.parse(row.body) as unknown } : {}) } };
  };

  const store = {
    /**
     * Claims the key for the request whose query and body hash to `requestHash`, or tells what an
     * earlier request with the key left. An expired row is replaced by a new claim.
     */
    async claim(scope: IdempotencyScope, requestHash: string): Promise<Claim> {
      store.pruneSometimes();
      const where = scopeWhere(scope);
      for (let attempt = 1; ; attempt++) {
        const now = nowUnix();
        const row = await db<AnswerRow>('idempotency_answers').where(where).first('id', 'request_hash', 'status', 'body', 'created_unix');
        if (row && Number(row.created_unix) > now - IDEMPOTENCY_WINDOW_SECONDS) return judge(row, requestHash);
        if (row) await db('idempotency_answers').where({ id: row.id }).delete();
        try {
          const [id] = await db('idempotency_answers').insert({ ...where, request_hash: requestHash, created_unix: now });
          return { state: 'new', id: Number(id) };
        } catch (err) {
          // Another request with the same key claimed it in between: judge against its claim.
          if (!isUniqueViolation(err) || attempt >= 3) throw err;
        }
      }
    },

    /** Records the claim's answer; the first recorded answer stays. */
    async answer(id: number, answer: StoredAnswer): Promise<void> {
      await db('idempotency_answers').where({ id }).whereNull('status').update({
        status: answer.status, body: answer.body === undefined ? null : JSON.stringify(answer.body), answered_unix: nowUnix(),
      });
    },

    /** Deletes claims and answers older than the window; returns how many. */
    async prune(now = nowUnix()): Promise<number> {
      return db('idempotency_answers').where('created_unix', '<=', now - IDEMPOTENCY_WINDOW_SECONDS).delete();
    },

    /** Prunes in the background, at most once a minute per process (a failure waits for the next). */
    pruneSometimes(): void {
      if (Date.now() - lastPrune < PRUNE_INTERVAL_MS) return;
      lastPrune = Date.now();
      store.prune().catch(() => {});
    },
  };
  return store;
}

/** The hash a key's request is known by: what the caller asked, not how it authenticated. */
export function requestHash(query: Record<string, unknown>, body: unknown): string {
  const { token: _token, access_token: _accessToken, ...rest } = query;
  return sha256(JSON.stringify([Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)), body ?? null]));
}

// Store of the failed-login throttle's entries (core/auth/throttle.ts), shared by all API processes.
// Each change reads and writes one row under its lock, so processes counting failures for one key
// at once (a password spray from one address) all count, one after another.
import type { Knex } from 'knex';
import { isSqlite, isUniqueViolation } from './connection.js';

export interface ThrottleEntry {
  /** Failure times (ms) inside the current window. */
  failures: number[];
  strikes: number;
  lockedUntil: number;
  lastFailure: number;
}

function toEntry(row: Record<string, unknown>): ThrottleEntry {
  const failures = String(row.failures ?? '');
  return {
    failures: failures === '' ? [] : failures.split(',').map(Number),
    strikes: Number(row.strikes),
    lockedUntil: Number(row.locked_until),
    lastFailure: Number(row.last_failure),
  };
}

function toRow(entry: ThrottleEntry, forgetAfter: number) {
  return {
    failures: entry.failures.join(','),
    strikes: entry.strikes,
    locked_until: entry.lockedUntil,
    last_failure: entry.lastFailure,
    forget_after: forgetAfter,
  };
}

export function loginThrottleStore(db: Knex) {
  return {
    /** The entries of these keys (hashes) that exist, in one query. */
    async read(keyHashes: string[]): Promise<Map<string, ThrottleEntry>> {
      const rows = await db('login_throttle').whereIn('key_hash', keyHashes).select('*');
      return new Map(rows.map((row: Record<string, unknown>) => [String(row.key_hash), toEntry(row)]));
    },
    /**
     * Replaces the entry of one key with `next(current)`, the row locked meanwhile (SQLite has one
     * connection per process: its transactions are serial anyway). Two first failures of a new key
     * at once collide on the insert (or deadlock on MariaDB's gap locks): the loser tries again.
     */
    async change(keyHash: string, next: (current: ThrottleEntry | undefined) => { entry: ThrottleEntry; forgetAfter: number }): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        try {
          await db.transaction(async (trx) => {
            const query = trx('login_throttle').where({ key_hash: keyHash }).first();
            const row = await (isSqlite(db) ? query : query.forUpdate());
            const { entry, forgetAfter } = next(row ? toEntry(row) : undefined);
            if (row) await trx('login_throttle').where({ key_hash: keyHash }).update(toRow(entry, forgetAfter));
            else await trx('login_throttle').insert({ key_hash: keyHash, ...toRow(entry, forgetAfter) });
          });
          return;
        } catch (err) {
          const retry = isUniqueViolation(err) || (err as { code?: string }).code === 'ER_LOCK_DEADLOCK';
          if (!retry || attempt >= 5) throw err;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
        }
      }
    },
    async remove(keyHash: string): Promise<void> {
      await db('login_throttle').where({ key_hash: keyHash }).delete();
    },
    /** Drops rows that mean nothing any more; returns how many. */
    async sweep(now: number): Promise<number> {
      return db('login_throttle').where('forget_after', '<', now).delete();
    },
  };
}

export type LoginThrottleStore = ReturnType<typeof loginThrottleStore>;

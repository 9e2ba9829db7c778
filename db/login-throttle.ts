// Store of the failed-login throttle's entries (core/auth/throttle.ts), shared by all API processes.
// Each change is a compare-and-swap on the row's version, so two processes counting failures for
// one key at once both count.
import type { Knex } from 'knex';
import { isUniqueViolation } from './connection.js';

export interface ThrottleEntry {
  /** Failure times (ms) inside the current window. */
  failures: number[];
  strikes: number;
  lockedUntil: number;
  lastFailure: number;
}

export interface StoredThrottleEntry extends ThrottleEntry {
  version: number;
}

function toEntry(row: Record<string, unknown>): StoredThrottleEntry {
  const failures = String(row.failures ?? '');
  return {
    failures: failures === '' ? [] : failures.split(',').map(Number),
    strikes: Number(row.strikes),
    lockedUntil: Number(row.locked_until),
    lastFailure: Number(row.last_failure),
    version: Number(row.version),
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
    async read(keyHashes: string[]): Promise<Map<string, StoredThrottleEntry>> {
      const rows = await db('login_throttle').whereIn('key_hash', keyHashes).select('*');
      return new Map(rows.map((row: Record<string, unknown>) => [String(row.key_hash), toEntry(row)]));
    },
    /** Writes `entry` if the row is still at `expected` (its version, or absent); false when another process changed it first. */
    async swap(keyHash: string, expected: StoredThrottleEntry | undefined, entry: ThrottleEntry, forgetAfter: number): Promise<boolean> {
      if (!expected) {
        try {
          await db('login_throttle').insert({ key_hash: keyHash, ...toRow(entry, forgetAfter), version: 0 });
          return true;
        } catch (err) {
          if (isUniqueViolation(err)) return false;
          throw err;
        }
      }
      const changed = await db('login_throttle').where({ key_hash: keyHash, version: expected.version })
        .update({ ...toRow(entry, forgetAfter), version: expected.version + 1 });
      return changed === 1;
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

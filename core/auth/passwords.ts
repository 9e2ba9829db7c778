// Password hashing with argon2id. The encoded hash (PHC string) carries its own salt and parameters,
// so parameters can be raised later without a migration: old hashes still verify, and
// `needsRehash` tells the login path to re-hash with the new ones.
import { randomBytes } from 'node:crypto';
import { hash, parseOptions, verify, type Options } from '@node-rs/argon2';

/**
 * OWASP Password Storage Cheat Sheet, first argon2id configuration: m=19 MiB, t=2, p=1.
 * About 20-30 ms per hash on one core; memory hardness is what defeats GPU guessing.
 * Algorithm 2 is argon2id and version 1 is 0x13 (the package's const enums, written as numbers
 * so this file does not depend on const-enum inlining).
 */
export const PASSWORD_HASH_POLICY = {
  algorithm: 2,
  version: 1,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
} as const;

/** argon2 pre-hashes any length cheaply, but a multi-megabyte "password" is only ever an attack. */
export const MAX_PASSWORD_LENGTH = 4096;

const OPTIONS = PASSWORD_HASH_POLICY as unknown as Options;

/** Hashes a password for storage. Refuses empty and oversized input (callers validate policy first). */
export async function hashPassword(plain: string): Promise<string> {
  if (typeof plain !== 'string' || plain.length === 0) {
    throw new RangeError('password must be a non-empty string');
  }
  if (plain.length > MAX_PASSWORD_LENGTH) {
    throw new RangeError(`password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  }
  return hash(plain, OPTIONS);
}

/**
 * True when `plain` matches `stored`. Never throws on bad input: an empty, oversized or unparsable
 * value is simply not a match, so a corrupt row cannot turn a login into a 500.
 */
export async function verifyPassword(stored: string, plain: string): Promise<boolean> {
  if (typeof stored !== 'string' || !stored.startsWith('$argon2')) return false;
  if (typeof plain !== 'string' || plain.length === 0 || plain.length > MAX_PASSWORD_LENGTH) return false;
  try {
    return await verify(stored, plain);
  } catch {
    return false;
  }
}

/**
 * True when `stored` was made with weaker or different parameters than the current policy (or is not
 * an argon2id hash at all). Call after a successful verify, while the plaintext is at hand.
 */
export function needsRehash(stored: string): boolean {
  try {
    const p = parseOptions(stored);
    return (
      (p.algorithm as number) !== PASSWORD_HASH_POLICY.algorithm ||
      (p.version as number) !== PASSWORD_HASH_POLICY.version ||
      p.memoryCost < PASSWORD_HASH_POLICY.memoryCost ||
      p.timeCost < PASSWORD_HASH_POLICY.timeCost ||
      p.parallelism !== PASSWORD_HASH_POLICY.parallelism ||
      p.outputLen < PASSWORD_HASH_POLICY.outputLen ||
      p.saltLen < 16
    );
  } catch {
    return true;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Runs a full verification against a throwaway hash and answers false. Use it when the username
 * does not exist, so "no such user" costs as much time as "wrong password" and response timing
 * does not reveal which accounts exist.
 */
export async function verifyAgainstNothing(plain: string): Promise<false> {
  dummyHash ??= hash(randomBytes(16).toString('hex'), OPTIONS);
  const stored = await dummyHash;
  const candidate = typeof plain === 'string' && plain.length > 0 ? plain.slice(0, MAX_PASSWORD_LENGTH) : 'x';
  await verify(stored, candidate).catch(() => false);
  return false;
}

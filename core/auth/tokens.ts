// Personal access token values: generation, the stored hash, and comparisons.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

/** 20 random bytes as lowercase hex: Gitea's format (no prefix), so existing clients and validators accept it. */
export const TOKEN_BYTES = 20;
export const TOKEN_LENGTH = TOKEN_BYTES * 2;
const TOKEN_PATTERN = /^[0-9a-f]{40}$/;
const HASH_PATTERN = /^[0-9a-f]{64}$/;

/** Server keys shorter than this are refused: an HMAC key should be at least as strong as the hash output we rely on. */
export const MIN_SERVER_KEY_BYTES = 32;

/** A new token value from the CSPRNG. Returned to the client once (`sha1`), never stored. */
export function generateTokenValue(): string {
  return randomBytes(TOKEN_BYTES).toString('hex');
}

/** A fresh server key for `hashToken`, for first-run setup; store it outside the database. */
export function generateServerKey(): Buffer {
  return randomBytes(MIN_SERVER_KEY_BYTES);
}

/**
 * True for exactly 40 lowercase hex characters. Gitea's lookup refuses anything else before touching
 * the database, and so do we: uppercase is not folded because Gitea never issues it.
 */
export function looksLikeToken(value: unknown): boolean {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

/**
 * The stored form of a token: hex HMAC-SHA256(serverKey, value), 64 characters.
 *
 * Why a fast keyed hash instead of Gitea's salted PBKDF2 (10,000 rounds per candidate row):
 * - A token is 160 bits from the CSPRNG. Slow hashing protects low-entropy secrets (passwords)
 *   against guessing; 2^160 guesses are out of reach at any hash speed, so slowness buys nothing
 *   and would cost ~10 ms of CPU per API request (measured: HMAC ~3 µs).
 * - The HMAC key lives outside the database, so a leaked table alone cannot even be used to test
 *   a guess, and a leaked hash cannot be replayed as a token (the server needs the preimage).
 * - No per-row salt is needed: salts stop precomputation across rows with equal secrets, and
 *   160-bit random values never repeat. A deterministic hash also lets the store look the row up
 *   by an indexed unique column instead of by `token_last_eight` plus N candidate hashes.
 */
export function hashToken(value: string, serverKey: Buffer): string {
  return createHmac('sha256', hmacKey(serverKey)).update(value, 'utf8').digest('hex');
}

// Node checks and copies a Buffer key on every createHmac (about 20 µs, a sixth of an authenticated
// request's CPU at the HTTP floor); with a KeyObject made once the HMAC is about 3 µs (bench/token-auth).
const hmacKeys = new WeakMap<Buffer, KeyObject>();

function hmacKey(serverKey: Buffer): KeyObject {
  let key = hmacKeys.get(serverKey);
  if (key) return key;
  if (!Buffer.isBuffer(serverKey) || serverKey.length < MIN_SERVER_KEY_BYTES) {
    throw new RangeError(`token server key must be at least ${MIN_SERVER_KEY_BYTES} bytes`);
  }
  key = createSecretKey(serverKey);
  hmacKeys.set(serverKey, key);
  return key;
}

/** True for a 64-character lowercase hex string, the shape `hashToken` produces. */
export function looksLikeTokenHash(value: unknown): boolean {
  return typeof value === 'string' && HASH_PATTERN.test(value);
}

/** Shown in listings (`token_last_eight`) so users can tell tokens apart without the secret. */
export function tokenLastEight(value: string): string {
  return value.slice(-8);
}

/**
 * Constant-time equality for two hex strings. Length is not secret (both sides are fixed-size
 * hashes), but unequal lengths still take the same path so the function never throws and never
 * returns early on content.
 */
export function safeEqualHex(a: string, b: string): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // Compare against itself so the work done does not depend on where the strings differ.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/**
 * Lookup design, for the store that wires this in:
 *
 *   const candidate = hashToken(presented, key);
 *   const row = SELECT ... FROM access_token WHERE token_hash = ?  -- unique index
 *   if (!row || !safeEqualHex(row.token_hash, candidate)) → 401
 *
 * Querying by the hash is still safe against timing attacks: the index comparison leaks, at most,
 * how many leading bytes of HMAC(key, guess) match a stored HMAC. Without the key an attacker cannot
 * choose guesses whose HMACs share a prefix with anything, so that signal says nothing about any
 * token. The fetched hash is compared again with timingSafeEqual anyway, so correctness never rests
 * on the database's collation or comparison rules (e.g. a case-insensitive column).
 *
 * `matchesStoredHash` is that final step.
 */
export function matchesStoredHash(presented: string, storedHash: string, serverKey: Buffer): boolean {
  if (!looksLikeToken(presented) || !looksLikeTokenHash(storedHash)) return false;
  return safeEqualHex(storedHash, hashToken(presented, serverKey));
}

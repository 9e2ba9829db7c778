/**
 * Throttling of failed password logins, shared by every API process through the database.
 *
 * Limits (defaults):
 * - Per account (lower-cased username, existing or not, so probing does not reveal which exist):
 *   5 failed password logins within 5 minutes lock password login for 1 minute. While the account
 *   is penalised, every further failure locks again for twice as long: 1, 2, 4, 8, then 15 minutes
 *   at most. The penalty is forgiven after 1 hour without failures, or by a successful login.
 * - Per client IP (IPv6 grouped by /64): 50 failures within 5 minutes, then the same back-off.
 *   Higher than the account limit because many people can share one address behind NAT.
 * - A throttled attempt answers 429 with `Retry-After: <seconds>`, before the password is checked,
 *   so a locked account gives no signal about whether a guess was right and costs no argon2 time.
 * - Only the password path is throttled. Personal access tokens, OAuth2 tokens and tokens sent
 *   through Basic auth keep working while an account is locked: they carry 160 bits and cannot
 *   be guessed, and locking them would let anyone who knows a username stop that user's automation.
 * - The counters are rows of `login_throttle` (db/login-throttle.ts), keyed by a hash of the key:
 *   every API process sees the same counts, and they survive restarts. A failure is counted with
 *   its row locked, so concurrent failures for one key all count. Rows quiet for the
 *   forgiveness period are swept (at most once a minute per process).
 *
 * Known limit: an attacker can keep a victim's password login locked (tokens still work), the
 * usual price of account lockout.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { LoginThrottleStore, ThrottleEntry } from '../../db/login-throttle.js';

export type { ThrottleEntry };

export interface ThrottleLimits {
  /** Failures within `windowMs` that trigger the first lock. */
  maxFailures: number;
  windowMs: number;
  /** First lock; doubles with each further failure while penalised. */
  baseLockMs: number;
  maxLockMs: number;
  /** Quiet time after which failures and penalties are forgotten. */
  forgiveAfterMs: number;
}

const MINUTE = 60_000;

export const ACCOUNT_LIMITS: Readonly<ThrottleLimits> = {
  maxFailures: 5,
  windowMs: 5 * MINUTE,
  baseLockMs: MINUTE,
  maxLockMs: 15 * MINUTE,
  forgiveAfterMs: 60 * MINUTE,
};

export const IP_LIMITS: Readonly<ThrottleLimits> = { ...ACCOUNT_LIMITS, maxFailures: 50 };

// Keys come from clients (usernames are capped at 40 by validation, but failed logins can carry
// anything); keys are truncated before hashing, so giant keys collapse into one.
const MAX_KEY_LENGTH = 256;
const SWEEP_INTERVAL_MS = MINUTE;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Whether the entry has been quiet long enough to mean nothing any more. */
export function isStale(entry: ThrottleEntry, now: number, limits: ThrottleLimits): boolean {
  const quietSince = Math.max(entry.lastFailure, entry.lockedUntil);
  if (now - quietSince >= limits.forgiveAfterMs) return true;
  return entry.strikes === 0 && entry.lockedUntil <= now && now - entry.lastFailure >= limits.windowMs;
}

export function decisionFor(entry: ThrottleEntry | undefined, now: number, limits: ThrottleLimits): ThrottleDecision {
  if (!entry || isStale(entry, now, limits) || entry.lockedUntil <= now) return { allowed: true };
  // Capped so a clock stepping backwards can never produce an absurd Retry-After.
  const seconds = Math.ceil(Math.min(entry.lockedUntil - now, limits.maxLockMs) / 1000);
  return { allowed: false, retryAfterSeconds: Math.max(1, seconds) };
}

/** The entry after one more failed password login at `now`. */
export function afterFailure(previous: ThrottleEntry | undefined, now: number, limits: ThrottleLimits): ThrottleEntry {
  const entry: ThrottleEntry = previous && !isStale(previous, now, limits)
    ? { ...previous, failures: [...previous.failures] }
    : { failures: [], strikes: 0, lockedUntil: 0, lastFailure: now };
  const { maxFailures, windowMs, baseLockMs, maxLockMs } = limits;
  // Times from other processes may be a little ahead of this one's `now`: they still count.
  entry.failures = [...entry.failures.filter((t) => t > now - windowMs), now].sort((a, b) => a - b);
  if (entry.failures.length > maxFailures) entry.failures.splice(0, entry.failures.length - maxFailures);
  entry.lastFailure = Math.max(entry.lastFailure, now);
  if (entry.strikes > 0 || entry.failures.length >= maxFailures) {
    entry.strikes += 1;
    const lock = Math.min(baseLockMs * 2 ** Math.min(entry.strikes - 1, 30), maxLockMs);
    entry.lockedUntil = Math.max(entry.lockedUntil, now + lock);
    entry.failures = [];
  }
  return entry;
}

function normaliseKey(key: string): string {
  return typeof key === 'string' ? key.slice(0, MAX_KEY_LENGTH) : '';
}

/** The row key of a throttled key: a hash, so the table holds no account names or addresses. */
function keyHash(table: 'account' | 'ip', key: string): string {
  return createHash('sha256').update(`${table}:${normaliseKey(key)}`).digest('hex');
}

/**
 * The throttle key for a client address: IPv4 as is (also when IPv4-mapped in IPv6), IPv6 reduced
 * to its /64, since one host usually controls a whole /64 and could otherwise rotate addresses.
 * Anything unparsable is used verbatim (truncated), which still throttles it as one key.
 */
export function clientIpKey(ip: string): string {
  const bare = typeof ip === 'string' ? ip.trim().replace(/%.*$/, '') : '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped) return mapped[1]!;
  if (isIP(bare) !== 6) return normaliseKey(bare);
  const [head = '', tail] = bare.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail occupies two groups; only the first four groups matter here anyway.
  const rightGroups = right.flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const fill = tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - rightGroups.length)).fill('0');
  const groups = [...left, ...fill, ...rightGroups].slice(0, 4).map((g) => g.replace(/^0+(?=.)/, ''));
  return `${groups.join(':')}::/64`;
}

/** Both tables (accounts and addresses) together, as the password login paths (API and web) use them. */
export class LoginThrottle {
  readonly accountLimits: ThrottleLimits;
  readonly ipLimits: ThrottleLimits;
  private lastSweep = -Infinity;

  constructor(
    private readonly store: LoginThrottleStore,
    options: { account?: Partial<ThrottleLimits>; ip?: Partial<ThrottleLimits> } = {},
  ) {
    this.accountLimits = { ...ACCOUNT_LIMITS, ...options.account };
    this.ipLimits = { ...IP_LIMITS, ...options.ip };
  }

  /** Call before verifying a password (one query). Blocked if either the account or the address is locked. */
  async check(username: string, ip: string, now: number): Promise<ThrottleDecision> {
    const account = keyHash('account', accountKey(username));
    const address = keyHash('ip', clientIpKey(ip));
    const entries = await this.store.read([account, address]);
    const a = decisionFor(entries.get(account), now, this.accountLimits);
    const b = decisionFor(entries.get(address), now, this.ipLimits);
    if (a.allowed && b.allowed) return { allowed: true };
    const wait = Math.max(a.allowed ? 0 : a.retryAfterSeconds, b.allowed ? 0 : b.retryAfterSeconds);
    return { allowed: false, retryAfterSeconds: wait };
  }

  /** Call after a wrong password, or a right password with a missing or wrong OTP. */
  async recordFailure(username: string, ip: string, now: number): Promise<void> {
    await Promise.all([
      this.count(keyHash('account', accountKey(username)), now, this.accountLimits),
      this.count(keyHash('ip', clientIpKey(ip)), now, this.ipLimits),
    ]);
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS || now < this.lastSweep) {
      this.lastSweep = now;
      await this.store.sweep(now);
    }
  }

  /**
   * Clears the account only. The address keeps its count: otherwise an attacker holding one valid
   * account could reset their address's budget between guesses at other accounts.
   */
  async recordSuccess(username: string): Promise<void> {
    await this.store.remove(keyHash('account', accountKey(username)));
  }

  /** The failure state of one key as a decision, for tests and operators. */
  async state(table: 'account' | 'ip', key: string, now: number): Promise<ThrottleDecision & { failures: number; strikes: number } | null> {
    const hash = keyHash(table, table === 'account' ? accountKey(key) : clientIpKey(key));
    const entry = (await this.store.read([hash])).get(hash);
    const limits = table === 'account' ? this.accountLimits : this.ipLimits;
    if (!entry || isStale(entry, now, limits)) return null;
    return { ...decisionFor(entry, now, limits), failures: entry.failures.length, strikes: entry.strikes };
  }

  /** One failure more on one key, counted exactly once however many processes count at the same time. */
  private async count(hash: string, now: number, limits: ThrottleLimits): Promise<void> {
    await this.store.change(hash, (current) => {
      const entry = afterFailure(current, now, limits);
      return { entry, forgetAfter: Math.max(entry.lastFailure, entry.lockedUntil) + limits.forgiveAfterMs };
    });
  }
}

function accountKey(username: string): string {
  return typeof username === 'string' ? username.toLowerCase() : '';
}

/**
 * Throttling of failed password logins (in memory, per process).
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
 * - Memory is bounded: idle entries are swept, and at most 50,000 keys per table are kept; beyond
 *   that the least recently failing key is dropped first.
 *
 * Known limits: the state is per process and lost on restart; several instances each allow the
 * budget. An attacker can keep a victim's password login locked (tokens still work), the usual
 * price of account lockout.
 */
import { isIP } from 'node:net';

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

export const DEFAULT_MAX_ENTRIES = 50_000;
// Keys come from clients (usernames are capped at 40 by validation, but failed logins can carry
// anything); truncating bounds memory per entry without affecting real keys.
const MAX_KEY_LENGTH = 256;
const SWEEP_INTERVAL_MS = 1_000;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Entry {
  failures: number[];
  strikes: number;
  lockedUntil: number;
  lastFailure: number;
}

/** One table of keys, one set of limits. `now` is always passed in (milliseconds) so tests control time. */
export class FailureThrottle {
  private readonly entries = new Map<string, Entry>();
  private readonly limits: ThrottleLimits;
  private readonly maxEntries: number;
  private lastSweep = -Infinity;

  constructor(limits: Partial<ThrottleLimits> = {}, options: { maxEntries?: number } = {}) {
    this.limits = { ...ACCOUNT_LIMITS, ...limits };
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  }

  get size(): number {
    return this.entries.size;
  }

  check(key: string, now: number): ThrottleDecision {
    const k = normaliseKey(key);
    const entry = this.entries.get(k);
    if (!entry) return { allowed: true };
    if (this.isStale(entry, now)) {
      this.entries.delete(k);
      return { allowed: true };
    }
    return this.decision(entry, now);
  }

  /** Records one failed password login and returns the state that now applies to the next attempt. */
  recordFailure(key: string, now: number): ThrottleDecision {
    const k = normaliseKey(key);
    let entry = this.entries.get(k);
    if (entry && this.isStale(entry, now)) entry = undefined;
    if (!entry) {
      this.makeRoom(now);
      entry = { failures: [], strikes: 0, lockedUntil: 0, lastFailure: now };
    }
    const { maxFailures, windowMs, baseLockMs, maxLockMs } = this.limits;
    entry.failures = entry.failures.filter((t) => t > now - windowMs && t <= now);
    entry.failures.push(now);
    if (entry.failures.length > maxFailures) entry.failures.splice(0, entry.failures.length - maxFailures);
    entry.lastFailure = Math.max(entry.lastFailure, now);
    if (entry.strikes > 0 || entry.failures.length >= maxFailures) {
      entry.strikes += 1;
      const lock = Math.min(baseLockMs * 2 ** Math.min(entry.strikes - 1, 30), maxLockMs);
      entry.lockedUntil = Math.max(entry.lockedUntil, now + lock);
      entry.failures = [];
    }
    // Re-insert so Map order is "least recently failing first", which is what eviction drops.
    this.entries.delete(k);
    this.entries.set(k, entry);
    return this.decision(entry, now);
  }

  /** Forget the key's failures: for the account key after a correct password (and OTP). */
  recordSuccess(key: string): void {
    this.entries.delete(normaliseKey(key));
  }

  private decision(entry: Entry, now: number): ThrottleDecision {
    if (entry.lockedUntil <= now) return { allowed: true };
    // Capped so a clock stepping backwards can never produce an absurd Retry-After.
    const seconds = Math.ceil(Math.min(entry.lockedUntil - now, this.limits.maxLockMs) / 1000);
    return { allowed: false, retryAfterSeconds: Math.max(1, seconds) };
  }

  private isStale(entry: Entry, now: number): boolean {
    const quietSince = Math.max(entry.lastFailure, entry.lockedUntil);
    if (now - quietSince >= this.limits.forgiveAfterMs) return true;
    return entry.strikes === 0 && entry.lockedUntil <= now && now - entry.lastFailure >= this.limits.windowMs;
  }

  private makeRoom(now: number): void {
    if (this.entries.size < this.maxEntries) return;
    // A full sweep is O(n); rate-limit it so a flood of new keys cannot make every request pay for one.
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS || now < this.lastSweep) {
      this.lastSweep = now;
      for (const [k, e] of this.entries) if (this.isStale(e, now)) this.entries.delete(k);
    }
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}

function normaliseKey(key: string): string {
  return typeof key === 'string' ? key.slice(0, MAX_KEY_LENGTH) : '';
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

/** Both tables together, as the password login path uses them. */
export class LoginThrottle {
  readonly accounts: FailureThrottle;
  readonly ips: FailureThrottle;

  constructor(
    options: { account?: Partial<ThrottleLimits>; ip?: Partial<ThrottleLimits>; maxEntries?: number } = {},
  ) {
    const sizing = options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries };
    this.accounts = new FailureThrottle({ ...ACCOUNT_LIMITS, ...options.account }, sizing);
    this.ips = new FailureThrottle({ ...IP_LIMITS, ...options.ip }, sizing);
  }

  /** Call before verifying a password. Blocked if either the account or the address is locked. */
  check(username: string, ip: string, now: number): ThrottleDecision {
    const a = this.accounts.check(accountKey(username), now);
    const b = this.ips.check(clientIpKey(ip), now);
    if (a.allowed && b.allowed) return { allowed: true };
    const wait = Math.max(a.allowed ? 0 : a.retryAfterSeconds, b.allowed ? 0 : b.retryAfterSeconds);
    return { allowed: false, retryAfterSeconds: wait };
  }

  /** Call after a wrong password, or a right password with a missing or wrong OTP. */
  recordFailure(username: string, ip: string, now: number): void {
    this.accounts.recordFailure(accountKey(username), now);
    this.ips.recordFailure(clientIpKey(ip), now);
  }

  /**
   * Clears the account only. The address keeps its count: otherwise an attacker holding one valid
   * account could reset their address's budget between guesses at other accounts.
   */
  recordSuccess(username: string): void {
    this.accounts.recordSuccess(accountKey(username));
  }
}

function accountKey(username: string): string {
  return typeof username === 'string' ? username.toLowerCase() : '';
}

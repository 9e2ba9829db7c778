// TOTP (RFC 6238) for two-factor Basic authentication: SHA-1, 6 digits, 30-second steps, the
// parameters every authenticator app and Gitea's enrolment use.
import { timingSafeEqual } from 'node:crypto';
import { HOTP, Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one: tolerates ~30 s of clock drift, as Gitea does. */
export const TOTP_WINDOW = 1;
/** 160 bits, RFC 4226's recommended secret size and Gitea's default. */
export const TOTP_SECRET_BYTES = 20;
/** Secrets below 80 bits are refused outright (RFC 4226's minimum is 128; we stay lenient for imports). */
const MIN_SECRET_BYTES = 10;

const CODE_PATTERN = /^[0-9]{6}$/;
const BASE32_PATTERN = /^[A-Za-z2-7]+=*$/;

/** A new random secret, base32 without padding, ready to store and to show in the QR URI. */
export function generateTotpSecret(): string {
  return new Secret({ size: TOTP_SECRET_BYTES }).base32;
}

function secretFrom(base32: string): Secret {
  if (typeof base32 !== 'string' || !BASE32_PATTERN.test(base32)) {
    throw new TypeError('TOTP secret is not base32');
  }
  const secret = Secret.fromBase32(base32.toUpperCase());
  if (secret.bytes.length < MIN_SECRET_BYTES) throw new TypeError('TOTP secret is too short');
  return secret;
}

/** The `otpauth://totp/...` URI an authenticator app scans during enrolment. */
export function totpUri(secret: string, accountName: string, issuer: string): string {
  return new TOTP({
    issuer,
    label: accountName,
    secret: secretFrom(secret),
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  }).toString();
}

/** The time step (RFC 6238 counter) that `nowMs` falls in. */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_SECONDS);
}

/** The code for a given step: for enrolment checks and tests. */
export function totpCodeAt(secret: string, step: number): string {
  return HOTP.generate({ secret: secretFrom(secret), algorithm: 'SHA1', digits: TOTP_DIGITS, counter: step });
}

export interface VerifyTotpOptions {
  /** Current time in milliseconds since the epoch. */
  now: number;
  /** The step of the last code this account used successfully, or null if none yet. */
  lastUsedStep?: number | null | undefined;
}

export type TotpResult = { ok: true; step: number } | { ok: false };

/**
 * Accepts a code from the current step or one step either side, and never a step at or before
 * `lastUsedStep`: once a code (or a later one) has been used it cannot be replayed, even inside its
 * validity window. On success the caller must store the returned step as the new `lastUsedStep`
 * (compare-and-set, so two concurrent requests cannot both use one code).
 *
 * Gitea itself only enforces replay protection on the web login form; doing it for API Basic auth too
 * costs nothing for real clients, which send a fresh code each time.
 *
 * A malformed code (not exactly six ASCII digits) is just `{ ok: false }`. A malformed stored secret
 * throws, because that is a data fault the caller should see, not a wrong code.
 */
export function verifyTotp(secret: string, code: unknown, options: VerifyTotpOptions): TotpResult {
  const key = secretFrom(secret);
  if (typeof code !== 'string' || !CODE_PATTERN.test(code)) return { ok: false };
  if (!Number.isFinite(options.now)) return { ok: false };
  const current = totpStep(options.now);
  const floor = options.lastUsedStep ?? -Infinity;
  const given = Buffer.from(code, 'ascii');
  let accepted: number | null = null;
  // Check every step in the window, not just until the first match, so timing does not reveal which
  // step matched; the earliest fresh step wins so a later code is still usable afterwards.
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    if (step < 0) continue;
    const expected = Buffer.from(
      HOTP.generate({ secret: key, algorithm: 'SHA1', digits: TOTP_DIGITS, counter: step }),
      'ascii',
    );
    const match = timingSafeEqual(expected, given);
    if (match && step > floor && accepted === null) accepted = step;
  }
  return accepted === null ? { ok: false } : { ok: true, step: accepted };
}

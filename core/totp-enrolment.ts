// Two-factor enrolment by the signed-in user (a pullhost extension; Gitea does this in its web UI):
// a new secret is pending until a code from the authenticator app confirms it, so a lost QR code
// can never lock anyone out of password authentication.
import type { Knex } from 'knex';
import { ConflictError, NotFoundError, UnprocessableError } from './errors.js';
import { INVALID_OTP_MESSAGE } from './auth/messages.js';
import { openSecret, sealSecret } from './auth/secret-box.js';
import { generateTotpSecret, totpUri, verifyTotp } from './auth/totp.js';
import { TOTP_ISSUER } from './two-factor.js';
import { twoFactorStore } from '../db/two-factor.js';
import type { UserRow } from '../db/users.js';

export const TOTP_ALREADY_ENABLED_MESSAGE = 'two-factor authentication is already enabled';
export const TOTP_NOT_ENABLED_MESSAGE = 'two-factor authentication is not enabled';
export const TOTP_NOT_PENDING_MESSAGE = 'no two-factor enrolment is pending';

export interface TotpEnrolment {
  otpauthUri: string;
  secret: string;
}

/** Starts (or restarts) an enrolment; the URI and secret are shown once and stored only sealed. */
export async function startTotpEnrolment(db: Knex, user: UserRow, serverKey: Buffer): Promise<TotpEnrolment> {
  if (user.totp_secret) throw new ConflictError(TOTP_ALREADY_ENABLED_MESSAGE);
  const secret = generateTotpSecret();
  await twoFactorStore(db).setPending(user.id, sealSecret(secret, serverKey));
  return { otpauthUri: totpUri(secret, user.name, TOTP_ISSUER), secret };
}

/** Activates the pending secret when `code` is valid for it now. */
export async function confirmTotpEnrolment(db: Knex, user: UserRow, serverKey: Buffer, code: string, nowMs = Date.now()): Promise<void> {
  if (user.totp_secret) throw new ConflictError(TOTP_ALREADY_ENABLED_MESSAGE);
  const store = twoFactorStore(db);
  const sealed = await store.pendingSecret(user.id);
  if (!sealed) throw new NotFoundError(TOTP_NOT_PENDING_MESSAGE);
  const secret = openSecret(sealed, serverKey);
  if (secret === null) throw new Error(`the pending TOTP secret of user ${user.id} cannot be opened with the server key`);
  const result = verifyTotp(secret, code, { now: nowMs });
  if (!result.ok) throw new UnprocessableError(INVALID_OTP_MESSAGE);
  // The confirming code's step is stored as used, so it cannot also sign in.
  if (!(await store.activatePending(user.id, sealed, result.step))) throw new ConflictError('the enrolment was restarted meanwhile; confirm the newest one');
}

export async function disableTotpEnrolment(db: Knex, user: UserRow): Promise<void> {
  if (!user.totp_secret) throw new NotFoundError(TOTP_NOT_ENABLED_MESSAGE);
  await twoFactorStore(db).disable(user.id);
}

export async function totpStatus(db: Knex, user: UserRow): Promise<{ enabled: boolean; pending: boolean }> {
  return { enabled: Boolean(user.totp_secret), pending: Boolean(await twoFactorStore(db).pendingSecret(user.id)) };
}

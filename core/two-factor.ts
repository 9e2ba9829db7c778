// Two-factor (TOTP) enrolment and removal for an account; shared by the admin command line and
// the signed-in user's API.
import type { Knex } from 'knex';
import { generateTotpSecret, totpUri } from './auth/totp.js';
import { sealSecret } from './auth/secret-box.js';
import { usersStore, type UserRow } from '../db/users.js';

export const TOTP_ISSUER = 'pullhost';

/** Enrols a new TOTP secret (replacing any old one) and returns the otpauth URI to show once. */
export async function enableTotp(db: Knex, user: UserRow, serverKey: Buffer): Promise<string> {
  const secret = generateTotpSecret();
  await usersStore(db).update(user.id, { totp_secret: sealSecret(secret, serverKey), totp_last_step: 0 });
  return totpUri(secret, user.name, TOTP_ISSUER);
}

export async function disableTotp(db: Knex, user: UserRow): Promise<void> {
  await usersStore(db).update(user.id, { totp_secret: null, totp_last_step: 0 });
}

// A user's e-mail addresses (routers/api/v1/user/email.go, services/user/email.go): the primary
// address (users.email) and further ones. Adding or deleting several is all or nothing here
// (Gitea keeps the ones before a failing address); deleting the primary address is refused with 422
// (Gitea answers 500).
import type { Knex } from 'knex';
import { emailProblem } from './account-fields.js';
import { NotFoundError, UnprocessableError } from './errors.js';
import { isUniqueViolation } from '../db/connection.js';
import { emailAddressesStore } from '../db/email-addresses.js';
import { usersStore, type UserRow } from '../db/users.js';

/** Gitea's Email as its user routes send it (ToEmail leaves user_id and username unset). */
export interface ApiEmail {
  email: string;
  verified: boolean;
  primary: boolean;
  user_id: number;
  username: string;
}

export async function listEmails(db: Knex, user: UserRow): Promise<ApiEmail[]> {
  const further = await emailAddressesStore(db).ofUser(user.id);
  const entry = (email: string, verified: boolean, primary: boolean): ApiEmail => ({ email, verified, primary, user_id: 0, username: '' });
  return [entry(user.email, user.is_active, true), ...further.map((e) => entry(e.email, e.is_activated, false))];
}

const alreadyUsed = (email: string) => new UnprocessableError(`Email address has been used: ${email}`);

export async function addEmails(db: Knex, user: UserRow, emails: string[]): Promise<ApiEmail[]> {
  if (emails.length === 0) throw new UnprocessableError('Email list empty');
  const seen = new Set<string>();
  for (const email of emails) {
    if (emailProblem(email) !== null || email.startsWith('-')) throw new UnprocessableError(`Email address ${JSON.stringify(email)} invalid`);
    if (seen.has(email.toLowerCase()) || (await usersStore(db).emailTaken(email))) throw alreadyUsed(email);
    seen.add(email.toLowerCase());
  }
  try {
    await db.transaction(async (trx) => {
      for (const email of emails) await emailAddressesStore(trx).insert(user.id, email, trx);
    });
  } catch (err) {
    // Another request took one of the addresses meanwhile.
    if (isUniqueViolation(err)) throw alreadyUsed(emails[0]!);
    throw err;
  }
  return listEmails(db, user);
}

export async function deleteEmails(db: Knex, user: UserRow, emails: string[]): Promise<void> {
  await db.transaction(async (trx) => {
    for (const email of emails) {
      if (email.toLowerCase() === user.lower_email) throw new UnprocessableError(`Primary email address cannot be deleted [email: ${email}]`);
      if (!(await emailAddressesStore(trx).remove(user.id, email, trx))) throw new NotFoundError(`Email address does not exist [email: ${email}]`);
    }
  });
}

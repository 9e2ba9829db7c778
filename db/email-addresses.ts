// Store for users' further e-mail addresses (the primary address is users.email).
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export interface EmailAddressRow {
  id: number;
  user_id: number;
  email: string;
  is_activated: boolean;
}

function toRow(raw: Record<string, unknown>): EmailAddressRow {
  return { id: Number(raw.id), user_id: Number(raw.user_id), email: String(raw.email), is_activated: Boolean(raw.is_activated) };
}

export function emailAddressesStore(db: Knex) {
  return {
    /** A user's further addresses, oldest first. */
    async ofUser(userId: number, trx: Knex = db): Promise<EmailAddressRow[]> {
      const rows = await trx('email_addresses').where({ user_id: userId }).orderBy('id');
      return rows.map(toRow);
    },
    async insert(userId: number, email: string, trx: Knex = db): Promise<void> {
      await trx('email_addresses').insert({ user_id: userId, email, lower_email: email.toLowerCase(), is_activated: true, created_unix: nowUnix() });
    },
    /** Removes the user's address; false when the user has no such further address. */
    async remove(userId: number, email: string, trx: Knex = db): Promise<boolean> {
      return Number(await trx('email_addresses').where({ user_id: userId, lower_email: email.toLowerCase() }).delete()) > 0;
    },
  };
}

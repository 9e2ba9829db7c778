// Store of web sign-in sessions. The row is keyed by a hash of the session id, so the table alone
// cannot be replayed as cookies; deleting the row revokes the session.
import type { Knex } from 'knex';

export interface WebSessionRow {
  id_hash: string;
  user_id: number | null;
  pending_user_id: number | null;
  pending_until: number;
  created_unix: number;
  expires_unix: number;
}

function toSession(raw: Record<string, unknown>): WebSessionRow {
  return {
    id_hash: String(raw.id_hash),
    user_id: raw.user_id === null || raw.user_id === undefined ? null : Number(raw.user_id),
    pending_user_id: raw.pending_user_id === null || raw.pending_user_id === undefined ? null : Number(raw.pending_user_id),
    pending_until: Number(raw.pending_until),
    created_unix: Number(raw.created_unix),
    expires_unix: Number(raw.expires_unix),
  };
}

export function webSessionsStore(db: Knex) {
  return {
    async insert(row: WebSessionRow): Promise<void> {
      await db('web_sessions').insert(row);
    },
    async byHash(idHash: string, now: number): Promise<WebSessionRow | undefined> {
      const row = await db('web_sessions').where({ id_hash: idHash }).andWhere('expires_unix', '>', now).first();
      return row ? toSession(row) : undefined;
    },
    async setPending(idHash: string, userId: number | null, until: number): Promise<void> {
      await db('web_sessions').where({ id_hash: idHash }).update({ pending_user_id: userId, pending_until: until });
    },
    async delete(idHash: string): Promise<void> {
      await db('web_sessions').where({ id_hash: idHash }).delete();
    },
    async deleteExpired(now: number): Promise<void> {
      await db('web_sessions').where('expires_unix', '<=', now).delete();
    },
  };
}

// Store for personal access tokens. Only the keyed hash of a token is stored (core/auth/tokens.ts),
// never the value.
import type { Knex } from 'knex';
import { selectFirstRow } from './hot-query.js';
import { nowUnix } from './time.js';
import { toUserRow, type UserRow } from './users.js';

export interface AccessTokenRow {
  id: number;
  user_id: number;
  name: string;
  token_hash: string;
  token_last_eight: string;
  scope: string;
  created_unix: number;
  /** Gitea's `updated_unix`: refreshed when the token is used, shown as `last_used_at`. */
  updated_unix: number;
}

export interface TokenWithOwner {
  token: AccessTokenRow;
  user: UserRow;
}

function toTokenRow(raw: Record<string, unknown>): AccessTokenRow {
  return {
    id: Number(raw.id),
    user_id: Number(raw.user_id),
    name: String(raw.name),
    token_hash: String(raw.token_hash),
    token_last_eight: String(raw.token_last_eight),
    scope: String(raw.scope),
    created_unix: Number(raw.created_unix),
    updated_unix: Number(raw.updated_unix),
  };
}

// The hot path of every token-authenticated request: one statement, one round trip, the token and
// its owner together, found through the unique index on token_hash (see hot-query.ts for why it
// bypasses knex's runner). Token columns are aliased with a prefix no users column has, then split off.
const BY_HASH_SQL =
  'SELECT t.id AS tok_id, t.name AS tok_name, t.token_hash AS tok_hash, t.token_last_eight AS tok_last_eight, ' +
  't.scope AS tok_scope, t.created_unix AS tok_created, t.updated_unix AS tok_updated, u.* ' +
  'FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?';

function splitJoined(raw: Record<string, unknown>): TokenWithOwner {
  const userPart: Record<string, unknown> = {};
  for (const key in raw) if (!key.startsWith('tok_')) userPart[key] = raw[key];
  const user = toUserRow(userPart)!;
  return {
    user,
    token: {
      id: Number(raw.tok_id),
      user_id: user.id,
      name: String(raw.tok_name),
      token_hash: String(raw.tok_hash),
      token_last_eight: String(raw.tok_last_eight),
      scope: String(raw.tok_scope),
      created_unix: Number(raw.tok_created),
      updated_unix: Number(raw.tok_updated),
    },
  };
}

export function tokensStore(db: Knex) {
  return {
    async byHashWithOwner(tokenHash: string): Promise<TokenWithOwner | undefined> {
      const row = await selectFirstRow(db, BY_HASH_SQL, [tokenHash]);
      return row ? splitJoined(row) : undefined;
    },
    async byId(id: number, trx: Knex = db): Promise<AccessTokenRow | undefined> {
      const row = await trx('access_tokens').where({ id }).first();
      return row ? toTokenRow(row) : undefined;
    },
    async nameExists(userId: number, name: string, trx: Knex = db): Promise<boolean> {
      return Boolean(await trx('access_tokens').where({ user_id: userId, name }).first('id'));
    },
    async byName(userId: number, name: string, trx: Knex = db): Promise<AccessTokenRow[]> {
      const rows = await trx('access_tokens').where({ user_id: userId, name }).orderBy('id');
      return rows.map(toTokenRow);
    },
    async insert(row: Omit<AccessTokenRow, 'id' | 'created_unix' | 'updated_unix'>, trx: Knex = db): Promise<AccessTokenRow> {
      const now = nowUnix();
      const [id] = await trx('access_tokens').insert({ ...row, created_unix: now, updated_unix: now });
      return { ...row, id: Number(id), created_unix: now, updated_unix: now };
    },
    /** Newest first, as Gitea lists them. */
    async listByUser(userId: number, limit: number, offset: number, trx: Knex = db): Promise<AccessTokenRow[]> {
      const rows = await trx('access_tokens').where({ user_id: userId })
        .orderBy([{ column: 'created_unix', order: 'desc' }, { column: 'id', order: 'desc' }])
        .limit(limit).offset(offset);
      return rows.map(toTokenRow);
    },
    async countByUser(userId: number, trx: Knex = db): Promise<number> {
      const row = await trx('access_tokens').where({ user_id: userId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /** True when a row was deleted. */
    async deleteOwned(id: number, userId: number, trx: Knex = db): Promise<boolean> {
      return (await trx('access_tokens').where({ id, user_id: userId }).delete()) > 0;
    },
    /**
     * Records use, but only when the stored stamp is at least `minAgeSeconds` old: the condition
     * makes concurrent requests (or other processes) write at most once per interval.
     */
    async touch(id: number, now: number, minAgeSeconds: number): Promise<void> {
      await db('access_tokens').where('id', id).andWhere('updated_unix', '<=', now - minAgeSeconds).update({ updated_unix: now });
    },
  };
}

export type TokensStore = ReturnType<typeof tokensStore>;

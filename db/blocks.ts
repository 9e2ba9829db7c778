// Store for blocks: a user or an organization (the blocker) blocking a user (the blockee).
import type { Knex } from 'knex';
import { nowUnix } from './time.js';
import { toUserRow, type UserRow } from './users.js';

export function blocksStore(db: Knex) {
  return {
    async exists(blockerId: number, blockeeId: number, trx: Knex = db): Promise<boolean> {
      return Boolean(await trx('user_blocks').where({ blocker_id: blockerId, blockee_id: blockeeId }).first('blocker_id'));
    },
    /** Either direction; Gitea's IsBlocked for interactions between two users. */
    async eitherWay(a: number, b: number, trx: Knex = db): Promise<boolean> {
      const row = await trx('user_blocks')
        .where((q) => q.where({ blocker_id: a, blockee_id: b }).orWhere({ blocker_id: b, blockee_id: a }))
        .first('blocker_id');
      return Boolean(row);
    },
    async insert(blockerId: number, blockeeId: number, note: string, trx: Knex = db): Promise<void> {
      await trx('user_blocks').insert({ blocker_id: blockerId, blockee_id: blockeeId, note, created_unix: nowUnix() });
    },
    async remove(blockerId: number, blockeeId: number, trx: Knex = db): Promise<boolean> {
      return (await trx('user_blocks').where({ blocker_id: blockerId, blockee_id: blockeeId }).delete()) > 0;
    },
    /** The blocked accounts, most recent block first. */
    async blockees(blockerId: number, limit: number, offset: number, trx: Knex = db): Promise<UserRow[]> {
      const rows = await trx('users as u').join('user_blocks as b', 'b.blockee_id', 'u.id').where('b.blocker_id', blockerId)
        .orderBy([{ column: 'b.created_unix', order: 'desc' }, { column: 'u.id', order: 'desc' }])
        .limit(limit).offset(offset).select('u.*');
      return rows.map((r: Record<string, unknown>) => toUserRow(r)!);
    },
    async count(blockerId: number, trx: Knex = db): Promise<number> {
      const row = await trx('user_blocks').where({ blocker_id: blockerId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
  };
}

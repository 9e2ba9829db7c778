// Store for reactions on issues (comment_id 0) and on their comments.
import type { Knex } from 'knex';
import { isUniqueViolation } from './connection.js';
import { nowUnix } from './time.js';

export interface ReactionRow {
  id: number;
  type: string;
  issue_id: number;
  /** 0 for a reaction on the issue itself. */
  comment_id: number;
  user_id: number;
  created_unix: number;
}

function toReactionRow(raw: Record<string, unknown>): ReactionRow {
  return {
    id: Number(raw.id), type: String(raw.type), issue_id: Number(raw.issue_id), comment_id: Number(raw.comment_id),
    user_id: Number(raw.user_id), created_unix: Number(raw.created_unix),
  };
}

export interface ReactionTarget {
  issueId: number;
  /** 0 for the issue itself. */
  commentId: number;
}

// Gitea orders by issue, comment, creation time and id.
const ORDER = [{ column: 'created_unix' }, { column: 'id' }];

export function reactionsStore(db: Knex) {
  const of = (trx: Knex, target: ReactionTarget, allowed: readonly string[]) =>
    trx('reactions').where({ issue_id: target.issueId, comment_id: target.commentId }).whereIn('type', [...allowed]);
  return {
    /** Reactions of the allowed types (Gitea hides reactions of types no longer allowed); all when no page. */
    async list(target: ReactionTarget, allowed: readonly string[], page?: { limit: number; offset: number }, trx: Knex = db): Promise<ReactionRow[]> {
      const q = of(trx, target, allowed).orderBy(ORDER);
      if (page) q.limit(page.limit).offset(page.offset);
      return (await q).map(toReactionRow);
    },
    async count(target: ReactionTarget, allowed: readonly string[], trx: Knex = db): Promise<number> {
      const row = await of(trx, target, allowed).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async find(target: ReactionTarget, type: string, userId: number, trx: Knex = db): Promise<ReactionRow | undefined> {
      const r = await trx('reactions').where({ issue_id: target.issueId, comment_id: target.commentId, type, user_id: userId }).first();
      return r ? toReactionRow(r) : undefined;
    },
    /** The new reaction, or the one already there (`created: false`): two racing requests agree. */
    async insertOnce(target: ReactionTarget, type: string, userId: number, trx: Knex = db): Promise<{ row: ReactionRow; created: boolean }> {
      const existing = await this.find(target, type, userId, trx);
      if (existing) return { row: existing, created: false };
      try {
        const record = { issue_id: target.issueId, comment_id: target.commentId, type, user_id: userId, created_unix: nowUnix() };
        const [id] = await trx('reactions').insert(record);
        return { row: { ...record, id: Number(id) }, created: true };
      } catch (err) {
        const raced = isUniqueViolation(err) ? await this.find(target, type, userId, trx) : undefined;
        if (!raced) throw err;
        return { row: raced, created: false };
      }
    },
    async remove(target: ReactionTarget, type: string, userId: number, trx: Knex = db): Promise<void> {
      await trx('reactions').where({ issue_id: target.issueId, comment_id: target.commentId, type, user_id: userId }).delete();
    },
  };
}

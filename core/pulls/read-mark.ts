// "The pull request is marked read for the caller" (merge rule 1).
import type { Knex } from 'knex';

/** One statement whether or not the caller has a row yet (an upsert on the table's primary key). */
export async function markIssueRead(db: Knex, issueId: number, userId: number): Promise<void> {
  await db('issue_users').insert({ issue_id: issueId, user_id: userId, is_read: true, is_mentioned: false }).onConflict(['issue_id', 'user_id']).merge({ is_read: true });
}

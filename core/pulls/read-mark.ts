// "The pull request is marked read for the caller" (merge rule 1).
import type { Knex } from 'knex';

export async function markIssueRead(db: Knex, issueId: number, userId: number): Promise<void> {
  const updated = await db('issue_users').where({ issue_id: issueId, user_id: userId }).update({ is_read: true });
  if (Number(updated) > 0) return;
  try {
    await db('issue_users').insert({ issue_id: issueId, user_id: userId, is_read: true, is_mentioned: false });
  } catch {
    // A concurrent request inserted the row first; it is read either way.
  }
}

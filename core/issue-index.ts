// The per-repository number shared by issues and pull requests.
import type { Knex } from 'knex';

/**
 * Hands out the next index of a repository. Must run inside the transaction that inserts the issue:
 * the UPDATE takes the row lock (MariaDB) or the write lock (SQLite) and holds it until commit, so
 * concurrent creations get consecutive numbers, and a rolled-back creation gives its number back.
 */
export async function allocateIssueIndex(trx: Knex.Transaction, repoId: number): Promise<number> {
  const updated = await trx('issue_indexes').where({ repo_id: repoId }).increment('max_index', 1);
  if (Number(updated) === 0) {
    // Repositories created before the index row existed: start the sequence from what is there.
    const row = await trx('issues').where({ repo_id: repoId }).max({ m: 'index' }).first();
    const next = Number(row?.m ?? 0) + 1;
    await trx('issue_indexes').insert({ repo_id: repoId, max_index: next });
    return next;
  }
  const row = await trx('issue_indexes').where({ repo_id: repoId }).first('max_index');
  return Number(row.max_index);
}

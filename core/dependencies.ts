// Issue dependencies: "this issue is blocked by that one". An open blocker prevents closing and merging.
import type { Knex } from 'knex';
import { ConflictError, NotFoundError, UnprocessableError } from './errors.js';
import { isUniqueViolation } from '../db/connection.js';
import { issuesStore, type IssueRow } from '../db/issues.js';

/** Open issues (or pull requests) that block `issueId`; non-empty means it may not close or merge. */
export async function openDependencies(db: Knex, issueId: number): Promise<IssueRow[]> {
  return issuesStore(db).openBlockers(issueId);
}

export async function dependenciesOf(db: Knex, issueId: number): Promise<IssueRow[]> {
  const store = issuesStore(db);
  const ids = await store.dependencyIds(issueId);
  const rows = await store.byIds(ids);
  return rows.sort((a, b) => a.id - b.id);
}

/** Gitea answers 500 for duplicates and cycles; we say what is wrong instead. */
export async function addDependency(db: Knex, issue: IssueRow, blocker: IssueRow): Promise<void> {
  if (issue.id === blocker.id) throw new UnprocessableError('an issue cannot depend on itself');
  await db.transaction(async (trx) => {
    const store = issuesStore(trx);
    if (await store.hasDependency(issue.id, blocker.id, trx)) throw new ConflictError('dependency already exists');
    if (await store.hasDependency(blocker.id, issue.id, trx)) throw new UnprocessableError('circular dependencies are not allowed');
    await store.addDependency(issue.id, blocker.id, trx);
  }).catch((err: unknown) => {
    // Two identical requests at once: the primary key refuses the second.
    if (isUniqueViolation(err)) throw new ConflictError('dependency already exists');
    throw err;
  });
}

export async function removeDependency(db: Knex, issue: IssueRow, blocker: IssueRow): Promise<void> {
  if (!(await issuesStore(db).removeDependency(issue.id, blocker.id))) throw new NotFoundError('dependency does not exist');
}

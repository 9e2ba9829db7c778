// Deleting an issue or a pull request (Gitea's services/issue/issue.go DeleteIssue): the row and
// everything hanging off it (comments, labels, assignees, dependencies, reactions, reviews, the pull
// request record: the foreign keys cascade), and for a pull request its refs/pull/<index>/ refs.
// A pull request is deleted by its own workflow, inside its one-operation-at-a-time lock, so no
// merge or auto-merge can run during or after it.
import type { Knex } from 'knex';
import { repoDiskPath } from './repositories.js';
import type { OperationOutcome, PullKey } from '../workflows/pull-messages.js';
import type { IssueRow } from '../db/issues.js';
import { usersStore } from '../db/users.js';
import { reposStore } from '../db/repos.js';
import { deleteRef, pullHeadRef } from '../git/index.js';

/** Deletes a plain issue. The issue index is not given back: numbers are never reused. */
export async function deleteIssue(db: Knex, issue: IssueRow): Promise<void> {
  if (issue.is_pull) throw new TypeError('a pull request is deleted by its workflow (deletePullRequest)');
  await db('issues').where({ id: issue.id }).delete();
}

/**
 * The workflow's delete step; safe to repeat (a pull request already gone answers 204 again).
 * The head ref goes first: a retry after a failure between the two steps still finds the rows.
 */
export async function deletePullRequest(deps: { db: Knex; config: { APP_DATA_PATH: string } }, key: PullKey): Promise<OperationOutcome> {
  const { db } = deps;
  const issue = await db('issues').where({ repo_id: key.repoId, index: key.index, is_pull: true }).first('id');
  if (!issue) return { status: 204 };
  const repo = await reposStore(db).byId(key.repoId);
  const owner = repo ? await usersStore(db).byId(repo.owner_id) : undefined;
  if (repo && owner) await deleteRef(repoDiskPath(deps.config, owner.name, repo.name), pullHeadRef(key.index), undefined, { reason: 'pull request deleted' });
  await db('issues').where({ id: issue.id }).delete();
  return { status: 204 };
}

// Everything an operation on one pull request needs, loaded in one place: the pull request, its
// issue, base and head repositories with their owners and paths on disk.
import type { Knex } from 'knex';
import { NotFoundError } from '../errors.js';
import { repoDiskPath } from '../repositories.js';
import { toIssueRow, type IssueRow } from '../../db/issues.js';
import { pullsStore, type PullRow } from '../../db/pulls.js';
import { reposStore, type RepoRow } from '../../db/repos.js';
import { usersStore, type UserRow } from '../../db/users.js';
import type { PullKey } from '../../workflows/pull-messages.js';

export interface OperationDeps {
  db: Knex;
  config: { APP_DATA_PATH: string; APP_URL: string; WORK_IN_PROGRESS_PREFIXES: string };
}

export interface PullOperationContext {
  pull: PullRow;
  issue: IssueRow;
  baseRepo: RepoRow;
  baseOwner: UserRow;
  basePath: string;
  /** null when the head repository was deleted. */
  headRepo: RepoRow | null;
  headOwner: UserRow | null;
  headPath: string | null;
}

/**
 * Loads it in two rounds of parallel queries (the pull request, its issue and the base repository
 * are all found by the key; then the owners and a head repository in another repository).
 */
export async function loadPullOperationContext(deps: OperationDeps, key: PullKey): Promise<PullOperationContext> {
  const { db } = deps;
  const [pull, issueRaw, baseRepo] = await Promise.all([
    pullsStore(db).byIndex(key.repoId, key.index),
    db('issues').where({ repo_id: key.repoId, index: key.index }).first(),
    reposStore(db).byId(key.repoId),
  ]);
  const issue = toIssueRow(issueRaw);
  if (!pull || !issue || !baseRepo || issue.id !== pull.issue_id || pull.base_repo_id !== baseRepo.id) throw new NotFoundError();
  const users = usersStore(db);
  const sameRepo = pull.head_repo_id === baseRepo.id;
  const [baseOwner, otherHeadRepo] = await Promise.all([
    users.byId(baseRepo.owner_id),
    !sameRepo && pull.head_repo_id ? reposStore(db).byId(pull.head_repo_id) : undefined,
  ]);
  const headRepo = sameRepo ? baseRepo : otherHeadRepo ?? null;
  const headOwner = !headRepo ? null : headRepo.owner_id === baseRepo.owner_id ? baseOwner ?? null : (await users.byId(headRepo.owner_id)) ?? null;
  return {
    pull,
    issue,
    baseRepo,
    baseOwner: baseOwner!,
    basePath: repoDiskPath(deps.config, baseOwner!.name, baseRepo.name),
    headRepo,
    headOwner,
    headPath: headRepo && headOwner ? repoDiskPath(deps.config, headOwner.name, headRepo.name) : null,
  };
}

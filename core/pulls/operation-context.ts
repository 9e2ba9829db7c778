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

/** The pull request's own row and its issue's, both found by the key. */
export async function loadPullRows(db: Knex, key: PullKey): Promise<{ pull: PullRow | undefined; issue: IssueRow | undefined }> {
  const [pull, issue] = await Promise.all([pullsStore(db).byIndex(key.repoId, key.index), issueOf(db, key)]);
  return { pull, issue };
}

async function issueOf(db: Knex, key: PullKey): Promise<IssueRow | undefined> {
  return toIssueRow(await db('issues').where({ repo_id: key.repoId, index: key.index }).first());
}

/**
 * Loads it in one round of parallel queries when the head is in the base repository (the pull
 * request, its issue, the base repository and its owner are all found by the key), in two when the
 * head is in a fork.
 */
export async function loadPullOperationContext(deps: OperationDeps, key: PullKey): Promise<PullOperationContext> {
  const { db } = deps;
  const users = usersStore(db);
  const [{ pull, issue }, baseRepo, baseOwner] = await Promise.all([
    loadPullRows(db, key),
    reposStore(db).byId(key.repoId),
    users.ownerOfRepo(key.repoId),
  ]);
  if (!pull || !issue || !baseRepo || !baseOwner || issue.id !== pull.issue_id || baseOwner.id !== baseRepo.owner_id) throw new NotFoundError();
  const sameRepo = pull.head_repo_id === baseRepo.id;
  const [headRepo, headOwner] = sameRepo
    ? [baseRepo, baseOwner]
    : pull.head_repo_id
      ? await Promise.all([reposStore(db).byId(pull.head_repo_id).then((r) => r ?? null), users.ownerOfRepo(pull.head_repo_id).then((u) => u ?? null)])
      : [null, null];
  return {
    pull,
    issue,
    baseRepo,
    baseOwner,
    basePath: repoDiskPath(deps.config, baseOwner.name, baseRepo.name),
    headRepo,
    headOwner,
    headPath: headRepo && headOwner ? repoDiskPath(deps.config, headOwner.name, headRepo.name) : null,
  };
}

// Everything an operation on one pull request needs, loaded in one place: the pull request, its
// issue, base and head repositories with their owners and paths on disk.
import type { Knex } from 'knex';
import { NotFoundError } from '../errors.js';
import { repoDiskPath } from '../repositories.js';
import type { IssueRow } from '../../db/issues.js';
import type { PullRow } from '../../db/pulls.js';
import { repoWithPullById } from '../../db/repo-lookups.js';
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
 * Loads it in one statement when the head is in the base repository (the pull request, its issue,
 * the base repository and its owner, all found by the key: db/repo-lookups.ts), in two rounds when
 * the head is in a fork.
 */
export async function loadPullOperationContext(deps: OperationDeps, key: PullKey): Promise<PullOperationContext> {
  const { db } = deps;
  const users = usersStore(db);
  const found = await repoWithPullById(db, key.repoId, key.index);
  if (!found?.pull || !found.issue) throw new NotFoundError();
  const { repo: baseRepo, owner: baseOwner, pull, issue } = found;
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

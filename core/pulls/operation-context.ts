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

export async function loadPullOperationContext(deps: OperationDeps, key: PullKey, trx: Knex = deps.db): Promise<PullOperationContext> {
  const pull = await pullsStore(trx).byIndex(key.repoId, key.index);
  if (!pull) throw new NotFoundError();
  const issue = toIssueRow(await trx('issues').where({ id: pull.issue_id }).first());
  const baseRepo = await reposStore(trx).byId(pull.base_repo_id);
  if (!issue || !baseRepo) throw new NotFoundError();
  const users = usersStore(trx);
  const baseOwner = (await users.byId(baseRepo.owner_id))!;
  const headRepo = pull.head_repo_id ? (await reposStore(trx).byId(pull.head_repo_id)) ?? null : null;
  const headOwner = headRepo ? (await users.byId(headRepo.owner_id)) ?? null : null;
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


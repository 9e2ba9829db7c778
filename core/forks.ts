// Forks: a copy of a repository (all branches, shared history) owned by the doer or one of their
// organizations, so pull requests between the two work (services/repository/fork.go).
import { isBlocked } from './blocks.js';
import { stat } from 'node:fs/promises';
import { ConflictError, ForbiddenError, UnprocessableError } from './errors.js';
import { type RepoContext } from './permissions.js';
import { repoDiskPath, repoNameProblem, RepoExistsError, type RepoDeps } from './repositories.js';
import { isUniqueViolation } from '../db/connection.js';
import { reposStore, type RepoRow } from '../db/repos.js';
import { usersStore, USER_TYPE, type UserRow } from '../db/users.js';
import { deleteRepositoryDirectory, forkRepository } from '../git/index.js';
import { assertRepositoryStorage } from './repository-storage.js';

export interface ForkInput {
  doer: UserRow;
  /** An organization to fork into; the doer's own account when absent. */
  organization?: string | null;
  name?: string | null;
}

async function forkOwner(deps: RepoDeps, doer: UserRow, organization: string | null | undefined): Promise<UserRow> {
  if (!organization) return doer;
  const org = await usersStore(deps.db).byName(organization);
  if (!org || org.type !== USER_TYPE.organization) throw new UnprocessableError(`org does not exist [name: ${organization}]`);
  if (!doer.is_admin) {
    const allowed = await deps.db('teams as t').join('team_members as m', 'm.team_id', 't.id')
      .where({ 't.org_id': org.id, 'm.user_id': doer.id })
      .andWhere((q) => q.where('t.permission', 'owner').orWhere('t.can_create_org_repo', true))
      .first('t.id');
    if (!allowed) throw new ForbiddenError(`User is no Member of Organisation '${org.name}'`);
  }
  return org;
}

export async function forkRepositoryFor(deps: RepoDeps, base: RepoContext, input: ForkInput): Promise<{ repo: RepoRow; owner: UserRow }> {
  const { doer } = input;
  if (await isBlocked(deps.db, base.owner.id, doer.id)) throw new ForbiddenError('user is blocked by the repository owner');
  const owner = await forkOwner(deps, doer, input.organization);
  if (owner.id !== doer.id && (await isBlocked(deps.db, owner.id, doer.id))) throw new ForbiddenError('user is blocked by the organization');
  const name = input.name || base.repo.name;
  const problem = repoNameProblem(name);
  if (problem) throw new UnprocessableError(problem);

  const repos = reposStore(deps.db);
  if (owner.id === base.owner.id && name.toLowerCase() === base.repo.lower_name) throw new ConflictError('repository is already forked by user');
  if (await repos.forkOwnedBy(base.repo.id, owner.id)) throw new ConflictError(`repository is already forked by user [uname: ${owner.name}]`);
  if (await repos.byOwnerAndName(owner.id, name)) throw new RepoExistsError();
  await assertRepositoryStorage(deps.db, deps.config);
  const src = repoDiskPath(deps.config, base.owner.name, base.repo.name);
  const dst = repoDiskPath(deps.config, owner.name, name);
  if (await stat(dst).then(() => true, () => false)) throw new ConflictError('The repository files already exist.');

  let started = false;
  try {
    const repo = await deps.db.transaction(async (trx) => {
      const b = base.repo;
      const id = await repos.insert({
        owner_id: owner.id, name, description: b.description, website: b.website, default_branch: b.default_branch,
        is_private: b.is_private, is_empty: b.is_empty, fork_id: b.id,
        has_issues: b.has_issues, has_pull_requests: b.has_pull_requests, has_wiki: b.has_wiki,
      }, trx);
      await trx('repositories').where({ id: b.id }).increment('num_forks', 1);
      started = true;
      await forkRepository(src, dst);
      return (await repos.byId(id, trx))!;
    });
    return { repo, owner };
  } catch (err) {
    if (started) await deleteRepositoryDirectory(dst).catch(() => undefined);
    if (isUniqueViolation(err)) throw new RepoExistsError();
    throw err;
  }
}

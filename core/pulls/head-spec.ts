// The three ways a caller names a pull request's head: `branch` (same repository), `owner:branch`
// (that owner's repository of the base repository's name, normally a fork) and
// `owner/repo:branch`; and the rules that find the head repository for them.
import type { Knex } from 'knex';
import { NotFoundError } from '../errors.js';
import { repoAccessMode, type RepoContext } from '../permissions.js';
import { reposStore, type RepoRow } from '../../db/repos.js';
import { usersStore, type UserRow } from '../../db/users.js';

export interface HeadSpec {
  /** null: the base repository's owner. */
  ownerName: string | null;
  /** null: the base repository's name. */
  repoName: string | null;
  branch: string;
}

/**
 * Splits a head as Gitea does: the part after the first ':' is the branch; before it is `owner` or
 * `owner/repo`. Branch names cannot contain ':' (git forbids it), so the first ':' is the separator.
 */
export function parseHeadSpec(head: string): HeadSpec {
  const colon = head.indexOf(':');
  if (colon < 0) return { ownerName: null, repoName: null, branch: head };
  const who = head.slice(0, colon);
  const branch = head.slice(colon + 1);
  const slash = who.indexOf('/');
  if (slash < 0) return { ownerName: who, repoName: null, branch };
  return { ownerName: who.slice(0, slash), repoName: who.slice(slash + 1), branch };
}

export interface HeadRepository {
  repo: RepoRow;
  owner: UserRow;
  branch: string;
}

/** Repositories of one fork network may propose to each other: the base, its forks, its parent, siblings. */
function sameNetwork(base: RepoRow, head: RepoRow): boolean {
  if (base.id === head.id) return true;
  if (head.fork_id === base.id || base.fork_id === head.id) return true;
  return base.fork_id !== null && head.fork_id === base.fork_id;
}

/**
 * Finds the head repository named by `spec` for `doer`. Every miss is a 404, including a head
 * repository the doer may not read (it does not exist for them), as the spec's rules 2, 4 and 5 say.
 */
export async function resolveHeadRepository(db: Knex, base: RepoContext, spec: HeadSpec, doer: UserRow | null): Promise<HeadRepository> {
  const ownerName = spec.ownerName ?? base.owner.name;
  if (spec.ownerName !== null && spec.repoName === null && ownerName.toLowerCase() === base.owner.lower_name) {
    return { repo: base.repo, owner: base.owner, branch: spec.branch };
  }
  if (spec.ownerName === null) return { repo: base.repo, owner: base.owner, branch: spec.branch };
  const owner = await usersStore(db).byName(ownerName);
  if (!owner) throw new NotFoundError(`user does not exist [name: ${ownerName}]`);
  let repo: RepoRow | undefined;
  if (spec.repoName !== null) {
    repo = await reposStore(db).byOwnerAndName(owner.id, spec.repoName);
    if (!repo || !sameNetwork(base.repo, repo)) throw new NotFoundError(`repository does not exist [owner: ${owner.name}, name: ${spec.repoName}]`);
  } else {
    // `owner:branch`: the owner's fork of the base repository (Gitea's HasForkedRepo).
    repo = await reposStore(db).forkOwnedBy(base.repo.id, owner.id);
    if (!repo && base.repo.fork_id !== null) {
      const byName = await reposStore(db).byOwnerAndName(owner.id, base.repo.name);
      if (byName && sameNetwork(base.repo, byName)) repo = byName;
    }
    if (!repo) throw new NotFoundError(`user ${owner.name} does not have a fork of ${base.owner.name}/${base.repo.name}`);
  }
  if (repo.id !== base.repo.id && (await repoAccessMode(db, repo, owner, doer)) === 'none') {
    throw new NotFoundError(`repository does not exist [owner: ${owner.name}, name: ${repo.name}]`);
  }
  return { repo, owner, branch: spec.branch };
}

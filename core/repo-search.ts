// Gitea's repository search and listing rules (routers/api/v1/repo/repo.go Search,
// routers/api/v1/user/repo.go): which query values mean what, the order names, and the three
// listings (the signed-in user's, a user's, an organization's).
import type { Knex } from 'knex';
import { UnprocessableError } from './errors.js';
import { searchOrder } from './search-order.js';
import { searchRepositories, type FoundRepo, type RepoOrder, type RepoSearch } from '../db/repo-search.js';
import type { UserRow } from '../db/users.js';

const ORDERS: Record<string, Record<string, RepoOrder>> = {
  asc: {
    alpha: [{ column: 'o.lower_name', order: 'asc' }, { column: 'r.lower_name', order: 'asc' }],
    created: [{ column: 'r.created_unix', order: 'asc' }],
    updated: [{ column: 'r.updated_unix', order: 'asc' }],
    // Sizes and stars are not columns here (sizes are read from disk, stars do not exist): by id.
    size: [], git_size: [], lfs_size: [], stars: [],
    id: [{ column: 'r.id', order: 'asc' }],
    forks: [{ column: 'r.num_forks', order: 'asc' }],
  },
  desc: {
    alpha: [{ column: 'o.lower_name', order: 'desc' }, { column: 'r.lower_name', order: 'desc' }],
    created: [{ column: 'r.created_unix', order: 'desc' }],
    updated: [{ column: 'r.updated_unix', order: 'desc' }],
    size: [], git_size: [], lfs_size: [], stars: [],
    id: [{ column: 'r.id', order: 'desc' }],
    forks: [{ column: 'r.num_forks', order: 'desc' }],
  },
};

/** Gitea's default, "name ASC". */
export const BY_NAME: RepoOrder = [{ column: 'r.lower_name', order: 'asc' }];

/** `sort` and `order` as Gitea reads them: an unknown one is 422 with its message. */
export function repoOrder(sort: string | undefined, order: string | undefined): RepoOrder {
  return searchOrder(ORDERS, sort, order, BY_NAME);
}

/** `mode`: source, fork, mirror, collaborative or empty; anything else is 422. */
export function applySearchMode(search: RepoSearch, mode: string | undefined): void {
  switch (mode ?? '') {
    case 'source': search.fork = false; search.mirror = false; break;
    case 'fork': search.fork = true; break;
    case 'mirror': search.mirror = true; break;
    case 'collaborative': search.mirror = false; search.collaborate = true; break;
    case '': break;
    default: throw new UnprocessableError(`Invalid search mode: "${mode}"`);
  }
}

export { searchRepositories, type FoundRepo, type RepoSearch };

type Page = { limit: number; offset: number };

/** GET /user/repos: what the user owns and works on, by name (Gitea's ListMyRepos). */
export function listMyRepositories(db: Knex, doer: UserRow, publicOnly: boolean, page: Page) {
  return searchRepositories(db, { viewer: doer, includePrivate: !publicOnly, ownerId: doer.id, includeDescription: true, order: BY_NAME }, page);
}

/**
 * GET /users/{u}/repos and /orgs/{org}/repos: the account's own repositories by id that the
 * viewer may see. Deliberate difference: Gitea counts the private ones it then leaves out in
 * X-Total-Count; here the count is of what the viewer gets.
 */
export function listOwnedRepositories(db: Knex, owner: UserRow, viewer: UserRow | null, publicOnly: boolean, page: Page) {
  return searchRepositories(db, {
    viewer, includePrivate: viewer !== null && !publicOnly, ownerId: owner.id, collaborate: false, order: [{ column: 'r.id', order: 'asc' }],
  }, page);
}

// What a site administrator may withhold from an account (Gitea's CanCreateOrganization and
// CanCreateRepoIn): creating organizations, and more than `max_repo_creation` repositories.
import type { Knex } from 'knex';
import { ForbiddenError } from './errors.js';
import { reposStore } from '../db/repos.js';
import type { UserRow } from '../db/users.js';

/**
 * Site admins always; others while the admin allows it. The refusal is 403 (Gitea sends an empty
 * message on POST /orgs and a 500 on the admin route).
 */
export function assertMayCreateOrganization(user: UserRow): void {
  if (!user.is_admin && !user.allow_create_organization) throw new ForbiddenError('user is not allowed to create organizations');
}

/** A doer who is not a site admin creates in `owner` only below its limit (-1: none here). */
export async function assertMayCreateRepository(db: Knex, doer: UserRow, owner: UserRow): Promise<void> {
  if (doer.is_admin || owner.max_repo_creation < 0) return;
  if ((await reposStore(db).countOwnedBy(owner.id)) >= owner.max_repo_creation) {
    throw new ForbiddenError(`user has reached maximum limit of repositories [limit: ${owner.max_repo_creation}]`);
  }
}

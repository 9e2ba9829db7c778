// An organization's own settings and its end (routers/api/v1/org/org.go Edit and Delete,
// services/org/org.go): edits are checked before they are written; an organization that still
// owns repositories is not deleted.
import type { Knex } from 'knex';
import { UnprocessableError } from './errors.js';
import { emailProblem, isValidWebsite } from './account-fields.js';
import { isSqlite } from '../db/connection.js';
import { reposStore } from '../db/repos.js';
import { teamsStore } from '../db/teams.js';
import { markAccountsChanged, usersStore, type UserRow } from '../db/users.js';

export interface OrgEdit {
  full_name?: string | undefined;
  email?: string | undefined;
  description?: string | undefined;
  website?: string | undefined;
  location?: string | undefined;
  visibility?: 'public' | 'limited' | 'private' | '' | undefined;
  repo_admin_change_team_access?: boolean | undefined;
}

/** PATCH /orgs/{org}: only the fields given change; an empty visibility keeps the current one. */
export async function editOrganization(db: Knex, org: UserRow, edit: OrgEdit): Promise<UserRow> {
  if (edit.website !== undefined && !isValidWebsite(edit.website)) throw new UnprocessableError('[Website]: Url');
  const problem = edit.email ? emailProblem(edit.email) : null;
  if (problem) throw new UnprocessableError(problem);
  const fields: Partial<Omit<UserRow, 'id'>> = {};
  for (const key of ['full_name', 'description', 'website', 'location'] as const) if (edit[key] !== undefined) fields[key] = edit[key];
  if (edit.email !== undefined) {
    fields.email = edit.email;
    fields.lower_email = edit.email.toLowerCase();
  }
  if (edit.visibility) fields.visibility = edit.visibility;
  await db.transaction(async (trx) => {
    const users = usersStore(db);
    await users.update(org.id, fields, trx);
    if (edit.repo_admin_change_team_access !== undefined) await teamsStore(db).setRepoAdminChangeTeamAccess(org.id, edit.repo_admin_change_team_access, trx);
  });
  return (await usersStore(db).byId(org.id))!;
}

/**
 * Deletes the organization's rows (teams, memberships, labels and blocks cascade), checking in
 * the same transaction that it owns no repository. Gitea answers that refusal with a 500; here it
 * is a 422 with Gitea's text.
 */
export async function deleteOrganizationRows(db: Knex, org: UserRow): Promise<void> {
  await db.transaction(async (trx) => {
    if (!isSqlite(trx)) await trx('users').where({ id: org.id }).forUpdate().first('id');
    if ((await reposStore(db).countOwnedBy(org.id, trx)) > 0) throw new UnprocessableError(`user still has ownership of repositories [uid: ${org.id}]`);
    await trx('users').where({ id: org.id }).delete();
  });
  markAccountsChanged();
}

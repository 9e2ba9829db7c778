// A site administrator's account changes (routers/api/v1/admin/user.go EditUser and DeleteUser,
// services/user): every field is checked before anything is written, so a refused edit changes
// nothing (Gitea writes the password before it checks the e-mail).
import type { Knex } from 'knex';
import { BadRequestError, UnprocessableError } from './errors.js';
import { hashPassword, MAX_PASSWORD_LENGTH } from './auth/passwords.js';
import { emailProblem, isValidWebsite, isVisibility } from './account-fields.js';
import { MIN_PASSWORD_LENGTH } from './accounts.js';
import { deleteOrganizationRows } from './org-lifecycle.js';
import { removeOrgMember } from './org-members.js';
import { deleteRepository, type RepoDeps } from './repositories.js';
import { isSqlite, isUniqueViolation } from '../db/connection.js';
import { orgMembersStore } from '../db/org-members.js';
import { reposStore } from '../db/repos.js';
import { markAccountsChanged, USER_TYPE, usersStore, type UserRow } from '../db/users.js';

export interface AdminUserEdit {
  source_id?: number | undefined;
  login_name?: string | undefined;
  email?: string | undefined;
  full_name?: string | undefined;
  password?: string | undefined;
  must_change_password?: boolean | undefined;
  website?: string | undefined;
  location?: string | undefined;
  description?: string | undefined;
  active?: boolean | undefined;
  admin?: boolean | undefined;
  allow_git_hook?: boolean | undefined;
  allow_import_local?: boolean | undefined;
  max_repo_creation?: number | undefined;
  prohibit_login?: boolean | undefined;
  allow_create_organization?: boolean | undefined;
  restricted?: boolean | undefined;
  visibility?: string | undefined;
}

async function isLastAdmin(db: Knex, user: UserRow): Promise<boolean> {
  if (!user.is_admin) return false;
  const row = await db('users').where({ type: USER_TYPE.user, is_admin: true }).count({ n: '*' }).first();
  return Number(row?.n ?? 0) <= 1;
}

/** Only local accounts exist here: any other login source is unknown (Gitea answers it with 500). */
export function assertLocalSource(sourceId: number | undefined): void {
  if (sourceId !== undefined && sourceId !== 0) throw new UnprocessableError(`login source does not exist [id: ${sourceId}]`);
}

/** PATCH /admin/users/{username}. Returns the user as stored afterwards. */
export async function editUserByAdmin(db: Knex, user: UserRow, edit: AdminUserEdit): Promise<UserRow> {
  // Gitea's binding checks come first, then its handler's, in its order.
  if (!edit.login_name) throw new UnprocessableError('[LoginName]: Required');
  if (edit.website !== undefined && !isValidWebsite(edit.website)) throw new UnprocessableError('[Website]: Url');
  if (edit.visibility !== undefined && !isVisibility(edit.visibility)) throw new UnprocessableError('[Visibility]: In');
  assertLocalSource(edit.source_id);
  const fields: Partial<Omit<UserRow, 'id'>> = {};
  fields.login_name = edit.login_name;
  if (edit.password) {
    if (edit.password.length < MIN_PASSWORD_LENGTH) throw new BadRequestError(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
    if (edit.password.length > MAX_PASSWORD_LENGTH) throw new BadRequestError('PasswordComplexity');
  }
  if (edit.email !== undefined && edit.email.toLowerCase() !== user.email.toLowerCase()) {
    if (user.type !== USER_TYPE.user) throw new UnprocessableError(`user ${user.name} is an organization`);
    const problem = emailProblem(edit.email);
    if (problem) throw new BadRequestError(problem);
    if (await usersStore(db).emailTaken(edit.email)) throw new BadRequestError(`e-mail already in use [email: ${edit.email}]`);
    fields.email = edit.email;
    fields.lower_email = edit.email.toLowerCase();
  }
  if (edit.admin === false && (await isLastAdmin(db, user))) throw new BadRequestError(`can not delete the last admin user [uid: ${user.id}]`);
  for (const [key, column] of [
    ['must_change_password', 'must_change_password'], ['prohibit_login', 'prohibit_login'], ['active', 'is_active'], ['admin', 'is_admin'],
    ['restricted', 'restricted'], ['allow_git_hook', 'allow_git_hook'], ['allow_import_local', 'allow_import_local'],
    ['allow_create_organization', 'allow_create_organization'],
  ] as const) {
    if (edit[key] !== undefined) fields[column] = edit[key];
  }
  for (const key of ['full_name', 'website', 'location', 'description'] as const) if (edit[key] !== undefined) fields[key] = edit[key];
  if (edit.max_repo_creation !== undefined) fields.max_repo_creation = edit.max_repo_creation;
  if (edit.visibility) fields.visibility = edit.visibility as UserRow['visibility'];
  if (edit.password) fields.passwd_hash = await hashPassword(edit.password);
  try {
    // Stamps updated_unix and drops cached token resolutions, so a deactivation takes effect at once.
    await usersStore(db).update(user.id, fields);
  } catch (err) {
    if (isUniqueViolation(err)) throw new BadRequestError(`e-mail already in use [email: ${edit.email}]`);
    throw err;
  }
  return (await usersStore(db).byId(user.id))!;
}

/**
 * Deletes the account's rows, checking in the same transaction that it owns no repository (they
 * would go with it) and belongs to no organization. Rows that point at a user without a foreign
 * key are removed by hand.
 */
async function deleteUserRows(db: Knex, user: UserRow): Promise<void> {
  await db.transaction(async (trx) => {
    if (!isSqlite(trx)) await trx('users').where({ id: user.id }).forUpdate().first('id');
    if ((await reposStore(db).countOwnedBy(user.id, trx)) > 0) throw new UnprocessableError(`user still has ownership of repositories [uid: ${user.id}]`);
    if ((await orgMembersStore(db).orgCountOf(user.id, trx)) > 0) throw new UnprocessableError(`user still has membership of organizations [uid: ${user.id}]`);
    const apps = trx('oauth2_applications').where({ user_id: user.id }).select('id');
    const grants = trx('oauth2_grants').where({ user_id: user.id }).orWhereIn('application_id', apps).select('id');
    await trx('oauth2_authorization_codes').whereIn('grant_id', grants).delete();
    await trx('oauth2_grants').where({ user_id: user.id }).orWhereIn('application_id', trx('oauth2_applications').where({ user_id: user.id }).select('id')).delete();
    await trx('oauth2_applications').where({ user_id: user.id }).delete();
    await trx('web_sessions').where({ user_id: user.id }).orWhere({ pending_user_id: user.id }).delete();
    // Tokens, memberships, collaborations, blocks and assignments cascade; authored issues,
    // comments and reviews stay and show the Ghost user, as in Gitea.
    await trx('users').where({ id: user.id }).delete();
  });
  markAccountsChanged();
}

/**
 * DELETE /admin/users/{username}: refused (422) for organizations, oneself, the last admin, and
 * while the user owns repositories or belongs to organizations, unless `purge`: then the user is
 * locked out first, their repositories deleted, they leave every organization, and organizations
 * they were the last owner of are deleted with their repositories.
 */
export async function deleteUserByAdmin(deps: RepoDeps, user: UserRow, doer: UserRow, purge: boolean): Promise<void> {
  const { db } = deps;
  if (user.type !== USER_TYPE.user) throw new UnprocessableError(`${user.name} is an organization not a user`);
  if (user.id === doer.id) throw new UnprocessableError('you cannot delete yourself');
  if (user.is_active && (await isLastAdmin(db, user))) throw new UnprocessableError(`can not delete the last admin user [uid: ${user.id}]`);
  if (purge) {
    await usersStore(db).update(user.id, { is_active: false, restricted: true, is_admin: false, prohibit_login: true, max_repo_creation: 0, passwd_hash: '' });
    for (const repo of await reposStore(db).ownedBy(user.id)) await deleteRepository(deps, repo, user);
    for (const orgId of await orgMembersStore(db).orgIdsOf(user.id)) {
      const org = (await usersStore(db).byId(orgId))!;
      try {
        await removeOrgMember(db, org, user);
      } catch (err) {
        if (!(err instanceof UnprocessableError)) throw err;
        // The last owner: the organization goes with them.
        for (const repo of await reposStore(db).ownedBy(org.id)) await deleteRepository(deps, repo, org);
        await deleteOrganizationRows(db, org);
      }
    }
  }
  await deleteUserRows(db, user);
}

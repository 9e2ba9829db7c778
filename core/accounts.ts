// Account rules: creating users (admin API, admin command line) with Gitea's validation.
import type { Knex } from 'knex';
import { UnprocessableError, BadRequestError } from './errors.js';
import { hashPassword, MAX_PASSWORD_LENGTH } from './auth/passwords.js';
import { usernameProblem } from './auth/usernames.js';
import { emailProblem } from './account-fields.js';
import { isUniqueViolation } from '../db/connection.js';
import { usersStore, type UserRow } from '../db/users.js';

export const MIN_PASSWORD_LENGTH = 8;

export interface CreateUserInput {
  username: string;
  email: string;
  password: string;
  fullName?: string;
  isAdmin?: boolean;
  mustChangePassword?: boolean;
  restricted?: boolean;
  visibility?: 'public' | 'limited' | 'private';
  createdUnix?: number;
  /** The name at the login source (admin API); local accounts sign in with their user name. */
  loginName?: string;
}

export async function createUser(db: Knex, input: CreateUserInput): Promise<UserRow> {
  const problem = usernameProblem(input.username);
  if (problem) throw new UnprocessableError(problem.message);
  const emailRefusal = emailProblem(input.email);
  if (emailRefusal) throw new UnprocessableError(emailRefusal);
  if (typeof input.password !== 'string' || input.password.length < MIN_PASSWORD_LENGTH) throw new BadRequestError('PasswordIsRequired');
  if (input.password.length > MAX_PASSWORD_LENGTH) throw new BadRequestError('PasswordComplexity');

  const users = usersStore(db);
  if (await users.byName(input.username)) throw new UnprocessableError(`user already exists [name: ${input.username}]`);
  if (await users.emailTaken(input.email)) throw new UnprocessableError(`e-mail already in use [email: ${input.email}]`);

  const passwdHash = await hashPassword(input.password);
  try {
    const id = await users.insert({
      name: input.username,
      email: input.email,
      passwd_hash: passwdHash,
      full_name: input.fullName ?? '',
      is_admin: input.isAdmin ?? false,
      must_change_password: input.mustChangePassword ?? false,
      restricted: input.restricted ?? false,
      visibility: input.visibility ?? 'public',
      created_unix: input.createdUnix,
      ...(input.loginName ? { login_name: input.loginName } : {}),
    });
    return (await users.byId(id))!;
  } catch (err) {
    // Two concurrent creations of one name: the unique index decides, the loser gets a 422.
    if (isUniqueViolation(err)) throw new UnprocessableError(`user already exists [name: ${input.username}]`);
    throw err;
  }
}

/** Gitea's form limit on a new password (MustChangePasswordForm: MaxSize(255)). */
export const MAX_NEW_PASSWORD_LENGTH = 255;

/**
 * The password a user sets when an administrator required a change (`must_change_password`), with
 * the rules and texts of Gitea's change-password form; the flag is cleared with it.
 */
export async function setRequiredPassword(db: Knex, user: UserRow, password: string, retype: string): Promise<void> {
  if (password !== retype) throw new BadRequestError('The passwords do not match.');
  if (password.length < MIN_PASSWORD_LENGTH) throw new BadRequestError(`Password length cannot be less than ${MIN_PASSWORD_LENGTH} characters.`);
  if (password.length > MAX_NEW_PASSWORD_LENGTH) throw new BadRequestError(`Password length cannot be more than ${MAX_NEW_PASSWORD_LENGTH} characters.`);
  await usersStore(db).update(user.id, { passwd_hash: await hashPassword(password), must_change_password: false });
}

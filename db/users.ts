// Store for accounts: users and organizations share one table, as in Gitea.
import type { Knex } from 'knex';
import { placeholders, selectRows } from './hot-query.js';
import { nowUnix } from './time.js';

export interface UserRow {
  id: number;
  lower_name: string;
  name: string;
  full_name: string;
  email: string;
  lower_email: string;
  passwd_hash: string;
  type: number;
  visibility: 'public' | 'limited' | 'private';
  is_admin: boolean;
  is_active: boolean;
  prohibit_login: boolean;
  must_change_password: boolean;
  restricted: boolean;
  keep_email_private: boolean;
  totp_secret: string | null;
  totp_last_step: number;
  description: string;
  website: string;
  location: string;
  created_unix: number;
  updated_unix: number;
  last_login_unix: number;
  /** Admin-managed settings (Gitea's columns of the same names). */
  login_name: string;
  allow_git_hook: boolean;
  allow_import_local: boolean;
  max_repo_creation: number;
  allow_create_organization: boolean;
  /** The user's own settings (/user/settings). */
  language: string;
  theme: string;
  diff_view_style: string;
  keep_activity_private: boolean;
}

export const USER_TYPE = { user: 0, organization: 1 } as const;

const BOOLEAN_COLUMNS = [
  'is_admin', 'is_active', 'prohibit_login', 'must_change_password', 'restricted', 'keep_email_private',
  'allow_git_hook', 'allow_import_local', 'allow_create_organization', 'keep_activity_private',
] as const;

/** SQLite hands booleans back as 0/1; normalise so callers see real booleans. */
export function toUserRow(raw: Record<string, unknown> | undefined): UserRow | undefined {
  if (!raw) return undefined;
  const row = { ...raw } as Record<string, unknown>;
  for (const c of BOOLEAN_COLUMNS) row[c] = Boolean(row[c]);
  for (const c of ['id', 'type', 'totp_last_step', 'created_unix', 'updated_unix', 'last_login_unix', 'max_repo_creation']) row[c] = Number(row[c] ?? 0);
  row.login_name = row.login_name ?? '';
  return row as unknown as UserRow;
}

export type NewUser = Pick<UserRow, 'name' | 'email' | 'passwd_hash'> & Partial<Pick<UserRow,
  'full_name' | 'type' | 'visibility' | 'is_admin' | 'must_change_password' | 'restricted' | 'description' | 'website' | 'location' | 'created_unix' | 'login_name'>>;

/**
 * Bumped by every account update in this process, so caches of account state (resolved tokens)
 * drop what they hold: a deactivated user's token stops working at once here.
 */
let generation = 0;
export function accountsGeneration(): number {
  return generation;
}
export function markAccountsChanged(): void {
  generation++;
}

export function usersStore(db: Knex) {
  return {
    async byId(id: number, trx: Knex = db): Promise<UserRow | undefined> {
      return toUserRow(await trx('users').where({ id }).first());
    },
    /** The owner of a repository, read without the repository row. */
    async ownerOfRepo(repoId: number, trx: Knex = db): Promise<UserRow | undefined> {
      return toUserRow(await trx('users as u').join('repositories as r', 'r.owner_id', 'u.id').where('r.id', repoId).first('u.*'));
    },
    async byName(name: string, trx: Knex = db): Promise<UserRow | undefined> {
      return toUserRow(await trx('users').where({ lower_name: name.toLowerCase() }).first());
    },
    async byNames(names: string[], trx: Knex = db): Promise<UserRow[]> {
      if (names.length === 0) return [];
      const rows = await trx('users').whereIn('lower_name', names.map((n) => n.toLowerCase()));
      return rows.map((r: Record<string, unknown>) => toUserRow(r)!);
    },
    async byIds(ids: number[], trx: Knex = db): Promise<Map<number, UserRow>> {
      const unique = [...new Set(ids.filter((id) => id > 0))];
      if (unique.length === 0) return new Map();
      // Outside a transaction, straight through the driver: every record and page of records reads its users.
      const rows = !trx.isTransaction
        ? await selectRows(db, `SELECT * FROM users WHERE id IN (${placeholders(unique.length)})`, unique)
        : await trx('users').whereIn('id', unique);
      return new Map(rows.map((r: Record<string, unknown>) => { const u = toUserRow(r)!; return [u.id, u] as const; }));
    },
    /** Whether the address is an account's primary address or one of a user's further addresses. */
    async emailTaken(email: string, trx: Knex = db): Promise<boolean> {
      const lower = email.toLowerCase();
      if (await trx('users').where({ lower_email: lower }).first('id')) return true;
      return Boolean(await trx('email_addresses').where({ lower_email: lower }).first('id'));
    },
    async insert(user: NewUser, trx: Knex = db): Promise<number> {
      const now = nowUnix();
      const [id] = await trx('users').insert({
        full_name: '', visibility: 'public', type: USER_TYPE.user, ...user,
        lower_name: user.name.toLowerCase(),
        lower_email: user.email.toLowerCase(),
        created_unix: user.created_unix ?? now,
        updated_unix: now,
      });
      return Number(id);
    },
    async update(id: number, fields: Partial<Omit<UserRow, 'id'>>, trx: Knex = db): Promise<void> {
      await trx('users').where({ id }).update({ ...fields, updated_unix: nowUnix() });
      markAccountsChanged();
    },
    async count(trx: Knex = db): Promise<number> {
      const row = await trx('users').count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
  };
}

export type UsersStore = ReturnType<typeof usersStore>;

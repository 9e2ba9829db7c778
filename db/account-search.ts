// Searching accounts (users or organizations) with Gitea's conditions (models/user/search.go
// SearchUsers and BuildCanSeeUserCondition), counted and paged in the database.
import type { Knex } from 'knex';
import { toUserRow, USER_TYPE, type UserRow } from './users.js';

export type AccountOrder = Array<{ column: string; order: 'asc' | 'desc' }>;

export interface AccountSearch {
  type: 'user' | 'organization';
  actor: UserRow | null;
  keyword?: string | undefined;
  /** Also match e-mail addresses (those not kept private, unless the actor is an admin or the owner). */
  searchByEmail?: boolean | undefined;
  /** Only these visibilities (empty: any the actor may see). */
  visible?: Array<'public' | 'limited' | 'private'> | undefined;
  uid?: number | undefined;
  loginName?: string | undefined;
  /** Every account here signs in locally (login source 0): any other source finds nobody. */
  sourceId?: number | undefined;
  isActive?: boolean | undefined;
  isAdmin?: boolean | undefined;
  isRestricted?: boolean | undefined;
  isTwoFactorEnabled?: boolean | undefined;
  isProhibitLogin?: boolean | undefined;
  order: AccountOrder;
}

/** Accounts the actor may find: admins all, others public and limited ones (restricted: none), their organizations and themselves. */
function whereCanSee(q: Knex.QueryBuilder, actor: UserRow | null): void {
  if (!actor) {
    q.where('u.visibility', 'public');
    return;
  }
  if (actor.is_admin) return;
  q.where((w) => {
    w.whereExists((e) => e.select(1).from('teams as st').join('team_members as sm', 'sm.team_id', 'st.id').whereRaw('st.org_id = u.id').andWhere('sm.user_id', actor.id));
    if (!actor.restricted) w.orWhereIn('u.visibility', ['public', 'limited']);
    w.orWhere('u.id', actor.id);
  });
}

function conditions(db: Knex, s: AccountSearch): Knex.QueryBuilder {
  const q = db('users as u').where('u.type', s.type === 'user' ? USER_TYPE.user : USER_TYPE.organization);
  const keyword = (s.keyword ?? '').toLowerCase();
  if (keyword !== '') {
    // Gitea's LIKE takes the keyword's own % and _ as wildcards; so does this.
    const like = `%${keyword}%`;
    q.where((w) => {
      w.where('u.lower_name', 'like', like).orWhereRaw('LOWER(u.full_name) LIKE ?', [like]);
      if (s.searchByEmail) {
        w.orWhere((mail) => {
          mail.whereRaw('LOWER(u.email) LIKE ?', [like]);
          if (!s.actor) mail.andWhere('u.keep_email_private', false);
          else if (!s.actor.is_admin) mail.andWhere((own) => own.where('u.keep_email_private', false).orWhere('u.id', s.actor!.id));
        });
      }
    });
  }
  if (s.visible && s.visible.length > 0) q.whereIn('u.visibility', s.visible);
  whereCanSee(q, s.actor);
  if (s.uid !== undefined && s.uid > 0) q.andWhere('u.id', s.uid);
  if (s.sourceId !== undefined && s.sourceId > 0) q.whereRaw('1 = 0');
  if (s.loginName) q.andWhere('u.login_name', s.loginName);
  for (const [column, value] of [['is_active', s.isActive], ['is_admin', s.isAdmin], ['restricted', s.isRestricted], ['prohibit_login', s.isProhibitLogin]] as const) {
    if (value !== undefined) q.andWhere(`u.${column}`, value);
  }
  if (s.isTwoFactorEnabled !== undefined) q.andWhere(s.isTwoFactorEnabled ? (w) => w.whereNotNull('u.totp_secret') : (w) => w.whereNull('u.totp_secret'));
  return q;
}

export async function searchAccounts(db: Knex, s: AccountSearch, page: { limit: number; offset: number }): Promise<{ accounts: UserRow[]; total: number }> {
  const [count, rows] = await Promise.all([
    conditions(db, s).count({ n: 'u.id' }).first(),
    conditions(db, s).select('u.*').orderBy([...s.order, { column: 'u.id', order: 'asc' }]).limit(page.limit).offset(page.offset),
  ]);
  return { accounts: (rows as Array<Record<string, unknown>>).map((r) => toUserRow(r)!), total: Number(count?.n ?? 0) };
}

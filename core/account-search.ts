// Gitea's account search rules (routers/api/v1/admin/user.go SearchUsers, user/user.go Search,
// org/org.go GetAll): order names, the admin filters, and who finds whom.
import { UnprocessableError } from './errors.js';
import { searchOrder } from './search-order.js';
import type { AccountOrder, AccountSearch } from '../db/account-search.js';

const BY_NAME: AccountOrder = [{ column: 'u.lower_name', order: 'asc' }];

const ORDERS: Record<string, Record<string, AccountOrder>> = {
  asc: { name: BY_NAME, created: [{ column: 'u.created_unix', order: 'asc' }], updated: [{ column: 'u.updated_unix', order: 'asc' }], id: [{ column: 'u.id', order: 'asc' }] },
  desc: { name: [{ column: 'u.lower_name', order: 'desc' }], created: [{ column: 'u.created_unix', order: 'desc' }], updated: [{ column: 'u.updated_unix', order: 'desc' }], id: [{ column: 'u.id', order: 'desc' }] },
};

/** The admin list's `sort` and `order` (Gitea's AdminUserOrderByMap); by name when not given. */
export function accountOrder(sort: string | undefined, order: string | undefined): AccountOrder {
  return searchOrder(ORDERS, sort, order, BY_NAME);
}

/** The admin list's filters as read from the query (booleans: given and parsed, or undefined). */
export interface AdminUserQuery {
  sourceId: number;
  loginName?: string | undefined;
  visibility?: string | undefined;
  isActive?: boolean | undefined;
  isAdmin?: boolean | undefined;
  isRestricted?: boolean | undefined;
  isTwoFactorEnabled?: boolean | undefined;
  isProhibitLogin?: boolean | undefined;
}

type Filters = Pick<AccountSearch, 'visible' | 'loginName' | 'sourceId' | 'isActive' | 'isAdmin' | 'isRestricted' | 'isTwoFactorEnabled' | 'isProhibitLogin'>;

/** The admin list's filters; an unknown visibility is 422 with Gitea's message. */
export function adminUserFilters(q: AdminUserQuery): Filters {
  const { visibility, ...rest } = q;
  const filters: Filters = { ...rest, loginName: q.loginName?.trim() || undefined };
  if (visibility) {
    if (visibility !== 'public' && visibility !== 'limited' && visibility !== 'private') throw new UnprocessableError(`Invalid visibility: "${visibility}"`);
    filters.visible = [visibility];
  }
  return filters;
}

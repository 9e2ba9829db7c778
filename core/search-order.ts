// Gitea's `sort` and `order` query values for searches: a table per order direction, the default
// when no sort is given, and its 422 messages for anything else.
import { UnprocessableError } from './errors.js';

export type SearchOrder = Array<{ column: string; order: 'asc' | 'desc' }>;

/** The order `sort` and `order` name in `orders` (order defaults to asc; no sort: `fallback`). */
export function searchOrder(orders: Record<string, Record<string, SearchOrder>>, sort: string | undefined, order: string | undefined, fallback: SearchOrder): SearchOrder {
  if (!sort) return fallback;
  const byOrder = Object.hasOwn(orders, order || 'asc') ? orders[order || 'asc'] : undefined;
  if (!byOrder) throw new UnprocessableError(`Invalid sort order: "${order}"`);
  const found = Object.hasOwn(byOrder, sort) ? byOrder[sort] : undefined;
  if (!found) throw new UnprocessableError(`Invalid sort mode: "${sort}"`);
  return found;
}

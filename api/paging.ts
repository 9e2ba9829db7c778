// The one paging helper: reads page/limit as Gitea does and writes Link, X-Total-Count and the
// X-Page family exactly as Gitea's API context does.
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';

export const PagingQuery = {
  page: Type.Optional(Type.Integer({ description: 'page number of results to return (1-based)' })),
  limit: Type.Optional(Type.Integer({ description: 'page size of results' })),
};

export interface Paging {
  page: number;
  limit: number;
  offset: number;
}

export interface PagingSettings {
  DEFAULT_PAGING_NUM: number;
  MAX_RESPONSE_ITEMS: number;
  APP_URL: string;
}

/** A limit ≤ 0 becomes the default and one above the maximum is clamped, silently, like Gitea. */
export function readPaging(query: { page?: number; limit?: number }, s: PagingSettings): Paging {
  const rawPage = query.page ?? 1;
  const page = rawPage > 0 ? Math.min(rawPage, 1_000_000_000) : 1;
  let limit = query.limit ?? 0;
  if (limit <= 0) limit = s.DEFAULT_PAGING_NUM;
  if (limit > s.MAX_RESPONSE_ITEMS) limit = s.MAX_RESPONSE_ITEMS;
  return { page, limit, offset: (page - 1) * limit };
}

function appendExposeHeaders(reply: FastifyReply, names: string[]): void {
  const existing = reply.getHeader('access-control-expose-headers');
  const list = existing ? String(existing).split(',').map((s) => s.trim()).filter(Boolean) : [];
  for (const n of names) if (!list.includes(n)) list.push(n);
  reply.header('access-control-expose-headers', list.join(', '));
}

/** Go's url.QueryEscape: spaces as '+', and the unreserved set left alone. */
export function goQueryEscape(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function linkFor(request: FastifyRequest, appUrl: string, page: number): string {
  const url = new URL(request.url, 'http://placeholder');
  const params = new Map<string, string[]>();
  for (const [k, v] of url.searchParams) params.set(k, [...(params.get(k) ?? []), v]);
  params.set('page', [String(page)]);
  const encoded = [...params.keys()]
    .sort()
    .flatMap((k) => params.get(k)!.map((v) => `${goQueryEscape(k)}=${goQueryEscape(v)}`))
    .join('&');
  return `${appUrl}${url.pathname.replace(/^\//, '')}?${encoded}`;
}

export function setTotalCount(reply: FastifyReply, total: number): void {
  reply.header('x-total-count', String(total));
  appendExposeHeaders(reply, ['X-Total-Count']);
}

/** Link is set only when at least one relation exists; order next, last, first, prev. */
export function setLinkHeader(request: FastifyRequest, reply: FastifyReply, total: number, paging: Paging, appUrl: string): void {
  const totalPages = Math.max(1, Math.ceil(total / paging.limit));
  const current = Math.min(Math.max(paging.page, 1), totalPages);
  const links: string[] = [];
  if (current < totalPages) {
    links.push(`<${linkFor(request, appUrl, current + 1)}>; rel="next"`);
    links.push(`<${linkFor(request, appUrl, totalPages)}>; rel="last"`);
  }
  if (current > 1) {
    links.push(`<${linkFor(request, appUrl, 1)}>; rel="first"`);
    links.push(`<${linkFor(request, appUrl, current - 1)}>; rel="prev"`);
  }
  if (links.length > 0) {
    reply.header('link', links.join(','));
    appendExposeHeaders(reply, ['Link']);
  }
}

/** The common list headers: Link and X-Total-Count. */
export function setPagingHeaders(request: FastifyRequest, reply: FastifyReply, total: number, paging: Paging, appUrl: string): void {
  setLinkHeader(request, reply, total, paging, appUrl);
  setTotalCount(reply, total);
}

/** Commit and file lists also carry X-Page, X-PerPage, X-PageCount and X-HasMore. */
export function setPageCountHeaders(request: FastifyRequest, reply: FastifyReply, total: number, paging: Paging, appUrl: string): void {
  const pageCount = Math.ceil(total / paging.limit);
  setPagingHeaders(request, reply, total, paging, appUrl);
  reply.header('x-page', String(paging.page));
  reply.header('x-perpage', String(paging.limit));
  reply.header('x-pagecount', String(pageCount));
  reply.header('x-hasmore', String(paging.page < pageCount));
  appendExposeHeaders(reply, ['X-Total-Count', 'X-PerPage', 'X-Page', 'X-PageCount', 'X-HasMore']);
}

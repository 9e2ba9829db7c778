// What the issue-side route modules share: loading the repository for the request and the doer check.
import type { FastifyRequest } from 'fastify';
import { loadRepository, type RepoContext } from '../../core/permissions.js';
import type { Db } from '../../db/connection.js';
import type { CommentRange } from '../../db/issues.js';
import type { UserRow } from '../../db/users.js';

export async function repoForRequest(db: Db, request: FastifyRequest, params: { owner: string; repo: string }): Promise<RepoContext> {
  return loadRepository(db, {
    ownerName: params.owner,
    repoName: params.repo,
    doer: request.doer ?? null,
    publicOnly: request.auth?.scopes?.includes('public-only') ?? false,
  });
}

export function repoApiUrl(appUrl: string, ctx: RepoContext): string {
  return `${appUrl}api/v1/repos/${ctx.owner.name}/${ctx.repo.name}`;
}

/** `since`/`before` as unix seconds; the query schema has already refused anything but RFC 3339. */
export function commentRangeOf(query: { since?: string; before?: string }): CommentRange {
  const unix = (iso: string | undefined) => (iso ? Math.floor(Date.parse(iso) / 1000) : undefined);
  return { sinceUnix: unix(query.since), beforeUnix: unix(query.before) };
}

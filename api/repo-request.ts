// What every repository route does first: load the repository for the request's doer (404 when
// they may not see it), and demand a signed-in doer, an access level and a writable repository.
import type { FastifyRequest } from 'fastify';
import { isPublicOnly } from '../core/auth/scopes.js';
import { assertNotArchived, loadRepository, requireMode, type AccessMode, type RepoContext } from '../core/permissions.js';
import type { UserRow } from '../db/users.js';
import { requireSignedIn } from './plugins/auth.js';

export function doerOf(request: FastifyRequest): UserRow | null {
  return request.doer ?? null;
}

/** Whether the request used a public-only token (private repositories are then refused). */
export function publicOnly(request: FastifyRequest): boolean {
  const scopes = request.auth?.scopes;
  return Boolean(scopes && isPublicOnly(scopes));
}

export async function repoFromRequest(request: FastifyRequest, params: { owner: string; repo: string }): Promise<RepoContext> {
  return loadRepository(request.server.services.db, {
    ownerName: params.owner,
    repoName: params.repo,
    doer: doerOf(request),
    publicOnly: publicOnly(request),
  });
}

/**
 * Loads the repository and checks the doer may change it: 404 unseen, 401 anonymous, 403 below
 * `needed`, 423 archived (unless `allowArchived`, for the settings PATCH that un-archives).
 */
export async function repoForChange(
  request: FastifyRequest,
  params: { owner: string; repo: string },
  needed: AccessMode,
  opts: { allowArchived?: boolean; message?: string } = {},
): Promise<RepoContext & { doer: UserRow }> {
  const ctx = await repoFromRequest(request, params);
  const doer = requireSignedIn(request);
  requireMode(ctx, needed, opts.message);
  if (!opts.allowArchived) assertNotArchived(ctx.repo);
  return { ...ctx, doer };
}

// Where hooks live: a repository's (repository admins), an organization's (its owners) or a user's
// own (the user), with
// Gitea's checks in Gitea's order (404 unseen, 401 anonymous, 403 not admin/owner), and the
// Temporal side the hook routes wake.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { ForbiddenError } from '../../core/errors.js';
import { assertPublicForToken, requireOrgOwner, visibleOrganization } from '../../core/organizations.js';
import type { RepoContext } from '../../core/permissions.js';
import type { HookScope } from '../../db/hooks.js';
import type { UserRow } from '../../db/users.js';
import { WebhookWorkflows } from '../../workers/webhook-client.js';
import { requireSignedIn } from '../plugins/auth.js';
import { publicOnly, repoForChange } from '../repo-request.js';

export const REPO_ADMIN_MESSAGE = 'user should be an owner or a collaborator with admin write of a repository';

export interface HookSurface {
  kind: 'repo' | 'org' | 'user';
  /** The collection's route, e.g. /api/v1/repos/:owner/:repo/hooks. */
  path: string;
  params: TSchema;
  tag: 'repository' | 'organization' | 'user';
  scope: 'repository' | 'organization' | 'user';
  /** Gitea's operationId prefix. */
  idPrefix: 'repo' | 'org' | 'user';
  resolve(request: FastifyRequest): Promise<{ scope: HookScope; doer: UserRow; repo?: RepoContext }>;
}

const RepoParams = Type.Object({ owner: Type.String(), repo: Type.String() });
const OrgParams = Type.Object({ org: Type.String({ description: 'name of the organization' }) });

export function hookSurfaces(app: FastifyInstance): HookSurface[] {
  const { db } = app.services;
  return [
    {
      kind: 'repo', path: '/api/v1/repos/:owner/:repo/hooks', params: RepoParams, tag: 'repository', scope: 'repository', idPrefix: 'repo',
      async resolve(request) {
        // Settings, not content: Gitea lets admins manage the hooks of an archived repository.
        const ctx = await repoForChange(request, request.params as { owner: string; repo: string }, 'admin', { allowArchived: true, message: REPO_ADMIN_MESSAGE });
        return { scope: { repoId: ctx.repo.id }, doer: ctx.doer, repo: ctx };
      },
    },
    {
      kind: 'org', path: '/api/v1/orgs/:org/hooks', params: OrgParams, tag: 'organization', scope: 'organization', idPrefix: 'org',
      async resolve(request) {
        const org = await visibleOrganization(db, (request.params as { org: string }).org, request.doer ?? null);
        const doer = requireSignedIn(request);
        assertPublicForToken(org, publicOnly(request));
        await requireOrgOwner(db, org, doer);
        return { scope: { ownerId: org.id }, doer };
      },
    },
    {
      // The signed-in user's own hooks: they hear every repository the user owns.
      kind: 'user', path: '/api/v1/user/hooks', params: Type.Object({}), tag: 'user', scope: 'user', idPrefix: 'user',
      async resolve(request) {
        const doer = requireSignedIn(request);
        if (publicOnly(request)) throw new ForbiddenError('this endpoint is not available for public-only tokens');
        return { scope: { ownerId: doer.id }, doer };
      },
    },
  ];
}

/** The webhook workflows through the API's Temporal client; null without Temporal (some tests). */
export function webhookWorkflows(app: FastifyInstance): WebhookWorkflows | null {
  const client = app.services.pullWorkflows?.client;
  return client ? new WebhookWorkflows(client, app.services.config) : null;
}

/**
 * Runs a wake-up without failing the request: what it wakes is already in the database, and the
 * worker's dispatcher finds overdue deliveries on its own.
 */
export async function wakeQuietly(request: FastifyRequest, what: string, wake: () => Promise<void> | undefined): Promise<void> {
  try {
    await wake();
  } catch (err) {
    request.log.warn({ err }, `could not ${what}`);
  }
}

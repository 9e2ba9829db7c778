// Organizations as accounts (routers/api/v1/org/org.go): editing and deleting one, and the lists
// of organizations (everyone's, the signed-in user's, a user's, also under /admin).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import { deleteOrganizationRows, editOrganization } from '../../core/org-lifecycle.js';
import { listOrgsOf } from '../../core/org-members.js';
import { accountVisibleTo, assertPublicForToken, requireOrgOwner, visibleOrganization } from '../../core/organizations.js';
import { searchAccounts } from '../../db/account-search.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { PagingQuery, readPaging, setPagingHeaders } from '../paging.js';
import { requireSignedIn, requireSiteAdmin } from '../plugins/auth.js';
import { EditOrgOption } from '../schemas/membership.js';
import { ApiErrorBody, OrgParams, Organization, UsernameParams } from '../schemas/user.js';
import { toApiOrganization } from '../serializers/organization.js';

const Paging = Type.Object(PagingQuery);
type PagingQs = { page?: number; limit?: number };
const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };

export async function orgDirectoryRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;

  app.patch<{ Params: Static<typeof OrgParams>; Body: Static<typeof EditOrgOption> }>('/api/v1/orgs/:org', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgEdit', tags: ['organization'], summary: 'Edit an organization',
      description: 'Organization owners only. Only the fields given change; an invalid e-mail answers 422.',
      params: OrgParams, body: EditOrgOption,
      response: { 200: Organization, 422: ApiErrorBody, ...errors },
    },
  }, async (request) => {
    const doer = requireSignedIn(request);
    const org = await visibleOrganization(db, request.params.org, doer);
    assertPublicForToken(org, request.auth.publicOnly);
    await requireOrgOwner(db, org, doer);
    return toApiOrganization(await editOrganization(db, org, request.body), appUrl);
  });

  app.delete<{ Params: Static<typeof OrgParams> }>('/api/v1/orgs/:org', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgDelete', tags: ['organization'], summary: 'Delete an organization',
      description: 'Organization owners only. An organization that still owns repositories is not deleted: 422 `user still has ownership of repositories` (Gitea answers 500).',
      params: OrgParams,
      response: { 204: Type.Null({ description: 'deleted' }), 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const org = await visibleOrganization(db, request.params.org, doer);
    assertPublicForToken(org, request.auth.publicOnly);
    await requireOrgOwner(db, org, doer);
    await deleteOrganizationRows(db, org);
    return reply.code(204).send();
  });

  app.get<{ Querystring: PagingQs }>('/api/v1/orgs', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgGetAll', tags: ['organization'], summary: 'Get list of organizations',
      description: 'Public organizations; limited ones too for signed-in callers, and every one for site admins. By name.',
      querystring: Paging,
      response: { 200: Type.Array(Organization), ...errors },
    },
  }, async (request, reply) => {
    const doer = request.doer;
    const paging = readPaging(request.query, config);
    let visible: Array<'public' | 'limited' | 'private'> = doer ? (doer.is_admin ? ['public', 'limited', 'private'] : ['public', 'limited']) : ['public'];
    if (request.auth.publicOnly) visible = ['public'];
    const { accounts, total } = await searchAccounts(db, { type: 'organization', actor: doer, visible, order: [{ column: 'u.lower_name', order: 'asc' }] }, paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return accounts.map((o) => toApiOrganization(o, appUrl));
  });

  app.get<{ Querystring: PagingQs }>('/api/v1/user/orgs', {
    config: { scope: ['user', 'organization'] },
    schema: {
      operationId: 'orgListCurrentUserOrgs', tags: ['organization'], summary: "List the current user's organizations",
      querystring: Paging,
      response: { 200: Type.Array(Organization), ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const paging = readPaging(request.query, config);
    const { orgs, total } = await listOrgsOf(db, doer, doer, Boolean(request.auth.publicOnly), paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return orgs.map((o) => toApiOrganization(o, appUrl));
  });

  app.get<{ Params: Static<typeof UsernameParams>; Querystring: PagingQs }>('/api/v1/users/:username/orgs', {
    config: { scope: ['user', 'organization'] },
    schema: {
      operationId: 'orgListUserOrgs', tags: ['organization'], summary: "List a user's organizations",
      description: 'Signed-in callers only. Others than the user and site admins see only public memberships of organizations they may see.',
      params: UsernameParams, querystring: Paging,
      response: { 200: Type.Array(Organization), ...errors },
    },
  }, async (request, reply) => userOrgs(request, reply, requireSignedIn(request)));

  // The same list under /admin (Gitea routes org.ListUserOrgs there too; its document does not list it).
  app.get<{ Params: Static<typeof UsernameParams>; Querystring: PagingQs }>('/api/v1/admin/users/:username/orgs', {
    config: { scope: 'admin' },
    schema: {
      operationId: 'adminListUserOrgs', tags: ['admin'], summary: "List a user's organizations",
      description: 'Site administrators only: every organization the user belongs to.',
      params: UsernameParams, querystring: Paging,
      response: { 200: Type.Array(Organization), ...errors },
    },
  }, async (request, reply) => userOrgs(request, reply, requireSiteAdmin(request)));

  async function userOrgs(
    request: FastifyRequest<{ Params: Static<typeof UsernameParams>; Querystring: PagingQs }>, reply: FastifyReply, doer: UserRow,
  ) {
    const user = await usersStore(db).byName(request.params.username);
    if (!user || !(await accountVisibleTo(db, user, doer))) throw new NotFoundError();
    assertPublicForToken(user, request.auth.publicOnly);
    const paging = readPaging(request.query, config);
    const { orgs, total } = await listOrgsOf(db, user, doer, Boolean(request.auth.publicOnly), paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return orgs.map((o) => toApiOrganization(o, appUrl));
  }
}

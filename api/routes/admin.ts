// Site administration of accounts (routers/api/v1/admin/user.go and org.go): list, edit and delete
// users, list every organization, create an organization for a user. Creating users stays in
// users.ts. Every route is for site administrators only (401 anonymous, 403 others).
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { assertMayCreateOrganization } from '../../core/account-limits.js';
import { deleteUserByAdmin, editUserByAdmin } from '../../core/admin-users.js';
import { searchAccounts } from '../../db/account-search.js';
import { accountOrder, adminUserFilters } from '../../core/account-search.js';
import { NotFoundError, UnprocessableError } from '../../core/errors.js';
import { createOrganization } from '../../core/organizations.js';
import { USER_TYPE, usersStore, type UserRow } from '../../db/users.js';
import { parseFormBool, parseFormInt, parseFormOptionalBool } from '../go-form.js';
import { PagingQuery, readPaging, setPagingHeaders } from '../paging.js';
import { requireSiteAdmin } from '../plugins/auth.js';
import { AdminSearchUsersQuery, DeleteUserQuery, EditUserOption } from '../schemas/admin.js';
import { ApiErrorBody, CreateOrgOption, Organization, User, UsernameParams } from '../schemas/user.js';
import { toApiOrganization } from '../serializers/organization.js';
import { toApiUser } from '../serializers/user.js';

const errors = { 401: ApiErrorBody, 403: ApiErrorBody };

export async function adminRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;

  async function userByName(name: string): Promise<UserRow> {
    const user = await usersStore(db).byName(name);
    if (!user) throw new NotFoundError();
    return user;
  }

  app.get<{ Querystring: Static<typeof AdminSearchUsersQuery> }>('/api/v1/admin/users', {
    config: { scope: 'admin' },
    schema: {
      operationId: 'adminSearchUsers', tags: ['admin'], summary: 'Search users according filter conditions',
      description: 'Users only (no organizations), by name unless `sort` says otherwise. An unknown `sort`, `order` or `visibility` answers 422.',
      querystring: AdminSearchUsersQuery,
      response: { 200: Type.Array(User), 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSiteAdmin(request);
    const q = request.query;
    const paging = readPaging(q, config);
    const { accounts, total } = await searchAccounts(db, {
      type: 'user', actor: doer, keyword: q.q?.trim(), searchByEmail: true, order: accountOrder(q.sort, q.order),
      ...adminUserFilters({
        sourceId: parseFormInt(q.source_id), loginName: q.login_name, visibility: q.visibility,
        isActive: parseFormOptionalBool(q.is_active), isAdmin: parseFormOptionalBool(q.is_admin), isRestricted: parseFormOptionalBool(q.is_restricted),
        isTwoFactorEnabled: parseFormOptionalBool(q.is_2fa_enabled), isProhibitLogin: parseFormOptionalBool(q.is_prohibit_login),
      }),
    }, paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return accounts.map((u) => toApiUser(u, doer, appUrl));
  });

  app.patch<{ Params: Static<typeof UsernameParams>; Body: Static<typeof EditUserOption> }>('/api/v1/admin/users/:username', {
    config: { scope: 'admin' },
    schema: {
      operationId: 'adminEditUser', tags: ['admin'], summary: 'Edit an existing user',
      description: 'Only the fields given change (`null` is not given). A short password, a bad or taken e-mail, or taking admin from the last admin answer 400; ' +
        'nothing is written when any field is refused.',
      params: UsernameParams, body: EditUserOption,
      response: { 200: User, 400: ApiErrorBody, 404: ApiErrorBody, 422: ApiErrorBody, ...errors },
    },
  }, async (request) => {
    const doer = requireSiteAdmin(request);
    const user = await userByName(request.params.username);
    const b = request.body;
    const edited = await editUserByAdmin(db, user, {
      ...b,
      email: b.email ?? undefined, full_name: b.full_name ?? undefined, must_change_password: b.must_change_password ?? undefined,
      website: b.website ?? undefined, location: b.location ?? undefined, description: b.description ?? undefined, active: b.active ?? undefined,
      admin: b.admin ?? undefined, allow_git_hook: b.allow_git_hook ?? undefined, allow_import_local: b.allow_import_local ?? undefined,
      max_repo_creation: b.max_repo_creation ?? undefined, prohibit_login: b.prohibit_login ?? undefined,
      allow_create_organization: b.allow_create_organization ?? undefined, restricted: b.restricted ?? undefined,
    });
    return toApiUser(edited, doer, appUrl);
  });

  app.delete<{ Params: Static<typeof UsernameParams>; Querystring: Static<typeof DeleteUserQuery> }>('/api/v1/admin/users/:username', {
    config: { scope: 'admin' },
    schema: {
      operationId: 'adminDeleteUser', tags: ['admin'], summary: 'Delete a user',
      description: 'Refused (422) for organizations, oneself and the last admin, and while the user owns repositories or belongs to organizations, ' +
        'unless `purge=true`: then their repositories go, they leave every organization, and organizations they were the last owner of are deleted.',
      params: UsernameParams, querystring: DeleteUserQuery,
      response: { 204: Type.Null({ description: 'deleted' }), 404: ApiErrorBody, 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSiteAdmin(request);
    const user = await userByName(request.params.username);
    await deleteUserByAdmin({ db, config }, user, doer, parseFormBool(request.query.purge));
    return reply.code(204).send();
  });

  app.get<{ Querystring: { page?: number; limit?: number } }>('/api/v1/admin/orgs', {
    config: { scope: 'admin' },
    schema: {
      operationId: 'adminGetAllOrgs', tags: ['admin'], summary: 'List all organizations',
      description: 'Every organization, private ones included, by name.',
      querystring: Type.Object(PagingQuery),
      response: { 200: Type.Array(Organization), ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSiteAdmin(request);
    const paging = readPaging(request.query, config);
    const { accounts, total } = await searchAccounts(db, { type: 'organization', actor: doer, order: accountOrder(undefined, undefined) }, paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return accounts.map((o) => toApiOrganization(o, appUrl));
  });

  app.post<{ Params: Static<typeof UsernameParams>; Body: Static<typeof CreateOrgOption> }>('/api/v1/admin/users/:username/orgs', {
    config: { scope: 'admin' },
    schema: {
      operationId: 'adminCreateOrg', tags: ['admin'], summary: 'Create an organization',
      description: 'The user becomes the only member of its Owners team. As in Gitea, `email` and `repo_admin_change_team_access` are not taken here.',
      params: UsernameParams, body: CreateOrgOption,
      response: { 201: Organization, 404: ApiErrorBody, 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    requireSiteAdmin(request);
    const owner = await userByName(request.params.username);
    if (owner.type !== USER_TYPE.user) throw new UnprocessableError(`${owner.name} is an organization, not a user`);
    assertMayCreateOrganization(owner);
    const b = request.body;
    const org = await createOrganization(db, owner, {
      username: b.username, fullName: b.full_name, description: b.description, website: b.website, location: b.location, visibility: b.visibility,
    });
    reply.code(201);
    return toApiOrganization(org, appUrl);
  });
}

// Organization memberships (routers/api/v1/org/member.go): members and public members, checking
// one, concealing or publicising one's membership, removing a member, and a user's permissions in
// an organization. Organizations the caller may not see answer 404 throughout.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import {
  checkOrgMembership, isPublicOrgMember, listOrgMembers, orgPermissionsOf, removeOrgMember, setMembershipPublic,
} from '../../core/org-members.js';
import { accountVisibleTo, assertPublicForToken, requireOrgOwner, visibleOrganization } from '../../core/organizations.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { PagingQuery, readPaging, setPagingHeaders } from '../paging.js';
import { requireSignedIn } from '../plugins/auth.js';
import { OrgUsernameParams, OrganizationPermissions, UserOrgParams } from '../schemas/membership.js';
import { ApiErrorBody, OrgParams, User } from '../schemas/user.js';
import { toApiUser } from '../serializers/user.js';

const Paging = Type.Object(PagingQuery);
type PagingQs = { page?: number; limit?: number };
const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };
const NoContent = Type.Null({ description: 'yes / done' });

export async function orgMemberRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;

  async function orgOf(request: FastifyRequest, name: string): Promise<UserRow> {
    const org = await visibleOrganization(db, name, request.doer);
    assertPublicForToken(org, request.auth.publicOnly);
    return org;
  }

  async function userOf(name: string): Promise<UserRow> {
    const user = await usersStore(db).byName(name);
    if (!user) throw new NotFoundError();
    return user;
  }

  for (const [publicList, path, operationId, summary] of [
    [false, 'members', 'orgListMembers', "List an organization's members"],
    [true, 'public_members', 'orgListPublicMembers', "List an organization's public members"],
  ] as const) {
    app.get<{ Params: Static<typeof OrgParams>; Querystring: PagingQs }>(`/api/v1/orgs/:org/${path}`, {
      config: { scope: 'organization' },
      schema: {
        operationId, tags: ['organization'], summary,
        description: publicList
          ? 'Members who made their membership public (site admins see every member, as in Gitea).'
          : 'Signed-in callers only. Members and site admins see every member (restricted members: public ones and their teammates); others only public members.',
        params: OrgParams, querystring: Paging,
        response: { 200: Type.Array(User), ...errors },
      },
    }, async (request, reply) => {
      if (!publicList) requireSignedIn(request);
      const org = await orgOf(request, request.params.org);
      const paging = readPaging(request.query, config);
      const { users, total } = await listOrgMembers(db, org, request.doer, paging, publicList);
      setPagingHeaders(request, reply, total, paging, appUrl);
      return users.map((u) => toApiUser(u, request.doer, appUrl));
    });
  }

  app.get<{ Params: Static<typeof OrgUsernameParams> }>('/api/v1/orgs/:org/members/:username', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgIsMember', tags: ['organization'], summary: 'Check if a user is a member of an organization',
      description: 'Members and site admins get 204 or 404; a user asking about themselves from outside gets 404; others are redirected (303) to the public membership check.',
      params: OrgUsernameParams,
      response: { 204: NoContent, 303: Type.Null({ description: 'ask the public membership check' }), ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const org = await orgOf(request, request.params.org);
    const target = await userOf(request.params.username);
    const answer = await checkOrgMembership(db, org, doer, target);
    if (answer === 'member') return reply.code(204).send();
    if (answer === 'not-member') throw new NotFoundError();
    return reply.redirect(`/api/v1/orgs/${encodeURIComponent(org.name)}/public_members/${encodeURIComponent(target.name)}`, 303);
  });

  app.delete<{ Params: Static<typeof OrgUsernameParams> }>('/api/v1/orgs/:org/members/:username', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgDeleteMember', tags: ['organization'], summary: 'Remove a member from an organization',
      description: 'Organization owners only. The user leaves every team of the organization (nothing happens when they are not a member). ' +
        'The last owner stays: 422 (Gitea answers 500).',
      params: OrgUsernameParams,
      response: { 204: NoContent, 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const org = await orgOf(request, request.params.org);
    await requireOrgOwner(db, org, doer);
    await removeOrgMember(db, org, await userOf(request.params.username));
    return reply.code(204).send();
  });

  app.get<{ Params: Static<typeof OrgUsernameParams> }>('/api/v1/orgs/:org/public_members/:username', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgIsPublicMember', tags: ['organization'], summary: 'Check if a user is a public member of an organization',
      params: OrgUsernameParams,
      response: { 204: NoContent, ...errors },
    },
  }, async (request, reply) => {
    const org = await orgOf(request, request.params.org);
    if (!(await isPublicOrgMember(db, org, await userOf(request.params.username)))) throw new NotFoundError();
    return reply.code(204).send();
  });

  for (const [isPublic, method, operationId, summary] of [
    [true, 'PUT', 'orgPublicizeMember', "Publicize a user's membership"],
    [false, 'DELETE', 'orgConcealMember', "Conceal a user's membership"],
  ] as const) {
    app.route<{ Params: Static<typeof OrgUsernameParams> }>({
      method, url: '/api/v1/orgs/:org/public_members/:username',
      config: { scope: 'organization' },
      schema: {
        operationId, tags: ['organization'], summary,
        description: 'Organization members change their own membership; owners and site admins anybody\'s. Changing a non-member changes nothing.',
        params: OrgUsernameParams,
        response: { 204: NoContent, ...errors },
      },
      handler: async (request, reply) => {
        const doer = requireSignedIn(request);
        const org = await orgOf(request, request.params.org);
        await setMembershipPublic(db, org, doer, await userOf(request.params.username), isPublic);
        return reply.code(204).send();
      },
    });
  }

  app.get<{ Params: Static<typeof UserOrgParams> }>('/api/v1/users/:username/orgs/:org/permissions', {
    config: { scope: ['user', 'organization'] },
    schema: {
      operationId: 'orgGetUserPermissions', tags: ['organization'], summary: 'Get user permissions in organization',
      description: "The user's highest team permission in the organization, and whether a team lets them create repositories.",
      params: UserOrgParams,
      response: { 200: OrganizationPermissions, ...errors },
    },
  }, async (request) => {
    const doer = requireSignedIn(request);
    const user = await userOf(request.params.username);
    if (!(await accountVisibleTo(db, user, doer))) throw new NotFoundError();
    assertPublicForToken(user, request.auth.publicOnly);
    const org = await orgOf(request, request.params.org);
    return orgPermissionsOf(db, org, user);
  });
}

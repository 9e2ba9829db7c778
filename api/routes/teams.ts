// Team changes and team lists (routers/api/v1/org/team.go): edit and delete a team, check one
// member, search an organization's teams, and the signed-in user's teams. Creating teams and
// changing members live in orgs.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { PUBLIC_ONLY_ENDPOINT_MESSAGE } from '../../core/auth/scopes.js';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import { assertPublicForToken, requireOrgMember, visibleOrganization } from '../../core/organizations.js';
import { deleteTeam, editTeam } from '../../core/team-changes.js';
import { requireTeamAccess, requireTeamOwner, teamById } from '../../core/teams.js';
import { teamsStore, type TeamRow } from '../../db/teams.js';
import { usersStore } from '../../db/users.js';
import { parseFormBool } from '../go-form.js';
import { PagingQuery, readPaging, setPagingHeaders } from '../paging.js';
import { requireSignedIn } from '../plugins/auth.js';
import { EditTeamOption, TeamSearchQuery, TeamSearchResults } from '../schemas/membership.js';
import { ApiErrorBody, OrgParams, Team, TeamMemberParams, TeamParams, User } from '../schemas/user.js';
import { toApiOrganization, toApiTeam } from '../serializers/organization.js';
import { toApiUser } from '../serializers/user.js';

const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };

export async function teamRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;

  /** Teams with their organizations, as Gitea's ToTeams(..., loadOrgs=true) writes them. */
  async function withOrganizations(teams: TeamRow[]) {
    const orgs = await usersStore(db).byIds(teams.map((t) => t.org_id));
    return teams.map((t) => toApiTeam(t, orgs.has(t.org_id) ? toApiOrganization(orgs.get(t.org_id)!, appUrl) : null));
  }

  async function teamForOwner(request: FastifyRequest, teamId: number): Promise<TeamRow> {
    const doer = requireSignedIn(request);
    const team = await teamById(db, teamId);
    await requireTeamAccess(db, team, doer);
    await requireTeamOwner(db, team, doer);
    return team;
  }

  app.patch<{ Params: Static<typeof TeamParams>; Body: Static<typeof EditTeamOption> }>('/api/v1/teams/:id', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgEditTeam', tags: ['organization'], summary: 'Edit a team',
      description: 'Organization owners only (others get 404, or 403 for members of other teams). As in Gitea: an empty name keeps the name, ' +
        '`includes_all_repositories` changes only together with `permission`, and the Owners team keeps its permission.',
      params: TeamParams, body: EditTeamOption,
      response: { 200: Team, 422: ApiErrorBody, ...errors },
    },
  }, async (request) => {
    const team = await teamForOwner(request, request.params.id);
    // Gitea answers an edit without the organization.
    return toApiTeam(await editTeam(db, team, request.body), null);
  });

  app.delete<{ Params: Static<typeof TeamParams> }>('/api/v1/teams/:id', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgDeleteTeam', tags: ['organization'], summary: 'Delete a team',
      description: 'Organization owners only. Deliberate difference: the Owners team cannot be deleted (422); Gitea would leave the organization without owners.',
      params: TeamParams,
      response: { 204: Type.Null({ description: 'deleted' }), 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    await deleteTeam(db, await teamForOwner(request, request.params.id));
    return reply.code(204).send();
  });

  app.get<{ Params: Static<typeof TeamMemberParams> }>('/api/v1/teams/:id/members/:username', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgListTeamMember', tags: ['organization'], summary: 'List a particular member of team',
      description: 'The user when they are in the team, else 404.',
      params: TeamMemberParams,
      response: { 200: User, ...errors },
    },
  }, async (request) => {
    const doer = requireSignedIn(request);
    const team = await teamById(db, request.params.id);
    await requireTeamAccess(db, team, doer);
    const user = await usersStore(db).byName(request.params.username);
    if (!user || !(await teamsStore(db).isMember(team.id, user.id))) throw new NotFoundError();
    return toApiUser(user, doer, appUrl);
  });

  app.get<{ Params: Static<typeof OrgParams>; Querystring: Static<typeof TeamSearchQuery> }>('/api/v1/orgs/:org/teams/search', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'teamSearch', tags: ['organization'], summary: 'Search for teams within an organization',
      description: 'Organization members only. Others than site admins find only the teams they are in. Answers `{ok, data}` as Gitea does.',
      params: OrgParams, querystring: TeamSearchQuery,
      response: { 200: TeamSearchResults, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const org = await visibleOrganization(db, request.params.org, doer);
    assertPublicForToken(org, request.auth.publicOnly);
    await requireOrgMember(db, org, doer);
    const q = request.query;
    const paging = readPaging(q, config);
    const { teams, total } = await teamsStore(db).search({
      orgId: org.id, userId: doer.is_admin ? undefined : doer.id, keyword: q.q?.trim(),
      includeDescription: q.include_desc === undefined || q.include_desc === '' || parseFormBool(q.include_desc),
    }, paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return { data: teams.map((t) => toApiTeam(t, null)), ok: true };
  });

  app.get<{ Querystring: { page?: number; limit?: number } }>('/api/v1/user/teams', {
    config: { scope: 'user' },
    schema: {
      operationId: 'userListTeams', tags: ['user'], summary: 'List all the teams a user belongs to',
      description: 'Not for public-only tokens (403).',
      querystring: Type.Object(PagingQuery),
      response: { 200: Type.Array(Team), ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    if (request.auth.publicOnly) throw new ForbiddenError(PUBLIC_ONLY_ENDPOINT_MESSAGE);
    const paging = readPaging(request.query, config);
    const { teams, total } = await teamsStore(db).search({ userId: doer.id }, paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return withOrganizations(teams);
  });
}

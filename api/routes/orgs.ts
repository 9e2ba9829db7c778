// Organizations and teams (routers/api/v1/org/org.go, team.go): create and get an organization,
// create and list its teams, get a team, list and change its members.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { assertMayCreateOrganization } from '../../core/account-limits.js';
import { NotFoundError } from '../../core/errors.js';
import {
  assertPublicForToken,
  createOrganization,
  requireOrgMember,
  requireOrgOwner,
  visibleOrganization,
} from '../../core/organizations.js';
import {
  addTeamMember,
  createTeam,
  listTeamMembers,
  listTeams,
  removeTeamMember,
  requireTeamAccess,
  requireTeamOwner,
  teamById,
} from '../../core/teams.js';
import { usersStore } from '../../db/users.js';
import { PagingQuery, readPaging, setTotalCount } from '../paging.js';
import { requireSignedIn } from '../plugins/auth.js';
import {
  ApiErrorBody, CreateOrgOption, CreateTeamOption, OrgParams, Organization, Team, TeamMemberParams, TeamParams, User,
} from '../schemas/user.js';
import { toApiOrganization, toApiTeam } from '../serializers/organization.js';
import { toApiUser } from '../serializers/user.js';

const Paging = Type.Object(PagingQuery);
type PagingQs = { page?: number; limit?: number };
const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };

export async function orgRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;

  app.post<{ Body: Static<typeof CreateOrgOption> }>('/api/v1/orgs', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgCreate',
      tags: ['organization'],
      summary: 'Create an organization',
      description: 'The creator becomes the only member of the new `Owners` team (permission owner).',
      body: CreateOrgOption,
      response: { 201: Organization, 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    assertMayCreateOrganization(doer);
    const b = request.body;
    const org = await createOrganization(db, doer, {
      username: b.username, fullName: b.full_name, email: b.email, description: b.description,
      website: b.website, location: b.location, visibility: b.visibility, repoAdminChangeTeamAccess: b.repo_admin_change_team_access,
    });
    reply.code(201);
    return toApiOrganization(org, appUrl);
  });

  app.get<{ Params: Static<typeof OrgParams> }>('/api/v1/orgs/:org', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgGet',
      tags: ['organization'],
      summary: 'Get an organization',
      description: 'Private organizations are visible to their members and site admins; limited ones to signed-in users. The e-mail is blank for anonymous callers.',
      params: OrgParams,
      response: { 200: Organization, ...errors },
    },
  }, async (request) => {
    const org = await visibleOrganization(db, request.params.org, request.doer);
    assertPublicForToken(org, request.auth.publicOnly);
    return toApiOrganization(org, appUrl, { hideEmail: request.doer === null });
  });

  app.post<{ Params: Static<typeof OrgParams>; Body: Static<typeof CreateTeamOption> }>('/api/v1/orgs/:org/teams', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgCreateTeam',
      tags: ['organization'],
      summary: 'Create a team',
      description: 'Organization owners only. Permission admin gives every unit admin access; below admin, `units_map` sets the units ' +
        '(the permission becomes the lowest unit level) or `units` lists them. Deliberate difference: with neither, Gitea answers 500; ' +
        'here every unit gets the team permission.',
      params: OrgParams,
      body: CreateTeamOption,
      response: { 201: Team, 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const org = await visibleOrganization(db, request.params.org, doer);
    await requireOrgOwner(db, org, doer);
    const b = request.body;
    const team = await createTeam(db, org, {
      name: b.name, description: b.description, includesAllRepositories: b.includes_all_repositories,
      permission: b.permission, units: b.units, unitsMap: b.units_map, canCreateOrgRepo: b.can_create_org_repo,
    });
    reply.code(201);
    // Gitea 1.26 answers a new team with its organization.
    return toApiTeam(team, toApiOrganization(org, appUrl));
  });

  app.get<{ Params: Static<typeof OrgParams>; Querystring: PagingQs }>('/api/v1/orgs/:org/teams', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgListTeams',
      tags: ['organization'],
      summary: "List an organization's teams",
      description: 'Organization members only. Sets X-Total-Count.',
      params: OrgParams,
      querystring: Paging,
      response: { 200: Type.Array(Team), ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const org = await visibleOrganization(db, request.params.org, doer);
    await requireOrgMember(db, org, doer);
    const paging = readPaging(request.query, config);
    const { teams, total } = await listTeams(db, org.id, paging.limit, paging.offset);
    setTotalCount(reply, total);
    return teams.map((t) => toApiTeam(t, null));
  });

  app.get<{ Params: Static<typeof TeamParams> }>('/api/v1/teams/:id', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgGetTeam',
      tags: ['organization'],
      summary: 'Get a team',
      description: 'Team members, organization owners and site admins; other organization members get 403, everybody else 404.',
      params: TeamParams,
      response: { 200: Team, ...errors },
    },
  }, async (request) => {
    const doer = requireSignedIn(request);
    const team = await teamById(db, request.params.id);
    await requireTeamAccess(db, team, doer);
    const org = await usersStore(db).byId(team.org_id);
    if (!org) throw new NotFoundError();
    return toApiTeam(team, toApiOrganization(org, appUrl));
  });

  app.get<{ Params: Static<typeof TeamParams>; Querystring: PagingQs }>('/api/v1/teams/:id/members', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgListTeamMembers',
      tags: ['organization'],
      summary: "List a team's members",
      description: 'Sets X-Total-Count.',
      params: TeamParams,
      querystring: Paging,
      response: { 200: Type.Array(User), ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const team = await teamById(db, request.params.id);
    await requireTeamAccess(db, team, doer);
    const paging = readPaging(request.query, config);
    const { users, total } = await listTeamMembers(db, team, paging.limit, paging.offset);
    setTotalCount(reply, total);
    return users.map((u) => toApiUser(u, doer, appUrl));
  });

  app.put<{ Params: Static<typeof TeamMemberParams> }>('/api/v1/teams/:id/members/:username', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgAddTeamMember',
      tags: ['organization'],
      summary: 'Add a team member',
      description: 'Organization owners only (others get 404, as Gitea hides the team). 403 when the organization blocked the user.',
      params: TeamMemberParams,
      response: { 204: Type.Null({ description: 'added' }), 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const team = await teamById(db, request.params.id);
    await requireTeamAccess(db, team, doer);
    await requireTeamOwner(db, team, doer);
    await addTeamMember(db, team, request.params.username);
    return reply.code(204).send();
  });

  app.delete<{ Params: Static<typeof TeamMemberParams> }>('/api/v1/teams/:id/members/:username', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgRemoveTeamMember',
      tags: ['organization'],
      summary: 'Remove a team member',
      description: 'Organization owners only. Removing the last member of the Owners team answers 422 (Gitea: 500).',
      params: TeamMemberParams,
      response: { 204: Type.Null({ description: 'removed' }), 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const team = await teamById(db, request.params.id);
    await requireTeamAccess(db, team, doer);
    await requireTeamOwner(db, team, doer);
    await removeTeamMember(db, team, request.params.username);
    return reply.code(204).send();
  });
}

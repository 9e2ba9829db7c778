// Which repositories a team reaches, from both sides (routers/api/v1/org/team.go team repository
// routes, routers/api/v1/repo/teams.go): a team's repositories, and a repository's teams.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import { requireMode } from '../../core/permissions.js';
import { changeRepoTeam, changeTeamRepo, orgTeamByName, requireOrgRepo, teamRepoByName } from '../../core/team-changes.js';
import { requireTeamAccess, teamById } from '../../core/teams.js';
import { teamReposStore } from '../../db/team-repos.js';
import { usersStore } from '../../db/users.js';
import { PagingQuery, readPaging, setPagingHeaders } from '../paging.js';
import { requireSignedIn } from '../plugins/auth.js';
import { repoFromRequest } from '../repo-request.js';
import { RepoTeamParams, TeamRepoParams } from '../schemas/membership.js';
import { OwnerRepoParams, Repository } from '../schemas/repo.js';
import { ApiErrorBody, Team, TeamParams } from '../schemas/user.js';
import { loadApiRepo, loadApiRepoList } from '../serializers/repo.js';
import { toApiTeam } from '../serializers/organization.js';

const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };
const NoContent = Type.Null({ description: 'done' });

export async function teamRepoRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const deps = { db, config };
  const appUrl = config.APP_URL;

  async function teamFor(request: Parameters<typeof requireSignedIn>[0], id: number) {
    const doer = requireSignedIn(request);
    const team = await teamById(db, id);
    await requireTeamAccess(db, team, doer);
    return { doer, team };
  }

  app.get<{ Params: Static<typeof TeamParams>; Querystring: { page?: number; limit?: number } }>('/api/v1/teams/:id/repos', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgListTeamRepos', tags: ['organization'], summary: 'List a team\'s repos',
      description: 'Team members, organization owners and site admins. By name; a team that includes all repositories lists every repository of its organization.',
      params: TeamParams, querystring: Type.Object(PagingQuery),
      response: { 200: Type.Array(Repository), ...errors },
    },
  }, async (request, reply) => {
    const { doer, team } = await teamFor(request, request.params.id);
    const paging = readPaging(request.query, config);
    const { repos, total } = await teamReposStore(db).list(team, paging);
    const org = (await usersStore(db).byId(team.org_id))!;
    setPagingHeaders(request, reply, total, paging, appUrl);
    return loadApiRepoList(deps, repos.map((repo) => ({ repo, owner: org })), doer, appUrl);
  });

  app.get<{ Params: Static<typeof TeamRepoParams> }>('/api/v1/teams/:id/repos/:org/:repo', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgListTeamRepo', tags: ['organization'], summary: 'List a particular repo of team',
      params: TeamRepoParams,
      response: { 200: Repository, ...errors },
    },
  }, async (request) => {
    const { doer, team } = await teamFor(request, request.params.id);
    const repo = await teamRepoByName(db, team, request.params.repo);
    if (!(await teamReposStore(db).has(team, repo))) throw new NotFoundError();
    return loadApiRepo(deps, repo, doer, appUrl);
  });

  for (const [add, method, operationId, summary] of [
    [true, 'PUT', 'orgAddTeamRepository', 'Add a repository to a team'],
    [false, 'DELETE', 'orgRemoveTeamRepository', 'Remove a repository from a team'],
  ] as const) {
    app.route<{ Params: Static<typeof TeamRepoParams> }>({
      method, url: '/api/v1/teams/:id/repos/:org/:repo',
      config: { scope: 'organization' },
      schema: {
        operationId, tags: ['organization'], summary,
        description: 'Team members, organization owners and site admins, who also need admin access to the repository (403). ' +
          'A team that includes all repositories keeps each of them.',
        params: TeamRepoParams,
        response: { 204: NoContent, ...errors },
      },
      handler: async (request, reply) => {
        const { doer, team } = await teamFor(request, request.params.id);
        await changeTeamRepo(db, team, await teamRepoByName(db, team, request.params.repo), doer, add);
        return reply.code(204).send();
      },
    });
  }

  app.get<{ Params: Static<typeof OwnerRepoParams> }>('/api/v1/repos/:owner/:repo/teams', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoListTeams', tags: ['repository'], summary: 'List a repository\'s teams',
      description: 'Signed-in readers of the repository. The Owners team first, then by name. 405 for repositories not owned by an organization.',
      params: OwnerRepoParams,
      response: { 200: Type.Array(Team), 405: ApiErrorBody, ...errors },
    },
  }, async (request) => {
    requireSignedIn(request);
    const ctx = await repoFromRequest(request, request.params);
    requireOrgRepo(ctx);
    return (await teamReposStore(db).teamsOfRepo(ctx.owner.id, ctx.repo.id)).map((t) => toApiTeam(t, null));
  });

  app.get<{ Params: Static<typeof RepoTeamParams> }>('/api/v1/repos/:owner/:repo/teams/:team', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoCheckTeam', tags: ['repository'], summary: 'Check if a team is assigned to a repository',
      description: 'The team when it reaches the repository, else 404.',
      params: RepoTeamParams,
      response: { 200: Team, 405: ApiErrorBody, ...errors },
    },
  }, async (request) => {
    requireSignedIn(request);
    const ctx = await repoFromRequest(request, request.params);
    requireOrgRepo(ctx);
    const team = await orgTeamByName(db, ctx, request.params.team);
    if (!(await teamReposStore(db).has(team, ctx.repo))) throw new NotFoundError();
    return toApiTeam(team, null);
  });

  for (const [add, method, operationId, summary] of [
    [true, 'PUT', 'repoAddTeam', 'Add a team to a repository'],
    [false, 'DELETE', 'repoDeleteTeam', 'Delete a team from a repository'],
  ] as const) {
    app.route<{ Params: Static<typeof RepoTeamParams> }>({
      method, url: '/api/v1/repos/:owner/:repo/teams/:team',
      config: { scope: 'repository' },
      schema: {
        operationId, tags: ['repository'], summary,
        description: 'Repository admins when the organization lets them change team access, its owners otherwise. ' +
          (add ? 'A team already added is 422.' : 'A team not added is 422.') + ' 405 for repositories not owned by an organization.',
        params: RepoTeamParams,
        response: { 204: NoContent, 405: ApiErrorBody, 422: ApiErrorBody, ...errors },
      },
      handler: async (request, reply) => {
        requireSignedIn(request);
        const ctx = await repoFromRequest(request, request.params);
        requireMode(ctx, 'admin', 'user should be an owner or a collaborator with admin write of a repository');
        await changeRepoTeam(db, ctx, request.params.team, add);
        return reply.code(204).send();
      },
    });
  }
}

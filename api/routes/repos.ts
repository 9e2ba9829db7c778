// Repositories: create (for the caller, an organization, or by an admin for a user), get, edit,
// delete, and get by id (routers/api/v1/repo/repo.go).
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { assertMayCreateRepository } from '../../core/account-limits.js';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import { repoAccessMode } from '../../core/permissions.js';
import { createRepository, deleteRepository, editRepository, type RepoEdit } from '../../core/repositories.js';
import { reposStore } from '../../db/repos.js';
import { usersStore, USER_TYPE, type UserRow } from '../../db/users.js';
import { loadApiRepo } from '../serializers/repo.js';
import { ApiError, CreateRepoOption, EditRepoOption, OwnerRepoParams, Repository } from '../schemas/repo.js';
import { publicOnly, repoForChange, repoFromRequest } from '../repo-request.js';

type CreateBody = {
  name: string; description?: string; private?: boolean; auto_init?: boolean; template?: boolean; default_branch?: string;
  readme?: string; gitignores?: string; license?: string; issue_labels?: string;
};

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 422: ApiError, 423: ApiError };

/** Gitea's CanCreateOrgRepo: an owner of the organization, or on a team allowed to create. */
async function canCreateInOrg(request: FastifyRequest, org: UserRow, doer: UserRow): Promise<boolean> {
  if (doer.is_admin) return true;
  const row = await request.server.services.db('teams as t').join('team_members as m', 'm.team_id', 't.id')
    .where({ 't.org_id': org.id, 'm.user_id': doer.id })
    .andWhere((q) => q.where('t.permission', 'owner').orWhere('t.can_create_org_repo', true))
    .first('t.id');
  return Boolean(row);
}

export async function repoRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const deps = { db, config };

  async function create(request: FastifyRequest, owner: UserRow, doer: UserRow, body: CreateBody) {
    await assertMayCreateRepository(db, doer, owner);
    const repo = await createRepository(deps, {
      owner, doer, name: body.name, description: body.description, private: body.private,
      autoInit: body.auto_init, template: body.template, defaultBranch: body.default_branch,
      readme: body.readme, gitignores: body.gitignores, license: body.license, issueLabels: body.issue_labels,
    });
    return loadApiRepo(deps, repo, doer, config.APP_URL, { owner });
  }

  app.post<{ Body: CreateBody }>('/api/v1/user/repos', {
    schema: { operationId: 'createCurrentUserRepo', tags: ['repository', 'user'], summary: 'Create a repository', body: CreateRepoOption, response: { 201: Repository, ...errors } },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    reply.code(201);
    return create(request, doer, doer, request.body);
  });

  for (const prefix of ['orgs', 'org']) {
    app.post<{ Params: { org: string }; Body: CreateBody }>(`/api/v1/${prefix}/:org/repos`, {
      schema: {
        operationId: prefix === 'org' ? 'createOrgRepoDeprecated' : 'createOrgRepo',
        tags: ['organization'], summary: 'Create a repository in an organization', deprecated: prefix === 'org' ? true : undefined,
        params: Type.Object({ org: Type.String() }), body: CreateRepoOption, response: { 201: Repository, ...errors },
      },
      config: { scope: ['organization', 'repository'] },
    }, async (request, reply) => {
      const doer = requireSignedIn(request);
      const org = await usersStore(db).byName(request.params.org);
      if (!org || org.type !== USER_TYPE.organization) throw new NotFoundError();
      if (!(await canCreateInOrg(request, org, doer))) throw new ForbiddenError('Given user is not allowed to create repository in organization.');
      reply.code(201);
      return create(request, org, doer, request.body);
    });
  }

  app.post<{ Params: { username: string }; Body: CreateBody }>('/api/v1/admin/users/:username/repos', {
    schema: {
      operationId: 'adminCreateRepo',
      tags: ['admin'], summary: 'Create a repository on behalf of a user',
      params: Type.Object({ username: Type.String() }), body: CreateRepoOption, response: { 201: Repository, ...errors },
    },
    config: { scope: 'admin' },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    if (!doer.is_admin) throw new ForbiddenError('reqSiteAdmin');
    const owner = await usersStore(db).byName(request.params.username);
    if (!owner) throw new NotFoundError();
    reply.code(201);
    return create(request, owner, doer, request.body);
  });

  app.get<{ Params: { owner: string; repo: string } }>('/api/v1/repos/:owner/:repo', {
    schema: { operationId: 'repoGet', tags: ['repository'], summary: 'Get a repository', params: OwnerRepoParams, response: { 200: Repository, ...errors } },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoFromRequest(request, request.params);
    return loadApiRepo(deps, ctx.repo, request.doer ?? null, config.APP_URL, ctx);
  });

  app.patch<{ Params: { owner: string; repo: string }; Body: RepoEdit }>('/api/v1/repos/:owner/:repo', {
    schema: {
      operationId: 'repoEdit',
      tags: ['repository'], summary: "Edit a repository's properties. Only fields that are set will be changed.",
      params: OwnerRepoParams, body: EditRepoOption, response: { 200: Repository, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    // Not guarded by the archive check: an archived repository must be able to be un-archived.
    const ctx = await repoForChange(request, request.params, 'admin', { allowArchived: true });
    const repo = await editRepository(deps, ctx.repo, ctx.owner, request.body);
    return loadApiRepo(deps, repo, ctx.doer, config.APP_URL, { owner: ctx.owner, mode: ctx.mode });
  });

  app.delete<{ Params: { owner: string; repo: string } }>('/api/v1/repos/:owner/:repo', {
    schema: { operationId: 'repoDelete', tags: ['repository'], summary: 'Delete a repository', params: OwnerRepoParams, response: { 204: Type.Null(), ...errors } },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'owner', { allowArchived: true, message: 'Given user is not owner of organization.' });
    await deleteRepository(deps, ctx.repo, ctx.owner);
    reply.code(204);
  });

  app.get<{ Params: { id: number } }>('/api/v1/repositories/:id', {
    schema: {
      operationId: 'repoGetByID',
      tags: ['repository'], summary: 'Get a repository by id',
      params: Type.Object({ id: Type.Integer() }), response: { 200: Repository, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const repo = await reposStore(db).byId(request.params.id);
    const owner = repo ? await usersStore(db).byId(repo.owner_id) : undefined;
    if (!repo || !owner) throw new NotFoundError();
    const viewer = request.doer ?? null;
    const mode = await repoAccessMode(db, repo, owner, viewer);
    if (mode === 'none') throw new NotFoundError();
    if (publicOnly(request) && repo.is_private) throw new ForbiddenError('token scope is limited to public repos');
    return loadApiRepo(deps, repo, viewer, config.APP_URL, { owner, mode });
  });
}

// Forks of a repository: create one (202, as Gitea answers) and list those the caller can see.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { forkRepositoryFor } from '../../core/forks.js';
import { repoAccessMode } from '../../core/permissions.js';
import { reposStore } from '../../db/repos.js';
import { usersStore } from '../../db/users.js';
import { readPaging, PagingQuery, setPagingHeaders } from '../paging.js';
import { repoFromRequest, doerOf } from '../repo-request.js';
import { ApiError, CreateForkOption, OwnerRepoParams, Repository } from '../schemas/repo.js';
import { loadApiRepo } from '../serializers/repo.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 422: ApiError };
type Params = { owner: string; repo: string };

export async function forkRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const deps = { db, config };

  app.post<{ Params: Params; Body: { organization?: string | null; name?: string | null } | undefined }>('/api/v1/repos/:owner/:repo/forks', {
    schema: {
      operationId: 'createFork',
      tags: ['repository'], summary: 'Fork a repository', params: OwnerRepoParams, body: Type.Optional(CreateForkOption),
      response: { 202: Repository, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const base = await repoFromRequest(request, request.params);
    const doer = requireSignedIn(request);
    const { repo, owner } = await forkRepositoryFor(deps, base, { doer, organization: request.body?.organization, name: request.body?.name });
    reply.code(202);
    return loadApiRepo(deps, repo, doer, config.APP_URL, { owner });
  });

  app.get<{ Params: Params; Querystring: { page?: number; limit?: number } }>('/api/v1/repos/:owner/:repo/forks', {
    schema: {
      operationId: 'listForks',
      tags: ['repository'], summary: "List a repository's forks", params: OwnerRepoParams,
      querystring: Type.Object(PagingQuery), response: { 200: Type.Array(Repository), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const base = await repoFromRequest(request, request.params);
    const viewer = doerOf(request);
    const paging = readPaging(request.query, config);
    const owners = new Map<number, Awaited<ReturnType<ReturnType<typeof usersStore>['byId']>>>();
    const visible = [];
    for (const fork of await reposStore(db).forksOf(base.repo.id)) {
      if (!owners.has(fork.owner_id)) owners.set(fork.owner_id, await usersStore(db).byId(fork.owner_id));
      const owner = owners.get(fork.owner_id);
      if (!owner) continue;
      const mode = await repoAccessMode(db, fork, owner, viewer);
      if (mode !== 'none') visible.push({ fork, owner, mode });
    }
    setPagingHeaders(request, reply, visible.length, paging, config.APP_URL);
    const factsCache = new Map();
    return Promise.all(visible.slice(paging.offset, paging.offset + paging.limit)
      .map((v) => loadApiRepo(deps, v.fork, viewer, config.APP_URL, { owner: v.owner, mode: v.mode, factsCache })));
  });
}

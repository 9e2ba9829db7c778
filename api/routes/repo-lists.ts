// Lists of repositories (routers/api/v1/user/repo.go): the signed-in user's (owned and worked
// on), a user's and an organization's (owned), each holding only what the caller may see.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import { accountVisibleTo, assertPublicForToken, visibleOrganization } from '../../core/organizations.js';
import { listMyRepositories, listOwnedRepositories } from '../../core/repo-search.js';
import { usersStore } from '../../db/users.js';
import { PagingQuery, readPaging, setPagingHeaders } from '../paging.js';
import { requireSignedIn } from '../plugins/auth.js';
import { Repository } from '../schemas/repo.js';
import { ApiErrorBody, OrgParams, UsernameParams } from '../schemas/user.js';
import { loadApiRepoList } from '../serializers/repo.js';

const Paging = Type.Object(PagingQuery);
type PagingQs = { page?: number; limit?: number };
const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };

export async function repoListRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const deps = { db, config };
  const appUrl = config.APP_URL;

  app.get<{ Querystring: PagingQs }>('/api/v1/user/repos', {
    config: { scope: ['user', 'repository'] },
    schema: {
      operationId: 'userCurrentListRepos', tags: ['user'], summary: 'List the repos that the authenticated user owns',
      description: 'What the user owns and what they work on (as a collaborator, through a team, or as a member of the owning organization), by name.',
      querystring: Paging,
      response: { 200: Type.Array(Repository), ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const paging = readPaging(request.query, config);
    const { found, total } = await listMyRepositories(db, doer, Boolean(request.auth.publicOnly), paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return loadApiRepoList(deps, found, doer, appUrl);
  });

  app.get<{ Params: Static<typeof UsernameParams>; Querystring: PagingQs }>('/api/v1/users/:username/repos', {
    config: { scope: ['user', 'repository'] },
    schema: {
      operationId: 'userListRepos', tags: ['user'], summary: 'List the repos owned by the given user',
      description: 'Oldest first. Private repositories only for those who may see them; X-Total-Count counts what the caller gets (Gitea also counts the private ones it leaves out).',
      params: UsernameParams, querystring: Paging,
      response: { 200: Type.Array(Repository), ...errors },
    },
  }, async (request, reply) => {
    const owner = await usersStore(db).byName(request.params.username);
    if (!owner || !(await accountVisibleTo(db, owner, request.doer))) throw new NotFoundError();
    assertPublicForToken(owner, request.auth.publicOnly);
    const paging = readPaging(request.query, config);
    const { found, total } = await listOwnedRepositories(db, owner, request.doer, Boolean(request.auth.publicOnly), paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return loadApiRepoList(deps, found, request.doer, appUrl);
  });

  app.get<{ Params: Static<typeof OrgParams>; Querystring: PagingQs }>('/api/v1/orgs/:org/repos', {
    config: { scope: 'organization' },
    schema: {
      operationId: 'orgListRepos', tags: ['organization'], summary: "List an organization's repos",
      description: 'Oldest first; private repositories only for those who may see them. Hidden organizations answer 404.',
      params: OrgParams, querystring: Paging,
      response: { 200: Type.Array(Repository), ...errors },
    },
  }, async (request, reply) => {
    const org = await visibleOrganization(db, request.params.org, request.doer);
    assertPublicForToken(org, request.auth.publicOnly);
    const paging = readPaging(request.query, config);
    const { found, total } = await listOwnedRepositories(db, org, request.doer, Boolean(request.auth.publicOnly), paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return loadApiRepoList(deps, found, request.doer, appUrl);
  });
}

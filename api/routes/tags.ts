// A repository's tags: list, get, create (lightweight or annotated) and delete
// (routers/api/v1/repo/tag.go).
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import type { RepoContext } from '../../core/permissions.js';
import { repoDiskPath } from '../../core/repositories.js';
import { createRepoTag, deleteRepoTag, isValidTagName } from '../../core/tags.js';
import { findTag, listTags } from '../../git/index.js';
import { readPaging, PagingQuery, setTotalCount } from '../paging.js';
import { repoForChange, repoFromRequest } from '../repo-request.js';
import { CreateTagOption, Tag } from '../schemas/code.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { toApiTag } from '../serializers/tag.js';
import { repoLinks } from '../serializers/contents.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 422: ApiError, 423: ApiError };
const TagParams = Type.Object({ ...OwnerRepoParams.properties, '*': Type.String({ description: 'name of the tag', 'x-param-name': 'tag' }) });
type Params = { owner: string; repo: string };

export async function tagRoutes(app: FastifyInstance): Promise<void> {
  const { config, db } = app.services;
  const diskPath = (ctx: RepoContext) => repoDiskPath(config, ctx.owner.name, ctx.repo.name);
  const linksOf = (ctx: RepoContext) => repoLinks(config.APP_URL, ctx);

  app.get<{ Params: Params; Querystring: { page?: number; limit?: number } }>('/api/v1/repos/:owner/:repo/tags', {
    schema: {
      operationId: 'repoListTags', tags: ['repository'], summary: "List a repository's tags",
      params: OwnerRepoParams, querystring: Type.Object(PagingQuery), response: { 200: Type.Array(Tag), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoFromRequest(request, request.params);
    const paging = readPaging(request.query, config);
    const tags = ctx.repo.is_empty ? [] : await listTags(diskPath(ctx));
    setTotalCount(reply, tags.length);
    return tags.slice(paging.offset, paging.offset + paging.limit).map((t) => toApiTag(t, linksOf(ctx)));
  });

  app.get<{ Params: Params & { '*': string } }>('/api/v1/repos/:owner/:repo/tags/*', {
    schema: { operationId: 'repoGetTag', tags: ['repository'], summary: 'Get the tag of a repository by tag name', params: TagParams, response: { 200: Tag, ...errors } },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoFromRequest(request, request.params);
    const name = request.params['*'];
    const tag = !ctx.repo.is_empty && isValidTagName(name) ? await findTag(diskPath(ctx), name) : null;
    if (!tag) throw new NotFoundError(`tag doesn't exist: ${name}`);
    return toApiTag(tag, linksOf(ctx));
  });

  app.post<{ Params: Params; Body: Static<typeof CreateTagOption> }>('/api/v1/repos/:owner/:repo/tags', {
    schema: {
      operationId: 'repoCreateTag', tags: ['repository'], summary: 'Create a new git tag in a repository',
      params: OwnerRepoParams, body: CreateTagOption, response: { 201: Tag, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'write');
    const { tag_name: name, message, target } = request.body;
    const tag = await createRepoTag({ config, db }, ctx, ctx.doer, { name, message, target });
    reply.code(201);
    return toApiTag(tag, linksOf(ctx));
  });

  app.delete<{ Params: Params & { '*': string } }>('/api/v1/repos/:owner/:repo/tags/*', {
    schema: { operationId: 'repoDeleteTag', tags: ['repository'], summary: "Delete a repository's tag by name", params: TagParams, response: { 204: Type.Null(), ...errors } },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'write');
    await deleteRepoTag({ config, db }, ctx, ctx.doer, request.params['*']);
    reply.code(204);
  });
}

// Tag protection rules of a repository (routers/api/v1/repo/tag.go *TagProtection). Repository
// admins and site admins only; creating and editing need a repository that is not archived.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import {
  allowListNames, createTagProtection, deleteTagProtection, editTagProtection, findTagProtection, listTagProtections, type TagProtectionInput,
} from '../../core/tag-protection.js';
import { assertNotArchived, type RepoContext } from '../../core/permissions.js';
import type { ProtectedTagRow } from '../../db/protected-tags.js';
import { unixToIso } from '../../db/time.js';
import { repoForChange } from '../repo-request.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { CreateTagProtectionOption, EditTagProtectionOption, TagProtection } from '../schemas/tag-protection.js';

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };
const RuleParams = Type.Object({ ...OwnerRepoParams.properties, id: Type.Integer({ description: 'id of the tag protection' }) });
type Params = Static<typeof OwnerRepoParams>;
type RuleParamsT = Static<typeof RuleParams>;
const ADMIN_NEEDED = 'user should be an owner or a collaborator with admin write of a repository';

export async function tagProtectionRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.services;
  const adminOf = (request: FastifyRequest, params: Params) => repoForChange(request, params, 'admin', { allowArchived: true, message: ADMIN_NEEDED });

  async function toApi(ctx: RepoContext, rule: ProtectedTagRow) {
    const names = await allowListNames(db, ctx, rule);
    return {
      id: rule.id, name_pattern: rule.name_pattern, whitelist_usernames: names.users, whitelist_teams: names.teams,
      created_at: unixToIso(rule.created_unix)!, updated_at: unixToIso(rule.updated_unix)!,
    };
  }

  app.get<{ Params: Params }>('/api/v1/repos/:owner/:repo/tag_protections', {
    schema: {
      operationId: 'repoListTagProtection', tags: ['repository'], summary: 'List tag protections for a repository',
      params: OwnerRepoParams, response: { 200: Type.Array(TagProtection), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await adminOf(request, request.params);
    return Promise.all((await listTagProtections(db, ctx)).map((rule) => toApi(ctx, rule)));
  });

  app.post<{ Params: Params; Body: TagProtectionInput }>('/api/v1/repos/:owner/:repo/tag_protections', {
    schema: {
      operationId: 'repoCreateTagProtection', tags: ['repository'], summary: 'Create a tag protections for a repository',
      params: OwnerRepoParams, body: CreateTagProtectionOption, response: { 201: TagProtection, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await adminOf(request, request.params);
    assertNotArchived(ctx.repo);
    const rule = await createTagProtection(db, ctx, request.body ?? {});
    reply.code(201);
    return toApi(ctx, rule);
  });

  app.get<{ Params: RuleParamsT }>('/api/v1/repos/:owner/:repo/tag_protections/:id', {
    schema: {
      operationId: 'repoGetTagProtection', tags: ['repository'], summary: 'Get a specific tag protection for the repository',
      params: RuleParams, response: { 200: TagProtection, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await adminOf(request, request.params);
    return toApi(ctx, await findTagProtection(db, ctx, request.params.id));
  });

  app.patch<{ Params: RuleParamsT; Body: TagProtectionInput }>('/api/v1/repos/:owner/:repo/tag_protections/:id', {
    schema: {
      operationId: 'repoEditTagProtection', tags: ['repository'],
      summary: 'Edit a tag protections for a repository. Only fields that are set will be changed',
      params: RuleParams, body: EditTagProtectionOption, response: { 200: TagProtection, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await adminOf(request, request.params);
    assertNotArchived(ctx.repo);
    return toApi(ctx, await editTagProtection(db, ctx, request.params.id, request.body ?? {}));
  });

  app.delete<{ Params: RuleParamsT }>('/api/v1/repos/:owner/:repo/tag_protections/:id', {
    schema: {
      operationId: 'repoDeleteTagProtection', tags: ['repository'], summary: 'Delete a specific tag protection for the repository',
      params: RuleParams, response: { 204: Type.Null(), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await adminOf(request, request.params);
    await deleteTagProtection(db, ctx, request.params.id);
    reply.code(204);
  });
}

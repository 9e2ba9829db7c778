// Collaborators of a repository (routers/api/v1/repo/collaborators.go).
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { ForbiddenError, NotFoundError, UnprocessableError } from '../../core/errors.js';
import { atLeast, repoAccessMode } from '../../core/permissions.js';
import { isBlockedEitherWay } from '../../core/blocks.js';
import { nowUnix } from '../../db/time.js';
import { usersStore, USER_TYPE, type UserRow } from '../../db/users.js';
import { readPaging, PagingQuery, setPagingHeaders } from '../paging.js';
import { repoForChange, repoFromRequest } from '../repo-request.js';
import { AddCollaboratorOption, ApiError, RepoCollaboratorPermission, UserRef } from '../schemas/repo.js';
import { toApiUser } from '../serializers/user.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };
const CollaboratorParams = Type.Object({ owner: Type.String(), repo: Type.String(), collaborator: Type.String() });
type Params = { owner: string; repo: string; collaborator: string };

export async function collaboratorRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  /** Unknown users are a 422 on these endpoints, as in Gitea. */
  async function existingUser(name: string): Promise<UserRow> {
    const user = await usersStore(db).byName(name);
    if (!user || user.type !== USER_TYPE.user) throw new UnprocessableError(`user does not exist [name: ${name}]`);
    return user;
  }

  app.get<{ Params: { owner: string; repo: string }; Querystring: { page?: number; limit?: number } }>('/api/v1/repos/:owner/:repo/collaborators', {
    schema: {
      operationId: 'repoListCollaborators',
      tags: ['repository'], summary: "List a repository's collaborators",
      params: Type.Object({ owner: Type.String(), repo: Type.String() }), querystring: Type.Object(PagingQuery),
      response: { 200: Type.Array(UserRef), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoFromRequest(request, request.params);
    const viewer = requireSignedIn(request);
    const paging = readPaging(request.query, config);
    const total = Number((await db('collaborations').where({ repo_id: ctx.repo.id }).count({ n: '*' }).first())?.n ?? 0);
    const rows = await db('collaborations as c').join('users as u', 'u.id', 'c.user_id').where('c.repo_id', ctx.repo.id)
      .orderBy('u.lower_name').limit(paging.limit).offset(paging.offset).select('u.id');
    const users = await usersStore(db).byIds(rows.map((r: { id: unknown }) => Number(r.id)));
    setPagingHeaders(request, reply, total, paging, config.APP_URL);
    return rows.map((r: { id: unknown }) => toApiUser(users.get(Number(r.id))!, viewer, config.APP_URL));
  });

  app.get<{ Params: Params }>('/api/v1/repos/:owner/:repo/collaborators/:collaborator', {
    schema: {
      operationId: 'repoCheckCollaborator',
      tags: ['repository'], summary: 'Check if a user is a collaborator of a repository',
      params: CollaboratorParams, response: { 204: Type.Null(), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoFromRequest(request, request.params);
    requireSignedIn(request);
    const user = await existingUser(request.params.collaborator);
    const row = await db('collaborations').where({ repo_id: ctx.repo.id, user_id: user.id }).first('mode');
    if (!row) throw new NotFoundError();
    reply.code(204);
  });

  app.put<{ Params: Params; Body: { permission?: 'read' | 'write' | 'admin' } | undefined }>('/api/v1/repos/:owner/:repo/collaborators/:collaborator', {
    schema: {
      operationId: 'repoAddCollaborator',
      tags: ['repository'], summary: 'Add or Update a collaborator to a repository',
      params: CollaboratorParams, body: Type.Optional(AddCollaboratorOption), response: { 204: Type.Null(), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    // Settings, not content: Gitea allows them on archived repositories.
    const ctx = await repoForChange(request, request.params, 'admin', { allowArchived: true });
    const user = await existingUser(request.params.collaborator);
    if (user.id === ctx.owner.id) throw new UnprocessableError('user is the owner of the repository');
    if (!user.is_active) throw new UnprocessableError("collaborator's account is inactive");
    if (await isBlockedEitherWay(db, ctx.owner.id, user.id)) {
      throw new ForbiddenError('user is blocked');
    }
    const mode = request.body?.permission ?? 'write';
    const updated = await db('collaborations').where({ repo_id: ctx.repo.id, user_id: user.id }).update({ mode });
    if (!updated) await db('collaborations').insert({ repo_id: ctx.repo.id, user_id: user.id, mode, created_unix: nowUnix() });
    reply.code(204);
  });

  app.delete<{ Params: Params }>('/api/v1/repos/:owner/:repo/collaborators/:collaborator', {
    schema: {
      operationId: 'repoDeleteCollaborator',
      tags: ['repository'], summary: 'Delete a collaborator from a repository',
      params: CollaboratorParams, response: { 204: Type.Null(), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'admin', { allowArchived: true });
    const user = await existingUser(request.params.collaborator);
    await db('collaborations').where({ repo_id: ctx.repo.id, user_id: user.id }).delete();
    reply.code(204);
  });

  app.get<{ Params: Params }>('/api/v1/repos/:owner/:repo/collaborators/:collaborator/permission', {
    schema: {
      operationId: 'repoGetRepoPermissions',
      tags: ['repository'], summary: 'Get repository permissions for a user',
      params: CollaboratorParams, response: { 200: RepoCollaboratorPermission, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoFromRequest(request, request.params);
    const doer = requireSignedIn(request);
    const self = doer.lower_name === request.params.collaborator.toLowerCase();
    if (!doer.is_admin && !self && !atLeast(ctx.mode, 'admin')) {
      throw new ForbiddenError('Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own');
    }
    const user = await usersStore(db).byName(request.params.collaborator);
    if (!user) throw new NotFoundError(`user does not exist [uid: 0, name: ${request.params.collaborator}]`);
    const mode = await repoAccessMode(db, ctx.repo, ctx.owner, user);
    return { permission: mode, role_name: mode, user: toApiUser(user, doer, config.APP_URL) };
  });
}

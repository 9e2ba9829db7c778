// Milestones of a repository (Gitea's routers/api/v1/repo/milestone.go); `{id}` is an id or a name.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { assertNotArchived, requireMode } from '../../core/permissions.js';
import { createMilestone, deleteMilestone, editMilestone, findMilestone } from '../../core/milestones.js';
import { milestonesStore, type MilestoneFilter } from '../../db/milestones.js';
import { readPaging, setPagingHeaders, PagingQuery } from '../paging.js';
import { toApiMilestone } from '../serializers/milestone.js';
import { ApiError, CreateMilestoneOption, EditMilestoneOption, Milestone, OwnerRepoParams } from '../schemas/issue.js';
import { repoForRequest } from './issues-common.js';

const MilestoneParams = Type.Object({ ...OwnerRepoParams.properties, id: Type.String({ minLength: 1, maxLength: 255, description: 'the milestone to get, identified by ID and if not available by name' }) });
const ListQuery = Type.Object({
  state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')], { description: 'open (default), closed or all' })),
  name: Type.Optional(Type.String({ maxLength: 255, description: 'filter by milestone name' })),
  ...PagingQuery,
});
const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };

export async function milestoneRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  app.get<{ Params: Static<typeof OwnerRepoParams>; Querystring: Static<typeof ListQuery> }>('/api/v1/repos/:owner/:repo/milestones', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueGetMilestonesList', tags: ['issue'], summary: "Get all of a repository's milestones", params: OwnerRepoParams, querystring: ListQuery, response: { 200: Type.Array(Milestone), ...errors } },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const state = request.query.state ?? 'open';
    const filter: MilestoneFilter = { repoId: ctx.repo.id, name: request.query.name };
    if (state !== 'all') filter.isClosed = state === 'closed';
    const paging = readPaging(request.query, config);
    const [rows, total] = await Promise.all([milestonesStore(db).list(filter, paging), milestonesStore(db).count(filter)]);
    setPagingHeaders(request, reply, total, paging, config.APP_URL);
    return rows.map(toApiMilestone);
  });

  app.post<{ Params: Static<typeof OwnerRepoParams>; Body: Static<typeof CreateMilestoneOption> }>('/api/v1/repos/:owner/:repo/milestones', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueCreateMilestone', tags: ['issue'], summary: 'Create a milestone', params: OwnerRepoParams, body: CreateMilestoneOption, response: { 201: Milestone, ...errors } },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    requireSignedIn(request);
    requireMode(ctx, 'write');
    assertNotArchived(ctx.repo);
    reply.code(201);
    return toApiMilestone(await createMilestone(db, ctx.repo.id, request.body));
  });

  app.get<{ Params: Static<typeof MilestoneParams> }>('/api/v1/repos/:owner/:repo/milestones/:id', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueGetMilestone', tags: ['issue'], summary: 'Get a milestone', params: MilestoneParams, response: { 200: Milestone, ...errors } },
  }, async (request) => {
    const ctx = await repoForRequest(db, request, request.params);
    return toApiMilestone(await findMilestone(db, ctx.repo.id, request.params.id));
  });

  app.patch<{ Params: Static<typeof MilestoneParams>; Body: Static<typeof EditMilestoneOption> }>('/api/v1/repos/:owner/:repo/milestones/:id', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueEditMilestone', tags: ['issue'], summary: 'Update a milestone', params: MilestoneParams, body: EditMilestoneOption, response: { 200: Milestone, ...errors } },
  }, async (request) => {
    const ctx = await repoForRequest(db, request, request.params);
    requireSignedIn(request);
    requireMode(ctx, 'write');
    assertNotArchived(ctx.repo);
    return toApiMilestone(await editMilestone(db, ctx.repo.id, request.params.id, request.body));
  });

  app.delete<{ Params: Static<typeof MilestoneParams> }>('/api/v1/repos/:owner/:repo/milestones/:id', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueDeleteMilestone', tags: ['issue'], summary: 'Delete a milestone', params: MilestoneParams, response: { 204: Type.Null(), ...errors } },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    requireSignedIn(request);
    requireMode(ctx, 'write');
    assertNotArchived(ctx.repo);
    await deleteMilestone(db, ctx.repo.id, request.params.id);
    reply.code(204).send();
  });
}

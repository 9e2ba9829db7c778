// Who may review and who may be assigned in a repository (routers/api/v1/repo/collaborators.go
// GetReviewers and GetAssignees). Both need a signed-in reader; reviewers also someone who may
// choose reviewers (core/repo-people.ts).
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { ForbiddenError } from '../../core/errors.js';
import { mayChooseReviewers, repoAssignees, repoReviewers } from '../../core/repo-people.js';
import { requireSignedIn } from '../plugins/auth.js';
import { repoFromRequest } from '../repo-request.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { User } from '../schemas/user.js';
import { toApiUser } from '../serializers/user.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError };
type Params = Static<typeof OwnerRepoParams>;

export async function repoPeopleRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  app.get<{ Params: Params }>('/api/v1/repos/:owner/:repo/reviewers', {
    schema: {
      operationId: 'repoGetReviewers', tags: ['repository'], summary: 'Return all users that can be requested to review in this repo',
      description: 'Readers, writers and admins by name, then the owner of a user repository. Asking needs the right to choose reviewers (owner, collaborator or member of a team of the repository; not site admins as such).',
      params: OwnerRepoParams, response: { 200: Type.Array(User), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoFromRequest(request, request.params);
    const doer = requireSignedIn(request);
    if (!(await mayChooseReviewers(db, ctx, doer))) throw new ForbiddenError('doer has no permission to get reviewers');
    return (await repoReviewers(db, ctx)).map((u) => toApiUser(u, doer, config.APP_URL));
  });

  app.get<{ Params: Params }>('/api/v1/repos/:owner/:repo/assignees', {
    schema: {
      operationId: 'repoGetAssignees', tags: ['repository'], summary: 'Return all users that have write access and can be assigned to issues',
      description: 'Writers and admins (and, in an organization, members of its teams that reach the repository) by name, then the owner of a user repository.',
      params: OwnerRepoParams, response: { 200: Type.Array(User), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoFromRequest(request, request.params);
    const doer = requireSignedIn(request);
    return (await repoAssignees(db, ctx)).map((u) => toApiUser(u, doer, config.APP_URL));
  });
}

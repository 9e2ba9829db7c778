// Deleting an issue or pull request (routers/api/v1/repo/issue.go DeleteIssue): repository admins
// and site admins, token scope write:issue. A pull request is deleted by its workflow, so the
// deletion waits for any merge in progress and no merge or auto-merge can follow it.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { deleteIssue } from '../../core/issue-delete.js';
import { loadIssue } from '../../core/issues.js';
import { requireMode } from '../../core/permissions.js';
import { deleteUpdate } from '../../workflows/pull-messages.js';
import { idempotencyKey, runPullOperation, sendOutcome } from '../pull-operations.js';
import { requireSignedIn } from '../plugins/auth.js';
import { ApiError, IssueParams } from '../schemas/issue.js';
import { repoForRequest } from './issues-common.js';

const ADMIN_NEEDED = 'user should be an owner or a collaborator with admin write of a repository';

export async function issueDeleteRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  app.delete<{ Params: Static<typeof IssueParams> }>('/api/v1/repos/:owner/:repo/issues/:index', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueDelete', tags: ['issue'], summary: 'Delete an issue',
      description: 'Also deletes a pull request: its comments, reviews and head ref go with it, and any scheduled auto-merge is dropped.',
      params: IssueParams, response: { 204: Type.Null(), 401: ApiError, 403: ApiError, 404: ApiError, 503: ApiError },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const doer = requireSignedIn(request);
    requireMode(ctx, 'admin', ADMIN_NEEDED);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    if (!issue.is_pull) {
      await deleteIssue(db, issue);
      return reply.code(204).send();
    }
    const key = { repoId: ctx.repo.id, index: issue.index };
    const outcome = await runPullOperation(app.services, key, deleteUpdate, { doerId: doer.id }, idempotencyKey(request, 'delete', key));
    return sendOutcome(reply, outcome, config.APP_URL);
  });
}

// Review requests and code comment conversations (Gitea's routers/api/v1/repo/pull_review.go
// CreateReviewRequests, DeleteReviewRequests, ResolvePullReviewComment, UnresolvePullReviewComment).
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { loadRepoComment } from '../../core/comments.js';
import { markConversation } from '../../core/review-comments.js';
import { changeReviewRequests, resolveReviewers } from '../../core/review-requests.js';
import { assertNotArchived } from '../../core/permissions.js';
import { reviewsStore } from '../../db/reviews.js';
import { renderReviews } from '../serializers/review.js';
import { ApiError, IssueParams, OwnerRepoParams } from '../schemas/issue.js';
import { PullReview, PullReviewRequestOptions } from '../schemas/review.js';
import { pullRepoFromRequest } from './pulls.js';
import { pullTarget } from './reviews.js';

const CommentParams = Type.Object({ ...OwnerRepoParams.properties, id: Type.Integer({ description: 'id of the review comment' }) });
const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };

export async function reviewRequestRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  async function change(request: FastifyRequest<{ Params: Static<typeof IssueParams>; Body: Static<typeof PullReviewRequestOptions> }>, add: boolean) {
    const doer = requireSignedIn(request);
    const t = await pullTarget(request, request.params);
    const who = await resolveReviewers(db, t.ctx, request.body ?? {});
    const ids = await changeReviewRequests(db, t.ctx, t.pull, doer, who, add);
    return { t, doer, ids };
  }

  app.post<{ Params: Static<typeof IssueParams>; Body: Static<typeof PullReviewRequestOptions> }>('/api/v1/repos/:owner/:repo/pulls/:index/requested_reviewers', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoCreatePullReviewRequests', tags: ['repository'], summary: 'create review requests for a pull request', params: IssueParams, body: PullReviewRequestOptions,
      description: 'Answers 201 with the requests made (a reviewer already asked is not asked again). `team_reviewers` count only in an organization\'s repository.',
      response: { 201: Type.Array(PullReview), ...errors },
    },
  }, async (request, reply) => {
    const { t, doer, ids } = await change(request, true);
    const rows = await reviewsStore(db).byIds(ids);
    reply.code(201);
    return renderReviews({ db, viewer: doer, appUrl: config.APP_URL }, `${t.ctx.owner.name}/${t.ctx.repo.name}`, t.pull.issue, rows.sort((a, b) => a.id - b.id));
  });

  app.delete<{ Params: Static<typeof IssueParams>; Body: Static<typeof PullReviewRequestOptions> }>('/api/v1/repos/:owner/:repo/pulls/:index/requested_reviewers', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoDeletePullReviewRequests', tags: ['repository'], summary: 'cancel review requests for a pull request', params: IssueParams, body: PullReviewRequestOptions,
      response: { 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => {
    await change(request, false);
    reply.code(204).send();
  });

  for (const [suffix, resolve, operationId, summary] of [
    ['resolve', true, 'repoResolvePullReviewComment', 'Resolve a pull request review comment'],
    ['unresolve', false, 'repoUnresolvePullReviewComment', 'Unresolve a pull request review comment'],
  ] as const) {
    app.post<{ Params: Static<typeof CommentParams> }>(`/api/v1/repos/:owner/:repo/pulls/comments/:id/${suffix}`, {
      config: { scope: 'repository' },
      schema: {
        operationId, tags: ['repository'], summary, params: CommentParams,
        description: 'The pull request\'s poster, writers and official reviewers may; a comment that is not a code comment is 400.',
        response: { 204: Type.Null(), ...errors },
      },
    }, async (request, reply) => {
      const ctx = await pullRepoFromRequest(request, request.params);
      const doer = requireSignedIn(request);
      assertNotArchived(ctx.repo);
      const { comment, issue } = await loadRepoComment(db, ctx.repo.id, request.params.id);
      await markConversation(db, ctx, issue, comment, doer, resolve);
      reply.code(204).send();
    });
  }
}

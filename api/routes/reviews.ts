// Pull request reviews (Gitea's routers/api/v1/repo/pull_review.go): enough for required approvals.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import { assertNotArchived } from '../../core/permissions.js';
import { loadIssue } from '../../core/issues.js';
import { submitReview } from '../../core/reviews.js';
import { reviewsStore } from '../../db/reviews.js';
import { reviewsChangedSignal } from '../../workflows/pull-messages.js';
import { readPaging, setPagingHeaders, PagingQuery } from '../paging.js';
import { renderReviews } from '../serializers/issue.js';
import { ApiError, CreatePullReviewOptions, IssueParams, PullReview } from '../schemas/issue.js';
import { repoForRequest } from './issues-common.js';

const Paging = Type.Object(PagingQuery);
const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };

export async function reviewRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  app.get<{ Params: Static<typeof IssueParams>; Querystring: Static<typeof Paging> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews', {
    config: { scope: 'repository' },
    schema: { operationId: 'repoListPullReviews', tags: ['repository'], summary: 'List all reviews for a pull request', params: IssueParams, querystring: Paging, response: { 200: Type.Array(PullReview), ...errors } },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    if (!issue.is_pull) throw new NotFoundError('pull request does not exist');
    const paging = readPaging(request.query, config);
    const [rows, total] = await Promise.all([reviewsStore(db).list(issue.id, paging), reviewsStore(db).count(issue.id)]);
    setPagingHeaders(request, reply, total, paging, config.APP_URL);
    return renderReviews({ db, viewer: request.doer ?? null, appUrl: config.APP_URL }, `${ctx.owner.name}/${ctx.repo.name}`, issue, rows);
  });

  app.post<{ Params: Static<typeof IssueParams>; Body: Static<typeof CreatePullReviewOptions> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoCreatePullReview',
      tags: ['repository'], summary: 'Create a review to an pull request', params: IssueParams, body: CreatePullReviewOptions,
      description: 'Events APPROVED, REQUEST_CHANGES, COMMENT (PENDING when empty). A verdict is official when the reviewer may write to the repository. Answers 200 as Gitea does.',
      response: { 200: PullReview, ...errors },
    },
  }, async (request) => {
    const ctx = await repoForRequest(db, request, request.params);
    const doer = requireSignedIn(request);
    assertNotArchived(ctx.repo);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    const review = await submitReview(db, ctx, issue, doer, request.body);
    if (review.type !== 'PENDING') {
      try {
        await app.services.pullWorkflows?.signal({ repoId: ctx.repo.id, index: issue.index }, reviewsChangedSignal, []);
      } catch (err) {
        request.log.warn({ err, repoId: ctx.repo.id, index: issue.index }, 'could not signal reviewsChanged');
      }
    }
    return (await renderReviews({ db, viewer: doer, appUrl: config.APP_URL }, `${ctx.owner.name}/${ctx.repo.name}`, issue, [review]))[0];
  });
}

// Pull request reviews (Gitea's routers/api/v1/repo/pull_review.go): list, create (with code
// comments), get, submit a pending one, delete, dismiss and restore, and the code comments of one.
// Review requests and conversation resolution live in review-requests.ts.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { loadIssue } from '../../core/issues.js';
import { assertNotArchived, type RepoContext } from '../../core/permissions.js';
import { repoDiskPath } from '../../core/repositories.js';
import {
  assertRepoAdmin, createReview, deleteReview, dismissReview, loadReview, loadReviewPull, submitPendingReview, type ReviewPull,
} from '../../core/reviews.js';
import { codeCommentsOf } from '../../core/review-comments.js';
import { reviewsStore, type ReviewRow } from '../../db/reviews.js';
import type { UserRow } from '../../db/users.js';
import { reviewsChangedSignal } from '../../workflows/pull-messages.js';
import { readPaging, setTotalCount, PagingQuery } from '../paging.js';
import { renderReviewComments, renderReviews } from '../serializers/review.js';
import { ApiError, IssueParams } from '../schemas/issue.js';
import { CreatePullReviewOptions, DismissPullReviewOptions, PullReview, PullReviewComment, SubmitPullReviewOptions } from '../schemas/review.js';
import { pullRepoFromRequest } from './pulls.js';

const Paging = Type.Object(PagingQuery);
export const ReviewParams = Type.Object({ ...IssueParams.properties, id: Type.Integer({ description: 'id of the review' }) });
const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };

export interface PullTarget {
  ctx: RepoContext;
  pull: ReviewPull;
}

/** The pull request of a review route: 404 when unseen, when pull requests are off, or for a plain issue. */
export async function pullTarget(request: FastifyRequest, params: Static<typeof IssueParams>): Promise<PullTarget> {
  const { db, config } = request.server.services;
  const ctx = await pullRepoFromRequest(request, params);
  const issue = await loadIssue(db, ctx.repo.id, params.index);
  return { ctx, pull: await loadReviewPull(db, repoDiskPath(config, ctx.owner.name, ctx.repo.name), issue) };
}

export async function reviewRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const fullName = (ctx: RepoContext) => `${ctx.owner.name}/${ctx.repo.name}`;
  const rc = (viewer: UserRow | null) => ({ db, viewer, appUrl: config.APP_URL });

  /** Verdicts count towards required approvals: the pull request's workflow re-evaluates a scheduled merge. */
  async function reviewsChanged(request: FastifyRequest, t: PullTarget): Promise<void> {
    try {
      await app.services.pullWorkflows?.signal({ repoId: t.ctx.repo.id, index: t.pull.issue.index }, reviewsChangedSignal, []);
    } catch (err) {
      request.log.warn({ err, repoId: t.ctx.repo.id, index: t.pull.issue.index }, 'could not signal reviewsChanged');
    }
  }

  async function one(t: PullTarget, review: ReviewRow, viewer: UserRow | null) {
    return (await renderReviews(rc(viewer), fullName(t.ctx), t.pull.issue, [review]))[0];
  }

  async function reviewTarget(request: FastifyRequest, params: Static<typeof ReviewParams>) {
    const t = await pullTarget(request, params);
    return { t, review: await loadReview(db, t.pull, params.id, request.doer ?? null) };
  }

  app.get<{ Params: Static<typeof IssueParams>; Querystring: Static<typeof Paging> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoListPullReviews', tags: ['repository'], summary: 'List all reviews for a pull request', params: IssueParams, querystring: Paging,
      description: "Another reviewer's pending review is left out of the page (site admins see it) but counted in X-Total-Count, as Gitea counts it.",
      response: { 200: Type.Array(PullReview), ...errors },
    },
  }, async (request, reply) => {
    const t = await pullTarget(request, request.params);
    const viewer = request.doer ?? null;
    const paging = readPaging(request.query, config);
    const store = reviewsStore(db);
    const [rows, total] = await Promise.all([store.list(t.pull.issue.id, paging), store.count(t.pull.issue.id)]);
    const visible = rows.filter((r) => r.type !== 'PENDING' || (viewer && (viewer.is_admin || viewer.id === r.reviewer_id)));
    setTotalCount(reply, total);
    return renderReviews(rc(viewer), fullName(t.ctx), t.pull.issue, visible);
  });

  app.post<{ Params: Static<typeof IssueParams>; Body: Static<typeof CreatePullReviewOptions> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoCreatePullReview', tags: ['repository'], summary: 'Create a review to an pull request', params: IssueParams, body: CreatePullReviewOptions,
      description: 'Events APPROVED, REQUEST_CHANGES, COMMENT; anything else is a pending review, which needs a body. `comments` are code comments on lines of the diff (`new_position` or `old_position`). A reviewer has at most one pending review: posting another returns it. A verdict is official when the reviewer may write to the repository (or is on the approvals whitelist of the base branch). Answers 200 as Gitea does.',
      response: { 200: PullReview, ...errors },
    },
  }, async (request) => {
    const t = await pullTarget(request, request.params);
    const doer = requireSignedIn(request);
    assertNotArchived(t.ctx.repo);
    const review = await createReview(db, repoDiskPath(config, t.ctx.owner.name, t.ctx.repo.name), t.ctx, t.pull, doer, request.body ?? {});
    if (review.type !== 'PENDING') await reviewsChanged(request, t);
    return one(t, review, doer);
  });

  app.get<{ Params: Static<typeof ReviewParams> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews/:id', {
    config: { scope: 'repository' },
    schema: { operationId: 'repoGetPullReview', tags: ['repository'], summary: 'Get a specific review for a pull request', params: ReviewParams, response: { 200: PullReview, ...errors } },
  }, async (request) => {
    const { t, review } = await reviewTarget(request, request.params);
    return one(t, review, request.doer ?? null);
  });

  app.post<{ Params: Static<typeof ReviewParams>; Body: Static<typeof SubmitPullReviewOptions> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews/:id', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoSubmitPullReview', tags: ['repository'], summary: 'Submit a pending review to an pull request', params: ReviewParams, body: SubmitPullReviewOptions,
      description: 'Only a pending review can be submitted (422 otherwise), and not as pending again; it is submitted against the current head.',
      response: { 200: PullReview, ...errors },
    },
  }, async (request) => {
    const doer = requireSignedIn(request);
    const { t, review } = await reviewTarget(request, request.params);
    const submitted = await submitPendingReview(db, t.ctx, t.pull, review, doer, request.body ?? {});
    await reviewsChanged(request, t);
    return one(t, submitted, doer);
  });

  app.delete<{ Params: Static<typeof ReviewParams> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews/:id', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoDeletePullReview', tags: ['repository'], summary: 'Delete a specific review from a pull request', params: ReviewParams,
      description: 'The reviewer or a site admin; the review goes with its code comments and timeline rows.',
      response: { 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const { t, review } = await reviewTarget(request, request.params);
    await deleteReview(db, review, doer);
    await reviewsChanged(request, t);
    reply.code(204).send();
  });

  app.get<{ Params: Static<typeof ReviewParams> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews/:id/comments', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoGetPullReviewComments', tags: ['repository'], summary: 'Get a specific review for a pull request', params: ReviewParams,
      response: { 200: Type.Array(PullReviewComment), ...errors },
    },
  }, async (request) => {
    const { t, review } = await reviewTarget(request, request.params);
    return renderReviewComments(rc(request.doer ?? null), fullName(t.ctx), t.pull.issue, await codeCommentsOf(db, review.id));
  });

  async function dismissal(request: FastifyRequest, params: Static<typeof ReviewParams>, dismiss: boolean, body: Static<typeof DismissPullReviewOptions>) {
    const doer = requireSignedIn(request);
    const t = await pullTarget(request, params);
    assertRepoAdmin(t.ctx);
    const review = await loadReview(db, t.pull, params.id, doer);
    const changed = await dismissReview(db, t.ctx, t.pull, review, doer, dismiss, body);
    await reviewsChanged(request, t);
    return one(t, changed, doer);
  }

  app.post<{ Params: Static<typeof ReviewParams>; Body: Static<typeof DismissPullReviewOptions> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews/:id/dismissals', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoDismissPullReview', tags: ['repository'], summary: 'Dismiss a review for a pull request', params: ReviewParams, body: DismissPullReviewOptions,
      description: 'Repository admins only; approvals and change requests only; `priors` dismisses the reviewer\'s other verdicts too.',
      response: { 200: PullReview, ...errors },
    },
  }, async (request) => dismissal(request, request.params, true, request.body ?? {}));

  app.post<{ Params: Static<typeof ReviewParams> }>('/api/v1/repos/:owner/:repo/pulls/:index/reviews/:id/undismissals', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoUnDismissPullReview', tags: ['repository'], summary: 'Cancel to dismiss a review for a pull request', params: ReviewParams,
      response: { 200: PullReview, ...errors },
    },
  }, async (request) => dismissal(request, request.params, false, {}));
}

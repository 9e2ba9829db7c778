// Issue comments (Gitea's routers/api/v1/repo/issue_comment.go): what people wrote. Events (merge,
// close, branch deletion, labels, reviews...) are comment rows too, but only the timeline lists them.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { assertNotArchived, type RepoContext } from '../../core/permissions.js';
import { loadIssue } from '../../core/issues.js';
import { deleteComment, editComment, loadRepoComment, postComment } from '../../core/comments.js';
import { BadRequestError, ForbiddenError } from '../../core/errors.js';
import { commentsStore } from '../../db/comments.js';
import { issuesStore } from '../../db/issues.js';
import { readPaging, setTotalCount, PagingQuery } from '../paging.js';
import { renderComments, renderRepoComments } from '../serializers/issue.js';
import { ApiError, Comment, CommentRangeQuery, CreateIssueCommentOption, EditIssueCommentOption, IssueParams, OwnerRepoParams } from '../schemas/issue.js';
import { commentRangeOf, repoForRequest } from './issues-common.js';

const ListQuery = Type.Object(CommentRangeQuery);
const RepoListQuery = Type.Object({ ...CommentRangeQuery, ...PagingQuery });
const CommentParams = Type.Object({ ...OwnerRepoParams.properties, id: Type.Integer({ description: 'id of the comment' }) });
const DeprecatedCommentParams = Type.Object({ ...IssueParams.properties, id: Type.Integer({ description: 'id of the comment' }) });
const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };

export async function commentRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const rc = (request: FastifyRequest) => ({ db, viewer: request.doer ?? null, appUrl: config.APP_URL });
  const fullName = (ctx: RepoContext) => `${ctx.owner.name}/${ctx.repo.name}`;

  app.get<{ Params: Static<typeof IssueParams>; Querystring: Static<typeof ListQuery> }>('/api/v1/repos/:owner/:repo/issues/:index/comments', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueGetComments', tags: ['issue'], summary: 'List all comments on an issue', params: IssueParams, querystring: ListQuery, response: { 200: Type.Array(Comment), ...errors } },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    const rows = await issuesStore(db).comments(issue.id, commentRangeOf(request.query));
    setTotalCount(reply, rows.length);
    return renderComments(rc(request), fullName(ctx), issue, rows);
  });

  app.post<{ Params: Static<typeof IssueParams>; Body: Static<typeof CreateIssueCommentOption> }>('/api/v1/repos/:owner/:repo/issues/:index/comments', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueCreateComment', tags: ['issue'], summary: 'Add a comment to an issue', params: IssueParams, body: CreateIssueCommentOption, response: { 201: Comment, ...errors } },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const doer = requireSignedIn(request);
    assertNotArchived(ctx.repo);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    const comment = await postComment(db, ctx, issue, doer, request.body.body);
    reply.code(201);
    return (await renderComments(rc(request), fullName(ctx), issue, [comment]))[0];
  });

  app.get<{ Params: Static<typeof OwnerRepoParams>; Querystring: Static<typeof RepoListQuery> }>('/api/v1/repos/:owner/:repo/issues/comments', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueGetRepoComments', tags: ['issue'], summary: 'List all comments in a repository', params: OwnerRepoParams, querystring: RepoListQuery,
      response: { 200: Type.Array(Comment), ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const filter = { repoId: ctx.repo.id, type: 'comment', ...commentRangeOf(request.query) };
    const paging = readPaging(request.query, config);
    const store = commentsStore(db);
    const [rows, total] = await Promise.all([store.listInRepo(filter, paging), store.countInRepo(filter)]);
    setTotalCount(reply, total);
    return renderRepoComments(rc(request), fullName(ctx), rows);
  });

  app.get<{ Params: Static<typeof CommentParams> }>('/api/v1/repos/:owner/:repo/issues/comments/:id', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueGetComment', tags: ['issue'], summary: 'Get a comment', params: CommentParams,
      description: 'An event row (a close, a label change...) answers 204 with no body, as Gitea answers.',
      response: { 200: Comment, 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const { comment, issue } = await loadRepoComment(db, ctx.repo.id, request.params.id);
    if (comment.type !== 'comment') return reply.code(204).send();
    return (await renderComments(rc(request), fullName(ctx), issue, [comment]))[0];
  });

  // The deprecated routes under /issues/{index}/ find the comment by id alone, as Gitea does.

  /** PATCH of both routes: the poster or a writer; events answer 204 (Gitea's editIssueComment). */
  async function edit(request: FastifyRequest<{ Body: Static<typeof EditIssueCommentOption> }>, reply: FastifyReply, ctx: RepoContext, id: number) {
    const doer = requireSignedIn(request);
    const loaded = await loadRepoComment(db, ctx.repo.id, id);
    const outcome = await editComment(db, ctx, loaded, doer, request.body.body);
    if (outcome.kind === 'forbidden') throw new ForbiddenError('only the poster or a writer may edit this comment');
    if (outcome.kind === 'not-text') return reply.code(204).send();
    return (await renderComments(rc(request), fullName(ctx), loaded.issue, [outcome.comment]))[0];
  }

  /** DELETE of both routes: the poster or a writer; events cannot be deleted (400). */
  async function remove(request: FastifyRequest, reply: FastifyReply, ctx: RepoContext, id: number) {
    const doer = requireSignedIn(request);
    const loaded = await loadRepoComment(db, ctx.repo.id, id);
    const outcome = await deleteComment(db, ctx, loaded, doer);
    if (outcome === 'forbidden') throw new ForbiddenError('only the poster or a writer may delete this comment');
    if (outcome === 'not-text') throw new BadRequestError('this comment is an event and cannot be deleted');
    reply.code(204).send();
  }

  app.patch<{ Params: Static<typeof CommentParams>; Body: Static<typeof EditIssueCommentOption> }>('/api/v1/repos/:owner/:repo/issues/comments/:id', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueEditComment', tags: ['issue'], summary: 'Edit a comment', params: CommentParams, body: EditIssueCommentOption,
      response: { 200: Comment, 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    assertNotArchived(ctx.repo);
    return edit(request, reply, ctx, request.params.id);
  });

  app.delete<{ Params: Static<typeof CommentParams> }>('/api/v1/repos/:owner/:repo/issues/comments/:id', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueDeleteComment', tags: ['issue'], summary: 'Delete a comment', params: CommentParams, response: { 204: Type.Null(), ...errors } },
  }, async (request, reply) => remove(request, reply, await repoForRequest(db, request, request.params), request.params.id));

  app.patch<{ Params: Static<typeof DeprecatedCommentParams>; Body: Static<typeof EditIssueCommentOption> }>('/api/v1/repos/:owner/:repo/issues/:index/comments/:id', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueEditCommentDeprecated', tags: ['issue'], summary: 'Edit a comment', deprecated: true, params: DeprecatedCommentParams, body: EditIssueCommentOption,
      response: { 200: Comment, 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => edit(request, reply, await repoForRequest(db, request, request.params), request.params.id));

  app.delete<{ Params: Static<typeof DeprecatedCommentParams> }>('/api/v1/repos/:owner/:repo/issues/:index/comments/:id', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueDeleteCommentDeprecated', tags: ['issue'], summary: 'Delete a comment', deprecated: true, params: DeprecatedCommentParams, response: { 204: Type.Null(), ...errors } },
  }, async (request, reply) => remove(request, reply, await repoForRequest(db, request, request.params), request.params.id));
}

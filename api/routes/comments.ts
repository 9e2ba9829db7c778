// Issue comments (Gitea's routers/api/v1/repo/issue_comment.go): what people wrote. Events (merge,
// close, branch deletion, auto-merge...) are comment rows too, but only the timeline lists them.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { assertNotArchived } from '../../core/permissions.js';
import { loadIssue } from '../../core/issues.js';
import { postComment } from '../../core/comments.js';
import { issuesStore } from '../../db/issues.js';
import { setTotalCount } from '../paging.js';
import { renderComments } from '../serializers/issue.js';
import { ApiError, Comment, CommentRangeQuery, CreateIssueCommentOption, IssueParams } from '../schemas/issue.js';
import { commentRangeOf, repoForRequest } from './issues-common.js';

const ListQuery = Type.Object(CommentRangeQuery);
const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };

export async function commentRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  app.get<{ Params: Static<typeof IssueParams>; Querystring: Static<typeof ListQuery> }>('/api/v1/repos/:owner/:repo/issues/:index/comments', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueGetComments', tags: ['issue'], summary: 'List all comments on an issue', params: IssueParams, querystring: ListQuery, response: { 200: Type.Array(Comment), ...errors } },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    const rows = await issuesStore(db).comments(issue.id, commentRangeOf(request.query));
    setTotalCount(reply, rows.length);
    return renderComments({ db, viewer: request.doer ?? null, appUrl: config.APP_URL }, `${ctx.owner.name}/${ctx.repo.name}`, issue, rows);
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
    return (await renderComments({ db, viewer: doer, appUrl: config.APP_URL }, `${ctx.owner.name}/${ctx.repo.name}`, issue, [comment]))[0];
  });
}

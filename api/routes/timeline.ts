// An issue's or pull request's timeline: its comment rows of every type, oldest first (Gitea's
// ListIssueCommentsAndTimeline in routers/api/v1/repo/issue_comment.go).
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { loadIssue } from '../../core/issues.js';
import { issuesStore } from '../../db/issues.js';
import { PagingQuery, readPaging, setPagingHeaders } from '../paging.js';
import { renderTimeline } from '../serializers/timeline.js';
import { ApiError, CommentRangeQuery, IssueParams, TimelineComment } from '../schemas/issue.js';
import { commentRangeOf, repoForRequest } from './issues-common.js';

const TimelineQuery = Type.Object({ ...CommentRangeQuery, ...PagingQuery });

const DESCRIPTION = [
  'Every comment and event of the issue or pull request, oldest first, paged with `page` and `limit`.',
  'Events recorded: close, reopen, merge_pull, delete_branch (`old_ref` is the branch),',
  'change_target_branch (`old_ref` and `new_ref` are the former and new base), pull_scheduled_merge,',
  'pull_cancel_scheduled_merge, label (`label`; body 1 added, empty removed), review (`review_id`), dismiss_review',
  'and review_request (`assignee` or `assignee_team`, `removed_assignee`). Code comments are the reviews\'. `X-Total-Count` is the number of rows matching `since`/`before` over all pages',
  '(Gitea sends the length of the page), and `Link` is set as on the other lists.',
].join(' ');

export async function timelineRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  app.get<{ Params: Static<typeof IssueParams>; Querystring: Static<typeof TimelineQuery> }>('/api/v1/repos/:owner/:repo/issues/:index/timeline', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueGetCommentsAndTimeline', tags: ['issue'], summary: 'List all comments and events on an issue', description: DESCRIPTION,
      params: IssueParams, querystring: TimelineQuery,
      response: { 200: Type.Array(TimelineComment), 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    const range = commentRangeOf(request.query);
    const paging = readPaging(request.query, config);
    const store = issuesStore(db);
    const [rows, total] = await Promise.all([store.commentPage(issue.id, range, paging), store.countComments(issue.id, range)]);
    setPagingHeaders(request, reply, total, paging, config.APP_URL);
    return renderTimeline({ db, appUrl: config.APP_URL }, `${ctx.owner.name}/${ctx.repo.name}`, issue, rows);
  });
}

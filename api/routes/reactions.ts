// Reactions on issues, pull requests and comments (Gitea's routers/api/v1/repo/issue_reaction.go).
// Pull requests are reached through their issue number, as in Gitea.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { loadIssue } from '../../core/issues.js';
import { loadRepoComment } from '../../core/comments.js';
import { addReaction, ALLOWED_REACTIONS, removeReaction, targetOf } from '../../core/reactions.js';
import type { RepoContext } from '../../core/permissions.js';
import type { CommentRow } from '../../db/comments.js';
import type { IssueRow } from '../../db/issues.js';
import { reactionsStore, type ReactionRow } from '../../db/reactions.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { unixToIso } from '../../db/time.js';
import { readPaging, setTotalCount, PagingQuery } from '../paging.js';
import { ghostUser } from '../serializers/issue.js';
import { toApiUser } from '../serializers/user.js';
import { ApiError, IssueParams, OwnerRepoParams } from '../schemas/issue.js';
import { EditReactionOption, Reaction, ReactionList } from '../schemas/reaction.js';
import { repoForRequest } from './issues-common.js';

const CommentParams = Type.Object({ ...OwnerRepoParams.properties, id: Type.Integer({ description: 'id of the comment to edit' }) });
const Paging = Type.Object(PagingQuery);
const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError };

type Target = { ctx: RepoContext; issue: IssueRow; comment?: CommentRow };

export async function reactionRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;

  async function render(rows: ReactionRow[], viewer: UserRow | null) {
    if (rows.length === 0) return null;
    const users = await usersStore(db).byIds([...new Set(rows.map((r) => r.user_id))]);
    return rows.map((r) => {
      const user = users.get(r.user_id);
      return { user: user ? toApiUser(user, viewer, appUrl) : ghostUser(appUrl), content: r.type, created_at: unixToIso(r.created_unix)! };
    });
  }

  async function issueTarget(request: FastifyRequest, params: Static<typeof IssueParams>): Promise<Target> {
    const ctx = await repoForRequest(db, request, params);
    return { ctx, issue: await loadIssue(db, ctx.repo.id, params.index) };
  }

  async function commentTarget(request: FastifyRequest, params: Static<typeof CommentParams>): Promise<Target> {
    const ctx = await repoForRequest(db, request, params);
    const { comment, issue } = await loadRepoComment(db, ctx.repo.id, params.id);
    return { ctx, issue, comment };
  }

  async function post(request: FastifyRequest<{ Body: Static<typeof EditReactionOption> }>, reply: FastifyReply, target: Target) {
    const doer = requireSignedIn(request);
    const { row, created } = await addReaction(db, target.ctx, target.issue, target.comment, doer, request.body?.content ?? '');
    reply.code(created ? 201 : 200);
    return { user: toApiUser(doer, doer, appUrl), content: row.type, created_at: unixToIso(row.created_unix)! };
  }

  async function remove(request: FastifyRequest<{ Body: Static<typeof EditReactionOption> }>, reply: FastifyReply, target: Target) {
    const doer = requireSignedIn(request);
    await removeReaction(db, target.ctx, target.issue, target.comment, doer, request.body?.content ?? '');
    reply.code(204).send();
  }

  const description = `Allowed reactions: ${ALLOWED_REACTIONS.join(', ')}; anything else is 403. On a locked issue only writers may react.`;

  app.get<{ Params: Static<typeof IssueParams>; Querystring: Static<typeof Paging> }>('/api/v1/repos/:owner/:repo/issues/:index/reactions', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueGetIssueReactions', tags: ['issue'], summary: 'Get a list reactions of an issue', params: IssueParams, querystring: Paging,
      description: '`null` when there is none, as Gitea answers.',
      response: { 200: ReactionList, ...errors },
    },
  }, async (request, reply) => {
    const { issue } = await issueTarget(request, request.params);
    const store = reactionsStore(db);
    const target = targetOf(issue);
    const page = readPaging(request.query, config);
    const [rows, total] = await Promise.all([store.list(target, ALLOWED_REACTIONS, page), store.count(target, ALLOWED_REACTIONS)]);
    setTotalCount(reply, total);
    return render(rows, request.doer ?? null);
  });

  app.post<{ Params: Static<typeof IssueParams>; Body: Static<typeof EditReactionOption> }>('/api/v1/repos/:owner/:repo/issues/:index/reactions', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issuePostIssueReaction', tags: ['issue'], summary: 'Add a reaction to an issue', description, params: IssueParams, body: EditReactionOption,
      response: { 200: Reaction, 201: Reaction, ...errors },
    },
  }, async (request, reply) => post(request, reply, await issueTarget(request, request.params)));

  app.delete<{ Params: Static<typeof IssueParams>; Body: Static<typeof EditReactionOption> }>('/api/v1/repos/:owner/:repo/issues/:index/reactions', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueDeleteIssueReaction', tags: ['issue'], summary: 'Remove a reaction from an issue', params: IssueParams, body: EditReactionOption,
      response: { 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => remove(request, reply, await issueTarget(request, request.params)));

  app.get<{ Params: Static<typeof CommentParams> }>('/api/v1/repos/:owner/:repo/issues/comments/:id/reactions', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueGetCommentReactions', tags: ['issue'], summary: 'Get a list of reactions from a comment of an issue', params: CommentParams,
      description: '`null` when there is none, as Gitea answers.',
      response: { 200: ReactionList, ...errors },
    },
  }, async (request) => {
    const { issue, comment } = await commentTarget(request, request.params);
    return render(await reactionsStore(db).list(targetOf(issue, comment), ALLOWED_REACTIONS), request.doer ?? null);
  });

  app.post<{ Params: Static<typeof CommentParams>; Body: Static<typeof EditReactionOption> }>('/api/v1/repos/:owner/:repo/issues/comments/:id/reactions', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issuePostCommentReaction', tags: ['issue'], summary: 'Add a reaction to a comment of an issue', description, params: CommentParams, body: EditReactionOption,
      response: { 200: Reaction, 201: Reaction, ...errors },
    },
  }, async (request, reply) => post(request, reply, await commentTarget(request, request.params)));

  app.delete<{ Params: Static<typeof CommentParams>; Body: Static<typeof EditReactionOption> }>('/api/v1/repos/:owner/:repo/issues/comments/:id/reactions', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueDeleteCommentReaction', tags: ['issue'], summary: 'Remove a reaction from a comment of an issue', params: CommentParams, body: EditReactionOption,
      response: { 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => remove(request, reply, await commentTarget(request, request.params)));
}

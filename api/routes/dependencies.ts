// Issue dependencies (Gitea's routers/api/v1/repo/issue_dependency.go): the path issue is blocked by
// the body's issue. POST and DELETE answer 201 with the path issue, as Gitea's code does.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { ForbiddenError } from '../../core/errors.js';
import { assertNotArchived, atLeast, repoAccessMode, type RepoContext } from '../../core/permissions.js';
import { loadIssue } from '../../core/issues.js';
import { addDependency, dependenciesOf, removeDependency } from '../../core/dependencies.js';
import { reposStore } from '../../db/repos.js';
import { usersStore } from '../../db/users.js';
import { readPaging, setPagingHeaders, PagingQuery } from '../paging.js';
import { renderIssue, renderIssues } from '../serializers/issue.js';
import { ApiError, Issue, IssueMeta, IssueParams } from '../schemas/issue.js';
import { repoForRequest } from './issues-common.js';

const Paging = Type.Object(PagingQuery);
const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 422: ApiError, 423: ApiError };

export async function dependencyRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  /** The path issue, checked for writing, and the body's issue, which the doer must be able to read. */
  async function pair(request: FastifyRequest<{ Params: Static<typeof IssueParams>; Body: Static<typeof IssueMeta> }>) {
    const ctx = await repoForRequest(db, request, request.params);
    requireSignedIn(request);
    assertNotArchived(ctx.repo);
    if (!atLeast(ctx.mode, 'write')) throw new ForbiddenError('user should have a permission to write to a repo');
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    const meta = request.body;
    const other: RepoContext = meta.owner || meta.repo
      ? await repoForRequest(db, request, { owner: meta.owner ?? ctx.owner.name, repo: meta.repo ?? ctx.repo.name })
      : ctx;
    const blocker = await loadIssue(db, other.repo.id, meta.index);
    return { ctx, issue, blocker };
  }

  app.get<{ Params: Static<typeof IssueParams>; Querystring: Static<typeof Paging> }>('/api/v1/repos/:owner/:repo/issues/:index/dependencies', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueListIssueDependencies',
      tags: ['issue'], summary: "List an issue's dependencies, i.e all issues that block this issue", params: IssueParams, querystring: Paging,
      description: 'Blockers in repositories the caller cannot read are left out (Gitea shows them titled HIDDEN).',
      response: { 200: Type.Array(Issue), ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    const visible = [];
    for (const blocker of await dependenciesOf(db, issue.id)) {
      if (blocker.repo_id === ctx.repo.id) { visible.push(blocker); continue; }
      const repo = await reposStore(db).byId(blocker.repo_id);
      const owner = repo ? await usersStore(db).byId(repo.owner_id) : undefined;
      if (repo && owner && (await repoAccessMode(db, repo, owner, request.doer ?? null)) !== 'none') visible.push(blocker);
    }
    const paging = readPaging(request.query, config);
    setPagingHeaders(request, reply, visible.length, paging, config.APP_URL);
    return renderIssues({ db, viewer: request.doer ?? null, appUrl: config.APP_URL }, visible.slice(paging.offset, paging.offset + paging.limit));
  });

  app.post<{ Params: Static<typeof IssueParams>; Body: Static<typeof IssueMeta> }>('/api/v1/repos/:owner/:repo/issues/:index/dependencies', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueCreateIssueDependencies',
      tags: ['issue'], summary: 'Make the issue in the url depend on the issue in the form', params: IssueParams, body: IssueMeta,
      description: 'Duplicates are 409 and self or circular dependencies 422 (Gitea answers 500).',
      response: { 201: Issue, ...errors },
    },
  }, async (request, reply) => {
    const { issue, blocker } = await pair(request);
    await addDependency(db, issue, blocker);
    reply.code(201);
    return renderIssue({ db, viewer: request.doer ?? null, appUrl: config.APP_URL }, issue);
  });

  app.delete<{ Params: Static<typeof IssueParams>; Body: Static<typeof IssueMeta> }>('/api/v1/repos/:owner/:repo/issues/:index/dependencies', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueRemoveIssueDependencies',
      tags: ['issue'], summary: 'Remove an issue dependency', params: IssueParams, body: IssueMeta,
      description: 'Answers 201 as Gitea\'s code does (its swagger says 200). An absent dependency is 404.',
      response: { 201: Issue, ...errors },
    },
  }, async (request, reply) => {
    const { issue, blocker } = await pair(request);
    await removeDependency(db, issue, blocker);
    reply.code(201);
    return renderIssue({ db, viewer: request.doer ?? null, appUrl: config.APP_URL }, issue);
  });
}

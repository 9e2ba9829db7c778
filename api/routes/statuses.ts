// Commit statuses: report, list and the combined state of a commit (Gitea's routers/api/v1/repo/status.go).
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError, UnprocessableError } from '../../core/errors.js';
import { assertNotArchived, requireMode, type RepoContext } from '../../core/permissions.js';
import { combinedStatus, commitOfRepository, createCommitStatus, notifyChecksChanged } from '../../core/commit-statuses.js';
import { repoDiskPath } from '../../core/repositories.js';
import { statusesStore, type StatusRow } from '../../db/statuses.js';
import { usersStore } from '../../db/users.js';
import { commitExists, isValidSha, resolveRef, isValidRefName } from '../../git/index.js';
import { readPaging, setPagingHeaders } from '../paging.js';
import { toApiRepo } from '../serializers/repo.js';
import { toApiStatus } from '../serializers/status.js';
import { ApiError, OwnerRepoParams } from '../schemas/issue.js';
import { CombinedStatus, CommitStatus, CreateStatusOption, StatusListQuery } from '../schemas/status.js';
import { repoApiUrl, repoForRequest } from './issues-common.js';

const ShaParams = Type.Object({ ...OwnerRepoParams.properties, sha: Type.String({ minLength: 1, maxLength: 255, description: 'sha of the commit' }) });
const RefParams = Type.Object({ ...OwnerRepoParams.properties, ref: Type.String({ minLength: 1, maxLength: 255, description: 'name of branch/tag/commit' }) });
const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };

export async function statusRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;
  const diskPath = (ctx: RepoContext) => repoDiskPath(config, ctx.owner.name, ctx.repo.name);

  /** A branch, a tag or a full sha, in that order, to the commit it names; 404 when none. */
  async function resolveCommit(ctx: RepoContext, ref: string): Promise<string> {
    const path = diskPath(ctx);
    if (isValidSha(ref.toLowerCase()) && await commitExists(path, ref.toLowerCase())) return ref.toLowerCase();
    for (const full of [`refs/heads/${ref}`, `refs/tags/${ref}`]) {
      if (!isValidRefName(full)) continue;
      const sha = await resolveRef(path, full).catch(() => null);
      if (sha) return sha;
    }
    throw new NotFoundError(`ref does not exist [ref: ${ref}]`);
  }

  async function render(request: FastifyRequest, ctx: RepoContext, rows: StatusRow[]) {
    const creators = await usersStore(db).byIds(rows.flatMap((r) => (r.creator_id ? [r.creator_id] : [])));
    // Gitea converts the creator as seen by nobody in particular (no real address).
    return rows.map((r) => toApiStatus(r, r.creator_id ? creators.get(r.creator_id) : undefined, repoApiUrl(appUrl, ctx), null, appUrl));
  }

  app.post<{ Params: Static<typeof ShaParams>; Body: Static<typeof CreateStatusOption> }>('/api/v1/repos/:owner/:repo/statuses/:sha', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoCreateStatus', tags: ['repository'], summary: 'Create a commit status', params: ShaParams, body: CreateStatusOption,
      description: 'The request names the state `state`; the response names it `status`. `id` is the per-commit index. An unknown commit is 404 (Gitea answers 500); an unknown state is 422 (Gitea stores it).',
      response: { 201: CommitStatus, ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const doer = requireSignedIn(request);
    requireMode(ctx, 'write');
    assertNotArchived(ctx.repo);
    const sha = request.params.sha.toLowerCase();
    if (!isValidSha(sha)) throw new UnprocessableError('[sha]: must be a full commit id');
    if (!(await commitOfRepository(db, ctx.repo.id, diskPath(ctx), sha))) throw new NotFoundError(`commit does not exist [sha: ${sha}]`);
    const b = request.body;
    const row = await createCommitStatus(db, {
      repoId: ctx.repo.id, sha, state: b.state, targetUrl: b.target_url ?? '', description: b.description ?? '',
      context: b.context ?? '', creatorId: doer.id,
    });
    await notifyChecksChanged(db, app.services.pullWorkflows, ctx.repo.id, sha, request.log);
    reply.code(201);
    return (await render(request, ctx, [row]))[0];
  });

  async function listStatuses(request: FastifyRequest<{ Querystring: Static<typeof StatusListQuery> }>, reply: import('fastify').FastifyReply, ctx: RepoContext, sha: string) {
    const paging = readPaging(request.query, config);
    const store = statusesStore(db);
    const { state, sort } = request.query;
    const [rows, total] = await Promise.all([
      store.list(ctx.repo.id, sha, { state, sort, limit: paging.limit, offset: paging.offset }),
      store.count(ctx.repo.id, sha, state),
    ]);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return render(request, ctx, rows);
  }

  app.get<{ Params: Static<typeof ShaParams>; Querystring: Static<typeof StatusListQuery> }>('/api/v1/repos/:owner/:repo/statuses/:sha', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoListStatuses', tags: ['repository'], summary: "Get a commit's statuses", params: ShaParams, querystring: StatusListQuery,
      description: 'Newest first unless `sort` says otherwise; statuses of one second in the order they were made, as Gitea lists them.',
      response: { 200: Type.Array(CommitStatus), ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    return listStatuses(request, reply, ctx, request.params.sha.toLowerCase());
  });

  app.get<{ Params: Static<typeof RefParams>; Querystring: Static<typeof StatusListQuery> }>('/api/v1/repos/:owner/:repo/commits/:ref/statuses', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoListStatusesByRef', tags: ['repository'], summary: "Get a commit's statuses, by branch/tag/commit reference", params: RefParams, querystring: StatusListQuery,
      response: { 200: Type.Array(CommitStatus), ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    return listStatuses(request, reply, ctx, await resolveCommit(ctx, request.params.ref));
  });

  const CombinedQuery = Type.Object({ page: Type.Optional(Type.Integer()), limit: Type.Optional(Type.Integer()) });
  app.get<{ Params: Static<typeof RefParams>; Querystring: Static<typeof CombinedQuery> }>('/api/v1/repos/:owner/:repo/commits/:ref/status', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoGetCombinedStatusByRef', tags: ['repository'], summary: "Get a commit's combined status, by branch/tag/commit reference", params: RefParams, querystring: CombinedQuery,
      description: "Latest status per context, as Gitea 1.26 combines them: failure if any is error, failure or warning; success if all are success or skipped; otherwise pending. Paged as Gitea pages it: the contexts reported most recently first, each page in index order; `total_count` counts the page, X-Total-Count every context.",
      response: { 200: CombinedStatus, ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const sha = await resolveCommit(ctx, request.params.ref);
    const paging = readPaging(request.query, config);
    const combined = await combinedStatus(db, ctx.repo.id, sha, paging);
    setPagingHeaders(request, reply, combined.contexts, paging, appUrl);
    const apiUrl = repoApiUrl(appUrl, ctx);
    return {
      state: combined.state,
      sha,
      total_count: combined.statuses.length,
      statuses: combined.statuses.length ? await render(request, ctx, combined.statuses) : null,
      repository: toApiRepo(ctx, request.doer ?? null, appUrl),
      commit_url: `${apiUrl}/commits/${sha}`,
      url: `${apiUrl}/commits/${sha}/status`,
    };
  });
}

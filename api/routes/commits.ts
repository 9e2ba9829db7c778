// A repository's commits: the paged list (sha, path, not, since, until), one commit, and one
// commit's diff or patch streamed from git (routers/api/v1/repo/commits.go).
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { resolveRevision } from '../../core/code-refs.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../../core/errors.js';
import type { RepoContext } from '../../core/permissions.js';
import { cleanTreePath } from '../../core/tree-path.js';
import { repoDiskPath } from '../../core/repositories.js';
import {
  historyCount, historyPage, isRfc3339, isValidRefName, readCommit, readCommits, streamCommitDiff, streamCommitPatch,
} from '../../git/index.js';
import { readPaging, setPageCountHeaders } from '../paging.js';
import { doerOf, repoFromRequest } from '../repo-request.js';
import { Commit, CommitQuery, goBool } from '../schemas/code.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { toApiCommits, type CommitParts } from '../serializers/commit.js';
import { repoLinks } from '../serializers/contents.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 422: ApiError };
const ShaParams = Type.Object({ ...OwnerRepoParams.properties, sha: Type.String({ description: 'a git ref or commit sha' }) });
const ListQuery = Type.Object({
  sha: Type.Optional(Type.String({ maxLength: 1024, description: 'SHA or branch to start listing commits from (usually the default branch)' })),
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'filepath of a file/dir' })),
  since: Type.Optional(Type.String({ maxLength: 64, description: 'only commits after this date (RFC 3339)' })),
  until: Type.Optional(Type.String({ maxLength: 64, description: 'only commits before this date (RFC 3339)' })),
  ...CommitQuery,
  page: Type.Optional(Type.Integer({ description: 'page number of results to return (1-based)' })),
  limit: Type.Optional(Type.Integer({ description: 'page size of results (ignored if used with `path`)' })),
  not: Type.Optional(Type.String({ maxLength: 1024, description: 'commits that match the given specifier will not be listed' })),
});
type ListQuery = { sha?: string; path?: string; since?: string; until?: string; stat?: boolean; verification?: boolean; files?: boolean; page?: number; limit?: number; not?: string };
type PartsQuery = { stat?: boolean; verification?: boolean; files?: boolean };

/** Gitea's ParseCommitOptions: each part is on unless asked off. */
function commitParts(q: PartsQuery): CommitParts {
  return { stat: goBool(q.stat, true), files: goBool(q.files, true), verification: goBool(q.verification, true) };
}

/** Gitea's IsValidRefPattern for the single-commit route: what git could read as a ref or an id. */
function isValidRefPattern(name: string): boolean {
  return name.length > 0 && !name.startsWith('-') && isValidRefName(`refs/${name}`);
}

export async function commitRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;
  const diskPath = (ctx: RepoContext) => repoDiskPath(config, ctx.owner.name, ctx.repo.name);
  const links = (ctx: RepoContext) => repoLinks(appUrl, ctx);

  app.get<{ Params: { owner: string; repo: string }; Querystring: ListQuery }>('/api/v1/repos/:owner/:repo/commits', {
    schema: {
      operationId: 'repoGetAllCommits', tags: ['repository'], summary: 'Get a list of all commits from a repository',
      params: OwnerRepoParams, querystring: ListQuery, response: { 200: Type.Array(Commit), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const q = request.query;
    for (const [name, value] of [['since', q.since], ['until', q.until]] as const) {
      if (value && !isRfc3339(value)) throw new UnprocessableError(`invalid '${name}' format, expected ISO 8601 (RFC3339)`);
    }
    const ctx = await repoFromRequest(request, request.params);
    if (ctx.repo.is_empty) throw new ConflictError('Git Repository is empty.');
    const path = diskPath(ctx);
    const paging = readPaging(q, config);
    const tipName = q.sha || ctx.repo.default_branch;
    const tip = await resolveRevision(path, tipName);
    if (!tip) throw new NotFoundError(`commit doesn't exist: ${tipName}`);
    const not: string[] = [];
    if (q.not) {
      const excluded = await resolveRevision(path, q.not);
      if (!excluded) throw new NotFoundError(`commit doesn't exist: ${q.not}`);
      not.push(excluded);
    }
    const treePath = cleanTreePath(q.path ?? '');
    if (treePath === null) throw new NotFoundError('FileCommitsCount');
    const query = { tip, not, path: treePath || undefined, since: q.since || undefined, until: q.until || undefined };
    const total = await historyCount(path, query);
    if (treePath && total === 0) throw new NotFoundError('FileCommitsCount');
    const shas = await historyPage(path, query, { skip: paging.offset, limit: paging.limit });
    const commits = await readCommits(path, shas);
    setPageCountHeaders(request, reply, total, paging, appUrl);
    reply.header('x-total', String(total));
    return toApiCommits(db, path, links(ctx), commits, commitParts(q), doerOf(request), appUrl);
  });

  app.get<{ Params: { owner: string; repo: string; sha: string }; Querystring: PartsQuery }>('/api/v1/repos/:owner/:repo/git/commits/:sha', {
    schema: {
      operationId: 'repoGetSingleCommit', tags: ['repository'], summary: 'Get a single commit from a repository',
      params: ShaParams, querystring: Type.Object(CommitQuery), response: { 200: Commit, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const { sha } = request.params;
    const ctx = await repoFromRequest(request, request.params);
    if (!isValidRefPattern(sha)) throw new UnprocessableError(`no valid ref or sha: ${sha}`);
    const path = diskPath(ctx);
    const commit = ctx.repo.is_empty ? null : await resolveRevision(path, sha);
    if (!commit) throw new NotFoundError(`commit doesn't exist: ${sha}`);
    const [api] = await toApiCommits(db, path, links(ctx), [await readCommit(path, commit)], commitParts(request.query), doerOf(request), appUrl);
    return api;
  });

  app.get<{ Params: { owner: string; repo: string; sha: string; diffType: 'diff' | 'patch' } }>('/api/v1/repos/:owner/:repo/git/commits/:sha.:diffType(^(diff|patch)$)', {
    schema: {
      operationId: 'repoDownloadCommitDiffOrPatch', tags: ['repository'], summary: "Get a commit's diff or patch",
      params: Type.Object({ ...ShaParams.properties, diffType: Type.Union([Type.Literal('diff'), Type.Literal('patch')], { description: 'whether the output is diff or patch' }) }),
      response: { 200: Type.String({ description: 'text/plain' }), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const { sha, diffType } = request.params;
    const ctx = await repoFromRequest(request, request.params);
    const path = diskPath(ctx);
    const commit = ctx.repo.is_empty ? null : await resolveRevision(path, sha);
    if (!commit) throw new NotFoundError(`commit doesn't exist: ${sha}`);
    const parent = (await readCommit(path, commit)).parents[0] ?? null;
    const stream = diffType === 'diff' ? streamCommitDiff(path, commit, parent) : streamCommitPatch(path, commit, parent);
    return reply.type('text/plain; charset=utf-8').serializer((x: unknown) => x as string).send(stream);
  });
}

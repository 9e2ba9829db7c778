// A pull request's code: .diff and .patch streamed from git, the merged check, the commit list and
// the changed-file list with Gitea's X-Page family of headers (routers/api/v1/repo/pull.go).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import type { RepoContext } from '../../core/permissions.js';
import { repoDiskPath } from '../../core/repositories.js';
import { pullCommitPage, pullFilePage, pullRange } from '../../core/pulls/compare.js';
import type { PullRow } from '../../db/pulls.js';
import { reposStore } from '../../db/repos.js';
import { usersStore } from '../../db/users.js';
import { streamDiff, streamFormatPatch, type NumStatEntry } from '../../git/index.js';
import { DiffDiskCache } from '../../core/diff-cache.js';
import { answeredNotModified, sendKeptByEtag, strongEtag } from '../etag.js';
import { readPaging, setPageCountHeaders } from '../paging.js';
import { join } from 'node:path';
import { doerOf } from '../repo-request.js';
import { pullFromRequest } from './pulls.js';
import { ApiError } from '../schemas/issue.js';
import { ChangedFile, Commit, GoBool, goBool, PullParams } from '../schemas/pull.js';
import { toApiCommits, usersByCommitEmail } from '../serializers/commit.js';
import { pathSegments, repoLinks } from '../serializers/contents.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError };
const DiffParams = Type.Object({ ...PullParams.properties, diffType: Type.Union([Type.Literal('diff'), Type.Literal('patch')], { description: 'whether the output is diff or patch' }) });

type IndexParams = { owner: string; repo: string; index: number };

export async function pullDiffRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;
  const diffCache = new DiffDiskCache(
    join(config.APP_DATA_PATH, 'cache', 'diffs'), config.READ_CACHE_DISK_BYTES, config.READ_CACHE_DIFF_MAX_BYTES, config.READ_CACHE_DIFF_MEMORY_BYTES);

  async function loadPull(request: FastifyRequest, params: IndexParams): Promise<{ ctx: RepoContext; pull: PullRow; path: string }> {
    const { ctx, pull } = await pullFromRequest(request, params);
    return { ctx, pull, path: repoDiskPath(config, ctx.owner.name, ctx.repo.name) };
  }

  // One route, as Gitea's `{index}.{diffType:diff|patch}`: `/pulls/1.0` is not a diff but index "1.0".
  app.get<{ Params: IndexParams & { diffType: 'diff' | 'patch' }; Querystring: { binary?: boolean } }>('/api/v1/repos/:owner/:repo/pulls/:index.:diffType(^(diff|patch)$)', {
    schema: {
      operationId: 'repoDownloadPullDiffOrPatch', tags: ['repository'], summary: 'Get a pull request diff or patch (streamed, text/plain)', params: DiffParams, produces: ['text/plain'],
      querystring: Type.Object({ binary: Type.Optional({ ...GoBool, description: 'include binary changes so that `git apply` accepts the output' }) }),
      response: { 200: Type.String({ description: 'the diff or patch' }), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const { pull, path } = await loadPull(request, request.params);
    const range = await pullRange(path, pull);
    const binary = goBool(request.query.binary, false);
    const { diffType } = request.params;
    // The diff is a function of the two commits: its tag says so, and it is kept on disk.
    const key = [diffType, String(binary), range.from, range.to];
    if (answeredNotModified(request, reply, strongEtag(key))) return reply;
    reply.type('text/plain; charset=utf-8').serializer((x: unknown) => x as string);
    const cacheKey = DiffDiskCache.keyOf([path, ...key]);
    const kept = await diffCache.open(cacheKey);
    if (kept) return reply.header('content-length', kept.size).send(kept.stream);
    // Never buffered: git writes, the socket (and the cache file) read, back-pressure in between.
    const stream = diffType === 'diff'
      ? streamDiff(path, range.from, range.to, { binary })
      : streamFormatPatch(path, range.from, range.to, binary ? { binary: true } : {});
    return reply.send(diffCache.capture(cacheKey, stream));
  });

  app.get<{ Params: IndexParams }>('/api/v1/repos/:owner/:repo/pulls/:index/merge', {
    schema: { operationId: 'repoPullRequestIsMerged', tags: ['repository'], summary: 'Check if a pull request has been merged', params: PullParams, response: { 204: Type.Null(), ...errors } },
    config: { scope: 'issue' },
  }, async (request, reply) => {
    const { pull } = await loadPull(request, request.params);
    if (!pull.has_merged) throw new NotFoundError('pull request has not been merged');
    return reply.code(204).send();
  });

  app.get<{ Params: IndexParams; Querystring: { page?: number; limit?: number; verification?: boolean; files?: boolean } }>('/api/v1/repos/:owner/:repo/pulls/:index/commits', {
    schema: {
      operationId: 'repoGetPullRequestCommits',
      tags: ['repository'], summary: 'Get commits for a pull request', params: PullParams,
      querystring: Type.Object({
        page: Type.Optional(Type.Integer()), limit: Type.Optional(Type.Integer()),
        verification: Type.Optional({ ...GoBool, description: 'include verification (default true)' }),
        files: Type.Optional({ ...GoBool, description: 'include the affected files (default true)' }),
      }),
      response: { 200: Type.Array(Commit), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const { ctx, pull, path } = await loadPull(request, request.params);
    const paging = readPaging(request.query, config);
    const withVerification = goBool(request.query.verification, true);
    const withFiles = goBool(request.query.files, true);
    const range = await pullRange(path, pull);
    const { total, commits } = await pullCommitPage(path, range, paging);
    const links = repoLinks(appUrl, ctx);
    // The page is a function of the commits, the options and the accounts it shows.
    const viewer = doerOf(request);
    const users = await usersByCommitEmail(db, commits);
    setPageCountHeaders(request, reply, total, paging, appUrl);
    const etag = strongEtag(['commits', links.api, range.commitsFrom, range.to, paging.offset, paging.limit, withFiles, withVerification, viewer?.id, JSON.stringify([...users.values()])]);
    if (answeredNotModified(request, reply, etag)) return reply;
    return sendKeptByEtag(reply, etag, () => toApiCommits(db, path, links, commits, { stat: true, files: withFiles, verification: withVerification }, viewer, appUrl, users));
  });

  app.get<{ Params: IndexParams; Querystring: { page?: number; limit?: number; 'skip-to'?: string; whitespace?: string } }>('/api/v1/repos/:owner/:repo/pulls/:index/files', {
    schema: {
      operationId: 'repoGetPullRequestFiles',
      tags: ['repository'], summary: 'Get changed files for a pull request', params: PullParams,
      querystring: Type.Object({
        page: Type.Optional(Type.Integer()), limit: Type.Optional(Type.Integer()),
        'skip-to': Type.Optional(Type.String({ maxLength: 4096, description: 'file to skip to' })),
        whitespace: Type.Optional(Type.String({ maxLength: 20, description: '`ignore-all`, `ignore-change`, `ignore-eol` or `show-all` (anything else shows all)' })),
      }),
      response: { 200: Type.Array(ChangedFile), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const { ctx, pull, path } = await loadPull(request, request.params);
    const paging = readPaging(request.query, config);
    const skipTo = request.query['skip-to'];
    if (skipTo !== undefined && skipTo.includes('\0')) throw new NotFoundError('no such file');
    const range = await pullRange(path, pull);
    const { total, files } = await pullFilePage(path, range, { whitespace: request.query.whitespace, skipTo }, paging);
    // Links point at the head repository, as Gitea's ToChangedFile (the base when the head is gone).
    let owner = ctx.owner.name;
    let name = ctx.repo.name;
    if (pull.head_repo_id !== null && pull.head_repo_id !== ctx.repo.id) {
      const head = await reposStore(db).byId(pull.head_repo_id);
      const headOwner = head ? await usersStore(db).byId(head.owner_id) : undefined;
      if (head && headOwner) [owner, name] = [headOwner.name, head.name];
    }
    const html = `${appUrl}${owner}/${name}`;
    const api = `${appUrl}api/v1/repos/${owner}/${name}`;
    setPageCountHeaders(request, reply, total, paging, appUrl);
    if (answeredNotModified(request, reply, strongEtag(['files', api, range.from, range.to, request.query.whitespace, skipTo, paging.offset, paging.limit]))) return reply;
    return files.map((f: NumStatEntry) => ({
      filename: f.filename,
      ...(f.status === 'renamed' && f.previousFilename !== undefined ? { previous_filename: f.previousFilename } : {}),
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
      html_url: `${html}/src/commit/${range.to}/${pathSegments(f.filename)}`,
      contents_url: `${api}/contents/${pathSegments(f.filename)}?ref=${range.to}`,
      raw_url: `${html}/raw/commit/${range.to}/${pathSegments(f.filename)}`,
    }));
  });
}

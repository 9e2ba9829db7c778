// Git's own data: references (all, or those under a prefix), trees (paged, optionally recursive),
// blobs and annotated tag objects (routers/api/v1/repo/git_ref.go, tree.go, blob.go, tag.go).
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { BadRequestError, NotFoundError } from '../../core/errors.js';
import type { RepoContext } from '../../core/permissions.js';
import { repoDiskPath } from '../../core/repositories.js';
import { resolveTreeish, MAX_INLINE_BLOB_BYTES } from '../../core/code-read.js';
import { listRefsWithTypes, listTree, readBlob, readTagObject, unverifiedCommit, readCommit, objectType, blobSize } from '../../git/index.js';
import { setTotalCount } from '../paging.js';
import { repoFromRequest } from '../repo-request.js';
import { AnnotatedTag, GitBlobResponse, GitTreeResponse, GoBool, goBool, Reference } from '../schemas/code.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { pathSegments, repoLinks } from '../serializers/contents.js';

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError };
const ShaParams = Type.Object({ ...OwnerRepoParams.properties, sha: Type.String({ description: 'sha of the object' }) });
const RefParams = Type.Object({ ...OwnerRepoParams.properties, '*': Type.String({ description: 'part or full name of the ref', 'x-param-name': 'ref' }) });
const TreeQuery = Type.Object({
  recursive: Type.Optional({ ...GoBool, description: 'show all directories and files' }),
  page: Type.Optional(Type.Integer({ description: "page number; the 'truncated' field in the response will be true if there are still more items after this page, false if the last page" })),
  per_page: Type.Optional(Type.Integer({ description: 'number of items per page' })),
});

/** Gitea's DefaultGitTreesPerPage: the page size and its maximum. */
const TREE_PAGE_SIZE = 1000;

type Params = { owner: string; repo: string };

export async function gitDataRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.services;
  const diskPath = (ctx: RepoContext) => repoDiskPath(config, ctx.owner.name, ctx.repo.name);
  const apiUrl = (ctx: RepoContext) => repoLinks(config.APP_URL, ctx).api;

  async function refsUnder(ctx: RepoContext, filter: string) {
    const prefix = filter === '' ? '' : `refs/${filter}`;
    const refs = (await listRefsWithTypes(diskPath(ctx))).filter((r) => !r.ref.startsWith('refs/remotes/') && r.ref.startsWith(prefix));
    // As Gitea: nothing found is 404, anything found a list (even one exact match).
    if (refs.length === 0) throw new NotFoundError();
    return refs.map((r) => ({
      ref: r.ref,
      url: `${apiUrl(ctx)}/git/${pathSegments(r.ref)}`,
      object: { sha: r.sha, type: r.type, url: `${apiUrl(ctx)}/git/${encodeURIComponent(r.type)}s/${r.sha}` },
    }));
  }

  app.get<{ Params: Params }>('/api/v1/repos/:owner/:repo/git/refs', {
    schema: {
      operationId: 'repoListAllGitRefs', tags: ['repository'], summary: "Get specified ref or filtered repository's refs",
      params: OwnerRepoParams, response: { 200: Type.Array(Reference), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => refsUnder(await repoFromRequest(request, request.params), ''));

  app.get<{ Params: Params & { '*': string } }>('/api/v1/repos/:owner/:repo/git/refs/*', {
    schema: {
      operationId: 'repoListGitRefs', tags: ['repository'], summary: "Get specified ref or filtered repository's refs",
      params: RefParams, response: { 200: Type.Array(Reference), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => refsUnder(await repoFromRequest(request, request.params), request.params['*']));

  app.get<{ Params: Params & { sha: string }; Querystring: { recursive?: boolean; page?: number; per_page?: number } }>('/api/v1/repos/:owner/:repo/git/trees/:sha', {
    schema: {
      operationId: 'GetTree', tags: ['repository'], summary: 'Gets the tree of a repository.',
      params: ShaParams, querystring: TreeQuery, response: { 200: GitTreeResponse, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoFromRequest(request, request.params);
    const { sha } = request.params;
    if (sha.length === 0) throw new BadRequestError('sha not provided');
    const path = diskPath(ctx);
    const found = ctx.repo.is_empty ? null : await resolveTreeish(path, sha);
    if (!found) throw new BadRequestError(`sha not found [${sha}]`);
    const entries = await listTree(path, found.tree, { recursive: goBool(request.query.recursive, false) });
    let perPage = request.query.per_page ?? 0;
    if (perPage <= 0 || perPage > TREE_PAGE_SIZE) perPage = TREE_PAGE_SIZE;
    const page = Math.max(request.query.page ?? 1, 1);
    const start = perPage * (page - 1);
    const url = `${apiUrl(ctx)}/git/trees/${found.resolved}`;
    setTotalCount(reply, entries.length);
    const base = { sha: found.resolved, url, page, total_count: entries.length };
    if (!Number.isSafeInteger(start) || start >= entries.length) return { ...base, tree: null, truncated: false };
    const end = Math.min(start + perPage, entries.length);
    return {
      ...base,
      truncated: end < entries.length,
      tree: entries.slice(start, end).map((e) => ({
        path: e.path, mode: e.mode, type: e.type, size: e.size, sha: e.sha,
        url: e.type === 'tree' ? `${apiUrl(ctx)}/git/trees/${e.sha}` : e.type === 'commit' ? '' : `${apiUrl(ctx)}/git/blobs/${e.sha}`,
      })),
    };
  });

  app.get<{ Params: Params & { sha: string } }>('/api/v1/repos/:owner/:repo/git/blobs/:sha', {
    schema: {
      operationId: 'GetBlob', tags: ['repository'], summary: 'Gets the blob of a repository.',
      params: ShaParams, response: { 200: GitBlobResponse, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoFromRequest(request, request.params);
    const sha = request.params.sha.toLowerCase();
    const path = diskPath(ctx);
    if (sha.length === 0) throw new BadRequestError('sha not provided');
    if ((await objectType(path, sha)) !== 'blob') throw new BadRequestError(`object does not exist [id: ${request.params.sha}, rel_path: ]`);
    const size = await blobSize(path, sha);
    const inline = size <= MAX_INLINE_BLOB_BYTES;
    return {
      sha, url: `${apiUrl(ctx)}/git/blobs/${sha}`, size,
      content: inline ? (await readBlob(path, sha)).toString('base64') : null, encoding: inline ? 'base64' : null,
    };
  });

  app.get<{ Params: Params & { sha: string } }>('/api/v1/repos/:owner/:repo/git/tags/:sha', {
    schema: {
      operationId: 'GetAnnotatedTag', tags: ['repository'], summary: 'Gets the tag object of an annotated tag (not lightweight tags)',
      params: ShaParams, response: { 200: AnnotatedTag, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoFromRequest(request, request.params);
    const path = diskPath(ctx);
    const tag = await readTagObject(path, request.params.sha.toLowerCase());
    if (!tag || tag.objectType !== 'commit') throw new BadRequestError(`tag not found [id: ${request.params.sha}]`);
    const commit = await readCommit(path, tag.object);
    return {
      tag: tag.name, sha: tag.sha, url: `${apiUrl(ctx)}/git/tags/${tag.sha}`, message: tag.message,
      tagger: { name: tag.tagger.name, email: tag.tagger.email, date: tag.tagger.date },
      object: { type: 'commit', url: `${apiUrl(ctx)}/git/commits/${commit.sha}`, sha: commit.sha },
      verification: unverifiedCommit(commit.signature),
    };
  });
}

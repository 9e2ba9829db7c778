// A file's bytes at a ref, streamed from git (routers/api/v1/repo/file.go GetRawFile and
// GetRawFileOrLFS; this service stores no LFS objects, so `media` serves the same bytes). Text is
// sent as text/plain and everything else as an attachment, so no served file runs as a page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { splitRefAndPath } from '../../core/code-refs.js';
import { contentKind } from '../../core/code-read.js';
import { NotFoundError } from '../../core/errors.js';
import { repoDiskPath } from '../../core/repositories.js';
import { cleanTreePath } from '../../core/tree-path.js';
import { lastCommitsOfEntries, readBlob, readCommit, streamBlob, treeEntryAt } from '../../git/index.js';
import { repoFromRequest } from '../repo-request.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { contentDisposition, USER_CONTENT_HEADERS } from '../serializers/contents.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError };
const FileParams = Type.Object({ ...OwnerRepoParams.properties, '*': Type.String({ description: 'path of the file to get, it should be "{ref}/{filepath}". If there is no ref could be inferred, it will be treated as the default branch', 'x-param-name': 'filepath' }) });
const RefQuery = Type.Object({ ref: Type.Optional(Type.String({ maxLength: 1024, description: 'The name of the commit/branch/tag. Default to the repository’s default branch' })) });
/** Gitea's StaticCacheTime. */
const CACHE_SECONDS = 6 * 60 * 60;
/** Bytes looked at to tell text from binary. */
const SNIFF_BYTES = 1024;

type Req = FastifyRequest<{ Params: { owner: string; repo: string; '*': string }; Querystring: { ref?: string } }>;

export async function rawRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.services;

  async function serveRaw(request: Req, reply: FastifyReply) {
    const ctx = await repoFromRequest(request, request.params);
    if (ctx.repo.is_empty) throw new NotFoundError('repository is empty');
    const path = repoDiskPath(config, ctx.owner.name, ctx.repo.name);
    const reqPath = cleanTreePath(request.params['*']);
    const refQuery = cleanTreePath((request.query.ref ?? '').trim());
    if (reqPath === null || refQuery === null) throw new NotFoundError();
    const { ref, treePath } = await splitRefAndPath(path, ctx.repo.default_branch, refQuery, reqPath);
    if (!ref) throw new NotFoundError('unable to find a git ref');
    const entry = treePath === '' ? null : await treeEntryAt(path, ref.commit, treePath);
    if (!entry) throw new NotFoundError();
    const kind = contentKind(entry);
    if (kind === 'dir' || kind === 'submodule') throw new NotFoundError('getBlobForEntry');
    reply.header('x-gitea-object-type', kind);

    const etag = `"${entry.sha}"`;
    const dir = treePath.includes('/') ? treePath.slice(0, treePath.lastIndexOf('/')) : '';
    const name = treePath.slice(dir === '' ? 0 : dir.length + 1);
    const lastSha = (await lastCommitsOfEntries(path, ref.commit, dir, [name])).get(name);
    const lastModified = lastSha ? new Date((await readCommit(path, lastSha)).committer.timestamp * 1000) : null;
    const isPublic = !ctx.repo.is_private && ctx.owner.visibility === 'public';
    reply.header('cache-control', `${isPublic ? 'public' : 'private'}, max-age=${CACHE_SECONDS}, no-transform`);
    reply.header('etag', etag);
    if (lastModified) reply.header('last-modified', lastModified.toUTCString());
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();

    // Small files are read whole (one process); larger ones are streamed.
    const head = entry.size <= SNIFF_BYTES ? await readBlob(path, entry.sha) : null;
    const sniff = head ?? await firstBytes(path, entry.sha);
    const isText = !sniff.includes(0);
    reply.header('content-type', isText ? 'text/plain; charset=utf-8' : 'application/octet-stream');
    reply.headers(USER_CONTENT_HEADERS);
    reply.header('content-disposition', contentDisposition(isText ? 'inline' : 'attachment', name));
    reply.header('content-length', String(entry.size));
    return reply.serializer((x: unknown) => x as string).send(head ?? streamBlob(path, entry.sha));
  }

  for (const [kind, operationId, summary] of [
    ['raw', 'repoGetRawFile', 'Get a file from a repository'],
    ['media', 'repoGetRawFileOrLFS', 'Get a file or it\'s LFS object from a repository'],
  ] as const) {
    app.get<{ Params: { owner: string; repo: string; '*': string }; Querystring: { ref?: string } }>(`/api/v1/repos/:owner/:repo/${kind}/*`, {
      schema: {
        operationId, tags: ['repository'], summary, params: FileParams, querystring: RefQuery,
        response: { 200: Type.String({ description: 'the file’s bytes' }), ...errors },
      },
      config: { scope: 'repository' },
    }, serveRaw);
  }
}

/** The first bytes of a blob, read from its stream (which is then closed). */
async function firstBytes(repoPath: string, sha: string): Promise<Buffer> {
  const stream = streamBlob(repoPath, sha);
  try {
    for await (const chunk of stream) return (chunk as Buffer).subarray(0, SNIFF_BYTES);
    return Buffer.alloc(0);
  } finally {
    stream.destroy();
  }
}

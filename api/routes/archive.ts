// Source archives: GET .../archive/{ref}.zip or {ref}.tar.gz, streamed from `git archive` with
// nothing written to disk (routers/api/v1/repo/download.go, services/repository/archiver).
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { resolveRevision } from '../../core/code-refs.js';
import { BadRequestError, NotFoundError } from '../../core/errors.js';
import { repoDiskPath } from '../../core/repositories.js';
import { cleanTreePath } from '../../core/tree-path.js';
import { streamArchive, type ArchiveFormat } from '../../git/index.js';
import { repoFromRequest } from '../repo-request.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { contentDisposition, repoLinks, USER_CONTENT_HEADERS } from '../serializers/contents.js';

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError };
const ArchiveParams = Type.Object({ ...OwnerRepoParams.properties, '*': Type.String({ description: 'the git reference for download with attached archive format (e.g. master.zip)', 'x-param-name': 'archive' }) });
const ArchiveQuery = Type.Object({
  path: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 100 })], { description: 'subpath(s) of the repository to download' })),
});

/** Gitea's SplitArchiveNameType, for the two formats served here. */
function splitArchiveName(name: string): { ref: string; format: ArchiveFormat } | null {
  if (name.endsWith('.zip')) return { ref: name.slice(0, -'.zip'.length), format: 'zip' };
  if (name.endsWith('.tar.gz')) return { ref: name.slice(0, -'.tar.gz'.length), format: 'tar.gz' };
  return null;
}

/** Resolves once git has written its first bytes, or rejects when it fails before (a bad path). */
function started(stream: Readable): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      stream.off('readable', onReadable);
      stream.off('error', done);
      if (err) reject(err);
      else resolve(stream);
    };
    const onReadable = () => done();
    stream.once('readable', onReadable);
    stream.once('error', done);
  });
}

export async function archiveRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.services;

  type Req = FastifyRequest<{ Params: { owner: string; repo: string; '*': string }; Querystring: { path?: string | string[] } }>;
  async function serveArchive(request: Req, reply: FastifyReply) {
    const ctx = await repoFromRequest(request, request.params);
    const requested = request.params['*'];
    const parsed = splitArchiveName(requested);
    if (!parsed) throw new BadRequestError(`unknown format: ${requested}`);
    const path = repoDiskPath(config, ctx.owner.name, ctx.repo.name);
    const commit = ctx.repo.is_empty ? null : await resolveRevision(path, parsed.ref);
    if (!commit) throw new NotFoundError(`unrecognized repository reference: ${parsed.ref}`);
    const rawPaths = request.query.path === undefined ? [] : [request.query.path].flat();
    const paths = rawPaths.map(cleanTreePath);
    if (paths.some((p) => !p)) throw new BadRequestError("path doesn't exist or is invalid");
    let stream: Readable;
    try {
      stream = await started(streamArchive(path, commit, parsed.format, { prefix: `${ctx.repo.name.toLowerCase()}/`, paths: paths as string[] }));
    } catch (err) {
      if (rawPaths.length > 0) throw new BadRequestError("path doesn't exist or is invalid");
      throw err;
    }
    const { api } = repoLinks(config.APP_URL, ctx);
    const fileName = `${ctx.repo.name}-${parsed.ref.replaceAll('/', '-')}.${parsed.format}`;
    reply.header('link', `<${api}/archive/${commit}.${parsed.format}?rev=${commit}>; rel="immutable"`);
    reply.header('content-type', 'application/octet-stream');
    reply.headers(USER_CONTENT_HEADERS);
    reply.header('content-disposition', contentDisposition('attachment', fileName));
    return reply.serializer((x: unknown) => x as string).send(stream);
  }

  // The API route, and the web address Gitea's Tag records link to (zipball_url, tarball_url).
  for (const [url, hide] of [['/api/v1/repos/:owner/:repo/archive/*', false], ['/:owner/:repo/archive/*', true]] as const) {
    app.get(url, {
      schema: {
        operationId: hide ? undefined : 'repoGetArchive', hide, tags: ['repository'], summary: 'Get an archive of a repository',
        params: ArchiveParams, querystring: ArchiveQuery, response: { 200: Type.String({ description: 'the archive’s bytes' }), ...errors },
      },
      config: { scope: 'repository' },
    }, serveArchive);
  }
}

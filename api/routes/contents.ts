// A repository's files through the contents API: read a file or list a directory at a ref, and
// create, update, move or delete files with a commit (routers/api/v1/repo/file.go).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { resolveRefCommit, type RefCommit } from '../../core/code-refs.js';
import { contentsAt } from '../../core/code-read.js';
import { NotFoundError, UnprocessableError } from '../../core/errors.js';
import { assertCanWriteFiles, changeRepoFiles, type ChangeFilesInput, type FileChangeInput } from '../../core/file-changes.js';
import type { RepoContext } from '../../core/permissions.js';
import { repoDiskPath } from '../../core/repositories.js';
import { cleanTreePath } from '../../core/tree-path.js';
import { isRfc3339 } from '../../git/index.js';
import { repoForChange, repoFromRequest } from '../repo-request.js';
import {
  ChangeFilesOptions, ContentsResponse, CreateFileOptions, DeleteFileOptions, FileDeleteResponse, FileResponse, FilesResponse, UpdateFileOptions,
} from '../schemas/code.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { fileVerification, repoLinks, toContentsResponse, toFileCommitResponse, type RepoLinks } from '../serializers/contents.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 422: ApiError, 423: ApiError };
const FileParams = Type.Object({ ...OwnerRepoParams.properties, '*': Type.String({ description: 'path of the file (or directory)', 'x-param-name': 'filepath' }) });
const RefQuery = Type.Object({ ref: Type.Optional(Type.String({ maxLength: 1024, description: 'The name of the commit/branch/tag. Default to the repository’s default branch.' })) });
const ContentsAnswer = Type.Union([ContentsResponse, Type.Array(ContentsResponse)], { description: 'a ContentsResponse for a file, a list for a directory' });

type Params = { owner: string; repo: string };
type FileOpts = Omit<Static<typeof CreateFileOptions>, 'content'>;

/** Go's base64.StdEncoding: padded, line breaks ignored, anything else refused with the offset. */
function decodeBase64(text: string): Buffer {
  const clean = text.replace(/[\r\n]/g, '');
  const bad = clean.search(/[^A-Za-z0-9+/=]/);
  const pad = clean.indexOf('=');
  let invalidAt = bad;
  if (invalidAt === -1 && pad !== -1) {
    const afterPad = clean.slice(pad).search(/[^=]/);
    if (afterPad !== -1) invalidAt = pad + afterPad;
    else if (clean.length - pad > 2) invalidAt = pad + 2;
  }
  if (invalidAt === -1 && clean.length % 4 !== 0) invalidAt = clean.length;
  if (invalidAt !== -1) throw new UnprocessableError(`illegal base64 data at input byte ${invalidAt}`);
  return Buffer.from(clean, 'base64');
}

function commonOptions(body: FileOpts): Omit<ChangeFilesInput, 'files'> {
  const dates = body.dates ?? {};
  for (const value of [dates.author, dates.committer]) {
    if (value && !isRfc3339(value)) throw new UnprocessableError(`invalid date: ${value}`);
  }
  return {
    message: body.message, branch: body.branch, newBranch: body.new_branch, forcePush: body.force_push, signoff: body.signoff,
    author: body.author, committer: body.committer, dates: { author: dates.author || undefined, committer: dates.committer || undefined },
  };
}

export async function contentRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const diskPath = (ctx: RepoContext) => repoDiskPath(config, ctx.owner.name, ctx.repo.name);
  const linksOf = (ctx: RepoContext): RepoLinks => repoLinks(config.APP_URL, ctx);
  const services = { db, config, pullWorkflows: app.services.pullWorkflows };

  async function readContents(request: FastifyRequest<{ Params: Params; Querystring: { ref?: string } }>, rawPath: string) {
    const ctx = await repoFromRequest(request, request.params);
    const treePath = cleanTreePath(rawPath);
    if (treePath === null) throw new UnprocessableError(`path contains a malformed path component [path: ${rawPath}]`);
    const path = diskPath(ctx);
    const input = (request.query.ref ?? '').trim() || ctx.repo.default_branch;
    const ref = await resolveRefCommit(path, input);
    if (!ref) throw new NotFoundError();
    const found = await contentsAt(path, ref.commit, treePath, { withContent: true });
    if (!found) throw new NotFoundError('GetContentsOrList');
    const links = linksOf(ctx);
    return 'file' in found ? toContentsResponse(found.file, ref, links) : found.dir.map((e) => toContentsResponse(e, ref, links));
  }

  app.get<{ Params: Params; Querystring: { ref?: string } }>('/api/v1/repos/:owner/:repo/contents', {
    schema: {
      operationId: 'repoGetContentsList', tags: ['repository'], summary: "Gets the metadata of all the entries of the root dir",
      params: OwnerRepoParams, querystring: RefQuery, response: { 200: ContentsAnswer, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => readContents(request, ''));

  app.get<{ Params: Params & { '*': string }; Querystring: { ref?: string } }>('/api/v1/repos/:owner/:repo/contents/*', {
    schema: {
      operationId: 'repoGetContents', tags: ['repository'], summary: 'Gets the metadata and contents (if a file) of an entry in a repository, or a list of entries if a dir',
      params: FileParams, querystring: RefQuery, response: { 200: ContentsAnswer, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => readContents(request, request.params['*']));

  /** Runs a change and answers with the files' contents at the new commit, as Gitea does. */
  async function change(request: FastifyRequest<{ Params: Params }>, files: FileChangeInput[], options: Omit<ChangeFilesInput, 'files'>) {
    const ctx = await repoForChange(request, request.params, 'read');
    assertCanWriteFiles(ctx);
    const result = await changeRepoFiles(services, ctx, ctx.doer, { ...options, files }, request.log);
    const links = linksOf(ctx);
    const ref: RefCommit = { input: result.branch, kind: 'branch', name: result.branch, commit: result.commit.sha };
    const path = diskPath(ctx);
    const contents = await Promise.all(result.treePaths.map(async (p) => {
      const found = await contentsAt(path, result.commit.sha, p, { withContent: true });
      return found && 'file' in found ? toContentsResponse(found.file, ref, links) : null;
    }));
    return { files: contents, commit: toFileCommitResponse(result.commit, links), verification: fileVerification(result.commit) };
  }

  app.post<{ Params: Params & { '*': string }; Body: Static<typeof CreateFileOptions> }>('/api/v1/repos/:owner/:repo/contents/*', {
    schema: {
      operationId: 'repoCreateFile', tags: ['repository'], summary: 'Create a file in a repository',
      params: FileParams, body: CreateFileOptions, response: { 201: FileResponse, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const body = request.body;
    const out = await change(request, [{ operation: 'create', path: request.params['*'], content: decodeBase64(body.content) }], commonOptions(body));
    reply.code(201);
    return { content: out.files[0] ?? null, commit: out.commit, verification: out.verification };
  });

  app.put<{ Params: Params & { '*': string }; Body: Static<typeof UpdateFileOptions> }>('/api/v1/repos/:owner/:repo/contents/*', {
    schema: {
      operationId: 'repoUpdateFile', tags: ['repository'], summary: 'Update a file in a repository if SHA is set, or create the file if SHA is not set',
      params: FileParams, body: UpdateFileOptions, response: { 200: FileResponse, 201: FileResponse, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const body = request.body;
    const willCreate = !body.sha;
    const out = await change(request, [{
      operation: willCreate ? 'create' : 'update', path: request.params['*'], fromPath: body.from_path, sha: body.sha, content: decodeBase64(body.content),
    }], commonOptions(body));
    reply.code(willCreate ? 201 : 200);
    return { content: out.files[0] ?? null, commit: out.commit, verification: out.verification };
  });

  app.delete<{ Params: Params & { '*': string }; Body: Static<typeof DeleteFileOptions> }>('/api/v1/repos/:owner/:repo/contents/*', {
    schema: {
      operationId: 'repoDeleteFile', tags: ['repository'], summary: 'Delete a file in a repository',
      params: FileParams, body: DeleteFileOptions, response: { 200: FileDeleteResponse, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const body = request.body;
    const out = await change(request, [{ operation: 'delete', path: request.params['*'], sha: body.sha }], commonOptions(body));
    return { content: null, commit: out.commit, verification: out.verification };
  });

  app.post<{ Params: Params; Body: Static<typeof ChangeFilesOptions> }>('/api/v1/repos/:owner/:repo/contents', {
    schema: {
      operationId: 'repoChangeFiles', tags: ['repository'], summary: 'Modify multiple files in a repository',
      params: OwnerRepoParams, body: ChangeFilesOptions, response: { 201: FilesResponse, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const body = request.body;
    const files = body.files.map((f) => ({
      operation: f.operation as FileChangeInput['operation'], path: f.path, fromPath: f.from_path, sha: f.sha, content: decodeBase64(f.content ?? ''),
    }));
    const out = await change(request, files, commonOptions(body));
    reply.code(201);
    return out;
  });
}

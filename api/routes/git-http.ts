// Git smart HTTP at /{owner}/{repo}.git (and without .git): clone, fetch and push with ordinary
// git (routers/web/repo/githttp.go). Authentication comes from the auth plugin; here: who may read or
// push, and the push's commands checked against branch and tag protection before git runs.
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { canPush, protectionFor } from '../../core/branch-protection.js';
import { ForbiddenError, NotFoundError, ServiceError } from '../../core/errors.js';
import { atLeast, repoAccessMode, type RepoContext } from '../../core/permissions.js';
import { afterPush } from '../../core/push.js';
import { forgetPush, journalPush, landedUpdates } from '../../core/push-journal.js';
import { nowUnix } from '../../db/time.js';
import { repoDiskPath } from '../../core/repositories.js';
import { tagChangeAllowedBy, tagRules } from '../../core/tag-protection.js';
import type { ProtectedTagRow } from '../../db/protected-tags.js';
import { hasScope } from '../../core/auth/scopes.js';
import { reposStore } from '../../db/repos.js';
import { usersStore } from '../../db/users.js';
import {
  advertiseRefs, branchNameOf, decodeRequestBody, isGitService, isValidBranchName, isValidRefName, isZeroSha,
  readReceivePackRequest, readRefs, runServiceRpc, sanitizeGitProtocol, serviceContentType, ProtocolError,
  type GitService, type ReceiveCommand,
} from '../../git/index.js';

const GitParams = Type.Object({ owner: Type.String(), repo: Type.String({ description: 'repository name, optionally ending in .git' }) });
type Params = { owner: string; repo: string };

/** The repository's tag rules, read once per push however many tags it carries. */
type TagRulesOnce = () => Promise<ProtectedTagRow[]>;

/** A 401 that makes git send (or ask for) credentials. */
class GitAuthRequired extends ServiceError {
  constructor(message = 'authentication required') { super(401, message, undefined, { 'www-authenticate': 'Basic realm="."' }); }
}

function noCache(reply: FastifyReply): void {
  reply.header('expires', 'Fri, 01 Jan 1980 00:00:00 GMT');
  reply.header('pragma', 'no-cache');
  reply.header('cache-control', 'no-cache, max-age=0, must-revalidate');
}

/** Why a command of this push is refused, or null when the doer may make it. */
async function refusal(request: FastifyRequest, ctx: RepoContext, cmd: ReceiveCommand, tags: TagRulesOnce): Promise<string | null> {
  const { db } = request.server.services;
  if (!isValidRefName(cmd.ref)) return `invalid reference name ${cmd.ref}`;
  if (cmd.ref.startsWith('refs/tags/')) {
    // Creating, moving and deleting a protected tag alike, as Gitea's pre-receive hook checks.
    const tag = cmd.ref.slice('refs/tags/'.length);
    return (await tagChangeAllowedBy(db, await tags(), tag, request.doer ?? null)) ? null : `Tag ${tag} is protected`;
  }
  const branch = branchNameOf(cmd.ref);
  if (branch === null) return `pushing to ${cmd.ref} is not allowed`;
  if (!isValidBranchName(branch)) return `invalid branch name ${branch}`;
  if (isZeroSha(cmd.newSha)) {
    if (branch === ctx.repo.default_branch) return `the default branch ${branch} cannot be deleted`;
    if (await protectionFor(db, ctx.repo.id, branch)) return `branch ${branch} is protected from deletion`;
    return null;
  }
  if (!(await canPush(db, ctx, branch, request.doer ?? null))) return `not allowed to push to protected branch ${branch}`;
  return null;
}

export async function gitHttpRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  // The pack streams straight to git: the parser hands the raw request over unread.
  app.addContentTypeParser(
    [serviceContentType('git-upload-pack', 'request'), serviceContentType('git-receive-pack', 'request')],
    { bodyLimit: Number.MAX_SAFE_INTEGER },
    (_request, payload, done) => done(null, payload),
  );
  // Credentials the auth plugin refused: git only retries with credentials after this header.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 401) reply.header('www-authenticate', 'Basic realm="."');
    return payload;
  });

  /** The repository, if the doer may use `service` on it; otherwise 401 (ask for credentials), 403 or 404. */
  async function authorize(request: FastifyRequest, params: Params, service: GitService): Promise<RepoContext & { path: string }> {
    const repoName = params.repo.toLowerCase().endsWith('.git') ? params.repo.slice(0, -4) : params.repo;
    const doer = request.doer ?? null;
    const owner = await usersStore(db).byName(params.owner);
    const repo = owner ? await reposStore(db).byOwnerAndName(owner.id, repoName) : undefined;
    const mode = repo && owner ? await repoAccessMode(db, repo, owner, doer) : 'none';
    // Anonymous callers are asked to sign in rather than told whether the repository exists.
    if (!repo || !owner || mode === 'none') throw doer ? new NotFoundError() : new GitAuthRequired();
    const push = service === 'git-receive-pack';
    if (push && !doer) throw new GitAuthRequired();
    const actual = request.auth?.actualUser;
    if (request.auth?.method === 'password' && actual?.totp_secret) {
      throw new GitAuthRequired('Users with two-factor authentication enabled must use a personal access token for git over HTTP');
    }
    const scopes = request.auth?.scopes;
    if (scopes && !hasScope(scopes, push ? 'write' : 'read', 'repository')) throw new ForbiddenError('token does not have the repository scope git needs');
    if (scopes && request.auth?.publicOnly && repo.is_private) throw new ForbiddenError('token scope is limited to public repos');
    if (push && !atLeast(mode, 'write')) throw new ForbiddenError('User permission denied for writing.');
    if (push && repo.is_archived) throw new ForbiddenError('repo is archived');
    return { repo, owner, mode, path: repoDiskPath(config, owner.name, repo.name) };
  }

  for (const suffix of ['/info/refs']) {
    app.get<{ Params: Params; Querystring: { service?: string } }>(`/:owner/:repo${suffix}`, {
      schema: {
        tags: ['git'], summary: 'Smart HTTP ref advertisement', params: GitParams,
        querystring: Type.Object({ service: Type.Optional(Type.String()) }),
      },
    }, async (request, reply) => {
      const service = request.query.service;
      if (!isGitService(service)) throw new ForbiddenError('only the smart HTTP protocol is supported');
      const ctx = await authorize(request, request.params, service);
      const body = await advertiseRefs(ctx.path, service, { gitProtocol: sanitizeGitProtocol(request.headers['git-protocol']) });
      noCache(reply);
      reply.header('content-type', serviceContentType(service, 'advertisement'));
      return reply.send(body);
    });
  }

  app.post<{ Params: Params }>('/:owner/:repo/git-upload-pack', {
    schema: { tags: ['git'], summary: 'Smart HTTP fetch', params: GitParams },
  }, async (request, reply) => {
    const ctx = await authorize(request, request.params, 'git-upload-pack');
    const input = decodeBody(request);
    const child = runServiceRpc(ctx.path, 'git-upload-pack', input, { gitProtocol: sanitizeGitProtocol(request.headers['git-protocol']) });
    child.stderr.resume();
    noCache(reply);
    reply.header('content-type', serviceContentType('git-upload-pack', 'result'));
    return reply.send(child.stdout);
  });

  app.post<{ Params: Params }>('/:owner/:repo/git-receive-pack', {
    schema: { tags: ['git'], summary: 'Smart HTTP push', params: GitParams },
  }, async (request, reply) => {
    const ctx = await authorize(request, request.params, 'git-receive-pack');
    let parsed;
    try {
      parsed = await readReceivePackRequest(decodeBody(request));
    } catch (err) {
      if (err instanceof ProtocolError) throw new ServiceError(400, err.message);
      throw err;
    }
    let rules: Promise<ProtectedTagRow[]> | undefined;
    const tags: TagRulesOnce = () => (rules ??= tagRules(db, ctx.repo.id));
    for (const cmd of parsed.commands) {
      const why = await refusal(request, ctx, cmd, tags);
      if (why) throw new ForbiddenError(why);
    }
    // Whether an update rewrites history is only known once the pack is in: let git refuse
    // non-fast-forward updates when some branch of this push may not be force-pushed.
    let denyNonFastForwards = false;
    for (const cmd of parsed.commands) {
      const branch = branchNameOf(cmd.ref);
      if (branch === null || isZeroSha(cmd.newSha) || isZeroSha(cmd.oldSha)) continue;
      if (!(await canPush(db, ctx, branch, request.doer ?? null, { force: true })) && (await protectionFor(db, ctx.repo.id, branch))) {
        denyNonFastForwards = true;
      }
    }
    // Journalled before git may move anything: a crash before its events are recorded leaves them
    // to the next catch-up (core/push-journal.ts).
    const journalledUnix = nowUnix();
    const journalId = await journalPush(db, ctx.repo.id, request.doer?.id ?? null, parsed.commands);
    let child;
    try {
      child = runServiceRpc(ctx.path, 'git-receive-pack', parsed.body, {
        gitProtocol: sanitizeGitProtocol(request.headers['git-protocol']), denyNonFastForwards,
      });
    } catch (err) {
      await forgetPush(db, journalId);
      throw err;
    }
    child.stderr.resume();
    // The response ends only after the post-receive work, so a client that sees its push finish
    // also sees the pull requests moved.
    const out = new PassThrough();
    child.stdout.pipe(out, { end: false });
    child.once('close', () => {
      void (async () => {
        try {
          // A branch another write moved on from meanwhile (a merge into it, a second push) still had this push.
          const { followed, announced } = landedUpdates(ctx.path, parsed.commands, await readRefs(ctx.path, parsed.commands.map((c) => c.ref)), journalledUnix);
          if (announced.length > 0) {
            const result = await afterPush({ db, config, pullWorkflows: app.services.pullWorkflows }, ctx.repo, { updates: followed, pusherId: request.doer?.id ?? null, journalId, announced });
            for (const problem of result.problems) request.log.warn({ err: problem }, 'post-receive step failed');
          } else {
            await forgetPush(db, journalId);
          }
        } catch (err) {
          request.log.error({ err }, 'post-receive failed');
        } finally {
          out.end();
        }
      })();
    });
    noCache(reply);
    reply.header('content-type', serviceContentType('git-receive-pack', 'result'));
    return reply.send(out);
  });

  function decodeBody(request: FastifyRequest): Readable {
    const body = request.body as Readable | undefined;
    if (!body || typeof (body as Readable).pipe !== 'function') throw new ServiceError(415, 'expected a git request body');
    try {
      return decodeRequestBody(body, request.headers['content-encoding']);
    } catch (err) {
      throw new ServiceError(415, (err as Error).message);
    }
  }
}


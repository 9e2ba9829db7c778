// Pull requests: list, get (by index and by base/head), create, edit (routers/api/v1/repo/pull.go).
// State and base changes are handed to the pull request's workflow so they cannot interleave with
// a merge; everything else is read and written here.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { NotFoundError, ServiceError } from '../../core/errors.js';
import { admitToRepository, assertNotArchived, type RepoContext } from '../../core/permissions.js';
import { repoDiskPath } from '../../core/repositories.js';
import { createPull } from '../../core/pulls/create.js';
import { checkStateChange, editPullFields, mayEditPull } from '../../core/pulls/edit.js';
import { parseHeadSpec, resolveHeadRepository } from '../../core/pulls/head-spec.js';
import { listPulls, parseLabelIds, posterIdOf, type PullListItem, type PullStateFilter } from '../../core/pulls/list.js';
import { workInProgressPrefixes } from '../../core/pulls/wip.js';
import { issuesStore, type IssueRow } from '../../db/issues.js';
import { repoWithPullByNames, type PullRecordExtras } from '../../db/repo-lookups.js';
import { pullsStore, type PullRow } from '../../db/pulls.js';
import { branchRef, isValidBranchName, resolveRef } from '../../git/index.js';
import { changeBaseUpdate, setStateUpdate, type OperationOutcome, type PullKey } from '../../workflows/pull-messages.js';
import { readPaging, setPagingHeaders } from '../paging.js';
import { idempotencyKey, runPullOperation } from '../pull-operations.js';
import { doerOf, publicOnly, repoFromRequest } from '../repo-request.js';
import { ApiError } from '../schemas/issue.js';
import { CreatePullRequestOption, EditPullRequestOption, PullListQuery, PullParams, PullRequest } from '../schemas/pull.js';
import { toApiPull, toApiPulls } from '../serializers/pull.js';
import type { Static } from 'typebox';

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 412: ApiError, 422: ApiError, 423: ApiError };
const OwnerRepo = Type.Object({ owner: Type.String({ maxLength: 255 }), repo: Type.String({ maxLength: 255 }) });
const BaseHeadParams = Type.Object({
  owner: Type.String({ maxLength: 255 }), repo: Type.String({ maxLength: 255 }),
  base: Type.String({ maxLength: 255, description: 'base branch' }),
  '*': Type.String({ maxLength: 600, description: 'head: `branch`, `owner:branch` or `owner/repo:branch`', 'x-param-name': 'head' }),
});

type Params = { owner: string; repo: string };
type IndexParams = Params & { index: number };

/** The repository of a pull request route: 404 when unseen or when its pull requests are disabled (Gitea's mustAllowPulls). */
export async function pullRepoFromRequest(request: FastifyRequest, params: Params): Promise<RepoContext> {
  const ctx = await repoFromRequest(request, params);
  if (!ctx.repo.has_pull_requests) throw new NotFoundError('pull requests are disabled in this repository');
  return ctx;
}

/**
 * The repository (checked as pullRepoFromRequest does: its own 404s first) and its pull request
 * `index` with that pull request's issue, all read in one round trip.
 */
export async function pullFromRequest(request: FastifyRequest, params: IndexParams): Promise<{ ctx: RepoContext; pull: PullRow; issue: IssueRow; extras?: PullRecordExtras }> {
  const found = await repoWithPullByNames(request.server.services.db, params.owner, params.repo, params.index);
  const ctx = await admitToRepository(request.server.services.db, found, { doer: doerOf(request), publicOnly: publicOnly(request) });
  if (!ctx.repo.has_pull_requests) throw new NotFoundError('pull requests are disabled in this repository');
  if (!found?.pull || !found.issue) throw new NotFoundError('pull request does not exist');
  return { ctx, pull: found.pull, issue: found.issue, extras: found.extras };
}

export async function pullRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const serializerDeps = { db, config, wipPrefixes: workInProgressPrefixes(config) };

  async function loadPull(ctx: RepoContext, index: number): Promise<PullListItem> {
    const pull = await pullsStore(db).byIndex(ctx.repo.id, index);
    const issue = pull ? await issuesStore(db).byId(pull.issue_id) : undefined;
    if (!pull || !issue) throw new NotFoundError('pull request does not exist');
    return { pull, issue };
  }

  /** One record as the single-record endpoints send it: with additions, deletions and changed_files. */
  function single(request: FastifyRequest, ctx: RepoContext, item: PullListItem) {
    return toApiPull(serializerDeps, ctx, doerOf(request), item);
  }

  app.get<{ Params: Params; Querystring: Static<typeof PullListQuery> }>('/api/v1/repos/:owner/:repo/pulls', {
    schema: {
      operationId: 'repoListPullRequests',
      tags: ['repository'], summary: "List a repo's pull requests",
      description: 'A `labels` value that is not an integer is answered 422 naming the value; Gitea answers 500, which we do not copy.',
      params: OwnerRepo, querystring: PullListQuery, response: { 200: Type.Array(PullRequest), ...errors },
    },
    config: { scope: 'issue' },
  }, async (request, reply) => {
    const ctx = await pullRepoFromRequest(request, request.params);
    const q = request.query;
    const paging = readPaging(q, config);
    const filter = {
      repoId: ctx.repo.id, state: (q.state || 'open') as PullStateFilter, sort: q.sort, milestoneId: q.milestone || undefined,
      labelIds: parseLabelIds(q.labels), posterId: await posterIdOf(db, q.poster),
    };
    const { items, total } = await listPulls(db, filter, paging);
    setPagingHeaders(request, reply, total, paging, config.APP_URL);
    return toApiPulls(serializerDeps, ctx, doerOf(request), items);
  });

  app.get<{ Params: IndexParams }>('/api/v1/repos/:owner/:repo/pulls/:index', {
    schema: { operationId: 'repoGetPullRequest', tags: ['repository'], summary: 'Get a pull request', params: PullParams, response: { 200: PullRequest, ...errors } },
    config: { scope: 'issue' },
  }, async (request) => {
    const { ctx, pull, issue, extras } = await pullFromRequest(request, request.params);
    return single(request, ctx, { pull, issue, extras });
  });

  app.get<{ Params: Params & { base: string; '*': string } }>('/api/v1/repos/:owner/:repo/pulls/:base/*', {
    schema: { operationId: 'repoGetPullRequestByBaseHead', tags: ['repository'], summary: 'Get a pull request by base and head', params: BaseHeadParams, response: { 200: PullRequest, ...errors } },
    config: { scope: 'issue' },
  }, async (request) => {
    const ctx = await pullRepoFromRequest(request, request.params);
    const head = await resolveHeadRepository(db, ctx, parseHeadSpec(request.params['*']), doerOf(request));
    const pull = await pullsStore(db).latestWithTargets({
      headRepoId: head.repo.id, headBranch: head.branch, baseRepoId: ctx.repo.id, baseBranch: request.params.base,
    });
    const issue = pull ? await issuesStore(db).byId(pull.issue_id) : undefined;
    if (!pull || !issue) throw new NotFoundError('pull request does not exist');
    return single(request, ctx, { pull, issue });
  });

  app.post<{ Params: Params; Body: Static<typeof CreatePullRequestOption> }>('/api/v1/repos/:owner/:repo/pulls', {
    schema: {
      operationId: 'repoCreatePullRequest',
      tags: ['repository'], summary: 'Create a pull request', params: OwnerRepo, body: CreatePullRequestOption,
      response: { 201: PullRequest, ...errors },
    },
    config: { scope: 'issue' },
  }, async (request, reply) => {
    const ctx = await pullRepoFromRequest(request, request.params);
    const doer = requireSignedIn(request);
    assertNotArchived(ctx.repo);
    const pull = await createPull({ db, config, pullWorkflows: app.services.pullWorkflows }, ctx, doer, request.body);
    const issue = (await issuesStore(db).byId(pull.issue_id))!;
    return reply.code(201).send(await single(request, ctx, { pull, issue }));
  });

  function throwIfFailed(outcome: OperationOutcome): void {
    if (outcome.status < 400) return;
    const body = outcome.body as { message?: unknown } | undefined;
    throw new ServiceError(outcome.status, typeof body?.message === 'string' ? body.message : '');
  }

  app.patch<{ Params: IndexParams; Body: Static<typeof EditPullRequestOption> }>('/api/v1/repos/:owner/:repo/pulls/:index', {
    schema: {
      operationId: 'repoEditPullRequest',
      tags: ['repository'], summary: 'Update a pull request. If using deadline only the date will be taken into account, and time of day ignored.',
      description: 'Answers 201 (Gitea\'s contract). The body is protected by `content_version`: send the version you read; if the stored one differs the edit is refused with 400 and nothing changes. State and base changes run in the pull request\'s workflow, one operation at a time with merges.',
      params: PullParams, body: EditPullRequestOption, response: { 201: PullRequest, ...errors },
    },
    config: { scope: 'issue' },
  }, async (request, reply: FastifyReply) => {
    const ctx = await pullRepoFromRequest(request, request.params);
    const doer = requireSignedIn(request);
    const { pull, issue } = await loadPull(ctx, request.params.index);
    // Spec rule 1: 403 with an empty body, as Gitea's ctx.Status(403).
    if (!mayEditPull(ctx, issue, doer)) return reply.code(403).send();
    assertNotArchived(ctx.repo);
    const edit = request.body;
    const state = edit.state !== undefined && edit.state !== null ? checkStateChange(pull, edit.state) : undefined;
    const base = edit.base && edit.base !== pull.base_branch ? edit.base : undefined;
    if (base !== undefined) {
      const path = repoDiskPath(config, ctx.owner.name, ctx.repo.name);
      if (!isValidBranchName(base) || !(await resolveRef(path, branchRef(base)))) throw new NotFoundError(`new base '${base}' not exist`);
    }
    await editPullFields(db, ctx, pull, issue, doer, edit);
    const key: PullKey = { repoId: ctx.repo.id, index: pull.index };
    if (state !== undefined && state !== (issue.is_closed ? 'closed' : 'open')) {
      throwIfFailed(await runPullOperation(app.services, key, setStateUpdate, { doerId: doer.id, state }, idempotencyKey(request, 'setState', key)));
    }
    if (base !== undefined) {
      throwIfFailed(await runPullOperation(app.services, key, changeBaseUpdate, { doerId: doer.id, base }, idempotencyKey(request, 'changeBase', key)));
    }
    return reply.code(201).send(await single(request, ctx, await loadPull(ctx, pull.index)));
  });
}

// Plain issues: create, list, get, edit (Gitea's routers/api/v1/repo/issue.go). Pull requests are
// listed here too (type filter), as in Gitea; their own endpoints live with the pull requests.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError, PreconditionFailedError, UnprocessableError } from '../../core/errors.js';
import { assertNotArchived } from '../../core/permissions.js';
import { createIssue, editIssue, loadIssue } from '../../core/issues.js';
import { issuesStore, type IssueFilter } from '../../db/issues.js';
import { labelsStore } from '../../db/labels.js';
import { milestonesStore } from '../../db/milestones.js';
import { usersStore, USER_TYPE } from '../../db/users.js';
import { readPaging, setPagingHeaders, PagingQuery } from '../paging.js';
import { renderIssue, renderIssues } from '../serializers/issue.js';
import { ApiError, CreateIssueOption, EditIssueOption, Issue, IssueParams, OwnerRepoParams } from '../schemas/issue.js';
import { repoForRequest } from './issues-common.js';
import { idempotencyKey, runPullOperation } from '../pull-operations.js';
import { notifyDependentPulls } from '../../core/pulls/state.js';
import { setStateUpdate, type OperationOutcome } from '../../workflows/pull-messages.js';
import { ServiceError } from '../../core/errors.js';

function throwIfFailed(outcome: OperationOutcome): void {
  if (outcome.status >= 400) throw new ServiceError(outcome.status, String((outcome.body as { message?: string } | undefined)?.message ?? ''));
}

const ListQuery = Type.Object({
  state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')], { description: 'open (default), closed or all' })),
  labels: Type.Optional(Type.String({ maxLength: 2048, description: 'comma separated label names' })),
  q: Type.Optional(Type.String({ maxLength: 255, description: 'search string in titles' })),
  type: Type.Optional(Type.Union([Type.Literal('issues'), Type.Literal('pulls')], { description: 'issues or pulls; both when omitted' })),
  milestones: Type.Optional(Type.String({ maxLength: 2048, description: 'comma separated milestone names or ids' })),
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  before: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  created_by: Type.Optional(Type.String({ maxLength: 255 })),
  assigned_by: Type.Optional(Type.String({ maxLength: 255 })),
  ...PagingQuery,
});
const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 412: ApiError, 422: ApiError, 423: ApiError };
const unix = (iso: string | undefined) => (iso ? Math.floor(Date.parse(iso) / 1000) : undefined);

export async function issueRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const rc = (viewer: import('../../db/users.js').UserRow | null) => ({ db, viewer, appUrl: config.APP_URL });

  app.post<{ Params: Static<typeof OwnerRepoParams>; Body: Static<typeof CreateIssueOption> }>('/api/v1/repos/:owner/:repo/issues', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueCreateIssue', tags: ['issue'], summary: 'Create an issue', params: OwnerRepoParams, body: CreateIssueOption,
      description: 'Labels, milestone, assignees and due date are applied only for writers. Unknown label ids are 422 (Gitea drops them silently).',
      response: { 201: Issue, ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const doer = requireSignedIn(request);
    assertNotArchived(ctx.repo);
    if (!ctx.repo.has_issues) throw new NotFoundError('issues are disabled for this repository');
    const issue = await createIssue(db, ctx, doer, request.body);
    reply.code(201);
    return renderIssue(rc(doer), issue);
  });

  app.get<{ Params: Static<typeof OwnerRepoParams>; Querystring: Static<typeof ListQuery> }>('/api/v1/repos/:owner/:repo/issues', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueListIssues', tags: ['issue'], summary: "List a repository's issues", params: OwnerRepoParams, querystring: ListQuery, response: { 200: Type.Array(Issue), ...errors } },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const q = request.query;
    const filter: IssueFilter = { repoId: ctx.repo.id, keyword: q.q, sinceUnix: unix(q.since), beforeUnix: unix(q.before) };
    const state = q.state ?? 'open';
    if (state !== 'all') filter.isClosed = state === 'closed';
    if (q.type) filter.isPull = q.type === 'pulls';
    let empty = false;
    if (q.labels) {
      const names = q.labels.split(',').map((s) => s.trim()).filter(Boolean);
      const orgId = ctx.owner.type === USER_TYPE.organization ? ctx.owner.id : null;
      const usable = await labelsStore(db).usableIn(ctx.repo.id, orgId);
      filter.labelIds = [];
      for (const name of names) {
        const found = usable.find((l) => l.name === name);
        if (!found) empty = true; else filter.labelIds.push(found.id);
      }
    }
    if (q.milestones) {
      filter.milestoneIds = [];
      for (const part of q.milestones.split(',').map((s) => s.trim()).filter(Boolean)) {
        const m = (/^\d+$/.test(part) ? await milestonesStore(db).byId(ctx.repo.id, Number(part)) : undefined)
          ?? await milestonesStore(db).byName(ctx.repo.id, part);
        if (m) filter.milestoneIds.push(m.id);
      }
    }
    for (const [key, name] of [['posterId', q.created_by], ['assigneeId', q.assigned_by]] as const) {
      if (!name) continue;
      const user = await usersStore(db).byName(name);
      if (!user) throw new UnprocessableError(`user does not exist [name: ${name}]`);
      filter[key] = user.id;
    }
    const paging = readPaging(q, config);
    const store = issuesStore(db);
    const [rows, total] = empty ? [[], 0] : await Promise.all([store.list(filter, paging), store.count(filter)]);
    setPagingHeaders(request, reply, total, paging, config.APP_URL);
    return renderIssues(rc(request.doer ?? null), rows);
  });

  app.get<{ Params: Static<typeof IssueParams> }>('/api/v1/repos/:owner/:repo/issues/:index', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueGetIssue', tags: ['issue'], summary: 'Get an issue', params: IssueParams, response: { 200: Issue, ...errors } },
  }, async (request) => {
    const ctx = await repoForRequest(db, request, request.params);
    return renderIssue(rc(request.doer ?? null), await loadIssue(db, ctx.repo.id, request.params.index));
  });

  app.patch<{ Params: Static<typeof IssueParams>; Body: Static<typeof EditIssueOption> }>('/api/v1/repos/:owner/:repo/issues/:index', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueEditIssue', tags: ['issue'], summary: 'Edit an issue', params: IssueParams, body: EditIssueOption,
      description: 'Answers 201 as Gitea does. Send `content_version` (from the Issue) with `body` to get 400 instead of overwriting a body someone else changed. Closing with open dependencies is 412.',
      response: { 201: Issue, ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForRequest(db, request, request.params);
    const doer = requireSignedIn(request);
    assertNotArchived(ctx.repo);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    const { state, ...rest } = request.body;
    if (state !== undefined && state !== 'open' && state !== 'closed') throw new PreconditionFailedError(`unknown state: ${state.slice(0, 40)}`);
    const edit = issue.is_pull ? rest : { ...rest, state: state as 'open' | 'closed' | undefined };
    const edited0 = await editIssue(db, ctx, issue, doer, edit);
    if (state !== undefined && issue.is_pull) {
      // A pull request's state changes go through its workflow, so they cannot interleave with a merge.
      const key = { repoId: ctx.repo.id, index: issue.index };
      throwIfFailed(await runPullOperation(app.services, key, setStateUpdate, { doerId: doer.id, state }, idempotencyKey(request, 'setState', key)));
    } else if (state !== undefined && state !== (issue.is_closed ? 'closed' : 'open')) {
      // Pull requests that depend on this issue may have become mergeable (or not).
      await notifyDependentPulls(db, app.services.pullWorkflows, issue.id);
    }
    const edited = state !== undefined && issue.is_pull ? await loadIssue(db, ctx.repo.id, issue.index) : edited0;
    reply.code(201);
    return renderIssue(rc(doer), edited);
  });
}

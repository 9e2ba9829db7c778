// The labels of one issue or pull request (Gitea's routers/api/v1/repo/issue_label.go): list, add,
// replace, clear and remove one. Labels are named by id or by name; unusable ones are dropped.
import { requireSignedIn } from '../plugins/auth.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { loadIssue } from '../../core/issues.js';
import {
  addIssueLabels, assertMayLabel, clearIssueLabels, labelsOfIssue, parseLabelRefs, removeIssueLabel, replaceIssueLabels, resolveLabelRefs,
} from '../../core/issue-labels.js';
import type { RepoContext } from '../../core/permissions.js';
import type { LabelRow } from '../../db/labels.js';
import { toApiLabel } from '../serializers/label.js';
import { ApiError, IssueParams, Label } from '../schemas/issue.js';
import { repoForRequest } from './issues-common.js';

export const IssueLabelsOption = Type.Object({
  labels: Type.Optional(Type.Array(Type.Unknown(), {
    maxItems: 1000,
    description: 'Labels can be a list of integers representing label IDs or a list of strings representing label names',
  })),
}, { title: 'IssueLabelsOption', description: 'IssueLabelsOption a collection of labels' });

const IssueLabelParams = Type.Object({ ...IssueParams.properties, id: Type.Integer({ description: 'id of the label to remove' }) });
const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError };

export async function issueLabelRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  /** Label JSON names where each label lives: the repository's, or the organization's. */
  function render(ctx: RepoContext, labels: LabelRow[]) {
    const fullName = `${ctx.owner.name}/${ctx.repo.name}`;
    return labels.map((l) => toApiLabel(l, l.org_id !== null ? { orgName: ctx.owner.name } : { repoFullName: fullName }, config.APP_URL));
  }

  async function forChange(request: FastifyRequest, params: Static<typeof IssueParams>) {
    const ctx = await repoForRequest(db, request, params);
    const doer = requireSignedIn(request);
    const issue = await loadIssue(db, ctx.repo.id, params.index);
    assertMayLabel(ctx);
    return { ctx, doer, issue };
  }

  app.get<{ Params: Static<typeof IssueParams> }>('/api/v1/repos/:owner/:repo/issues/:index/labels', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueGetLabels', tags: ['issue'], summary: "Get an issue's labels", params: IssueParams, response: { 200: Type.Array(Label), ...errors } },
  }, async (request) => {
    const ctx = await repoForRequest(db, request, request.params);
    const issue = await loadIssue(db, ctx.repo.id, request.params.index);
    return render(ctx, await labelsOfIssue(db, issue.id));
  });

  app.post<{ Params: Static<typeof IssueParams>; Body: Static<typeof IssueLabelsOption> }>('/api/v1/repos/:owner/:repo/issues/:index/labels', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueAddLabel', tags: ['issue'], summary: 'Add a label to an issue', params: IssueParams, body: IssueLabelsOption,
      description: 'Answers 200 with every label the issue then has. Ids or names of labels neither the repository nor its organization has are ignored, as Gitea ignores them.',
      response: { 200: Type.Array(Label), ...errors },
    },
  }, async (request) => {
    const { ctx, doer, issue } = await forChange(request, request.params);
    const labels = await resolveLabelRefs(db, ctx, parseLabelRefs(request.body?.labels ?? []));
    await addIssueLabels(db, issue, labels, doer);
    return render(ctx, await labelsOfIssue(db, issue.id));
  });

  app.put<{ Params: Static<typeof IssueParams>; Body: Static<typeof IssueLabelsOption> }>('/api/v1/repos/:owner/:repo/issues/:index/labels', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueReplaceLabels', tags: ['issue'], summary: "Replace an issue's labels", params: IssueParams, body: IssueLabelsOption,
      response: { 200: Type.Array(Label), ...errors },
    },
  }, async (request) => {
    const { ctx, doer, issue } = await forChange(request, request.params);
    const labels = await resolveLabelRefs(db, ctx, parseLabelRefs(request.body?.labels ?? []));
    await replaceIssueLabels(db, issue, labels, doer);
    return render(ctx, await labelsOfIssue(db, issue.id));
  });

  app.delete<{ Params: Static<typeof IssueParams> }>('/api/v1/repos/:owner/:repo/issues/:index/labels', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueClearLabels', tags: ['issue'], summary: "Remove all labels from an issue", params: IssueParams, response: { 204: Type.Null(), ...errors } },
  }, async (request, reply) => {
    const { doer, issue } = await forChange(request, request.params);
    await clearIssueLabels(db, issue, doer);
    reply.code(204).send();
  });

  app.delete<{ Params: Static<typeof IssueLabelParams> }>('/api/v1/repos/:owner/:repo/issues/:index/labels/:id', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueRemoveLabel', tags: ['issue'], summary: 'Remove a label from an issue', params: IssueLabelParams,
      description: 'A label id that names no label is 422; a label the issue does not carry is 204.',
      response: { 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => {
    const { doer, issue } = await forChange(request, request.params);
    await removeIssueLabel(db, issue, request.params.id, doer);
    reply.code(204).send();
  });
}

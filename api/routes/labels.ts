// Labels of repositories and of organizations (Gitea's routers/api/v1/repo/label.go and org/label.go).
import { requireSignedIn } from '../plugins/auth.js';
import { isOrgMember, isOrgOwner } from '../../core/organizations.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import { assertNotArchived, requireMode } from '../../core/permissions.js';
import { createLabel, deleteLabel, editLabel, getLabel } from '../../core/labels.js';
import { labelsStore, type LabelOwner, type LabelRow } from '../../db/labels.js';
import { usersStore, USER_TYPE, type UserRow } from '../../db/users.js';
import { readPaging, setPagingHeaders, PagingQuery } from '../paging.js';
import { toApiLabel } from '../serializers/label.js';
import { ApiError, CreateLabelOption, EditLabelOption, Label, OrgParams, OwnerRepoParams } from '../schemas/issue.js';
import { repoForRequest } from './issues-common.js';

// Gitea parses the id with ParseInt and lets the lookup answer: 0 and unknown ids are not found.
const LabelIdParam = { id: Type.Integer({ description: 'id of the label' }) };
const RepoLabelParams = Type.Object({ ...OwnerRepoParams.properties, ...LabelIdParam });
const OrgLabelParams = Type.Object({ ...OrgParams.properties, ...LabelIdParam });
const Paging = Type.Object(PagingQuery);
const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };

export async function labelRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;

  // ---- repository labels
  async function repoLabels(request: FastifyRequest, params: { owner: string; repo: string }, write: boolean) {
    const ctx = await repoForRequest(db, request, params);
    if (write) requireSignedIn(request);
    if (write) {
      requireMode(ctx, 'write');
      assertNotArchived(ctx.repo);
    }
    const owner: LabelOwner = { repoId: ctx.repo.id };
    const render = (l: LabelRow) => toApiLabel(l, { repoFullName: `${ctx.owner.name}/${ctx.repo.name}` }, appUrl);
    return { owner, render };
  }

  app.get<{ Params: Static<typeof OwnerRepoParams>; Querystring: Static<typeof Paging> }>('/api/v1/repos/:owner/:repo/labels', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueListLabels', tags: ['issue'], summary: "Get all of a repository's labels", params: OwnerRepoParams, querystring: Paging, response: { 200: Type.Array(Label), ...errors } },
  }, async (request, reply) => {
    const { owner, render } = await repoLabels(request, request.params, false);
    const paging = readPaging(request.query, config);
    const [rows, total] = await Promise.all([labelsStore(db).list(owner, paging), labelsStore(db).count(owner)]);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return rows.map(render);
  });

  app.post<{ Params: Static<typeof OwnerRepoParams>; Body: Static<typeof CreateLabelOption> }>('/api/v1/repos/:owner/:repo/labels', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueCreateLabel', tags: ['issue'], summary: 'Create a label', params: OwnerRepoParams, body: CreateLabelOption, response: { 201: Label, ...errors } },
  }, async (request, reply) => {
    const { owner, render } = await repoLabels(request, request.params, true);
    reply.code(201);
    return render(await createLabel(db, owner, request.body));
  });

  app.get<{ Params: Static<typeof RepoLabelParams> }>('/api/v1/repos/:owner/:repo/labels/:id', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueGetLabel', tags: ['issue'], summary: 'Get a single label', params: RepoLabelParams, response: { 200: Label, ...errors } },
  }, async (request) => {
    const { owner, render } = await repoLabels(request, request.params, false);
    return render(await getLabel(db, owner, request.params.id));
  });

  app.patch<{ Params: Static<typeof RepoLabelParams>; Body: Static<typeof EditLabelOption> }>('/api/v1/repos/:owner/:repo/labels/:id', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueEditLabel', tags: ['issue'], summary: 'Update a label', params: RepoLabelParams, body: EditLabelOption, response: { 200: Label, ...errors } },
  }, async (request) => {
    const { owner, render } = await repoLabels(request, request.params, true);
    return render(await editLabel(db, owner, request.params.id, request.body));
  });

  app.delete<{ Params: Static<typeof RepoLabelParams> }>('/api/v1/repos/:owner/:repo/labels/:id', {
    config: { scope: 'issue' },
    schema: { operationId: 'issueDeleteLabel', tags: ['issue'], summary: 'Delete a label', params: RepoLabelParams, response: { 204: Type.Null(), ...errors } },
  }, async (request, reply) => {
    const { owner } = await repoLabels(request, request.params, true);
    await deleteLabel(db, owner, request.params.id);
    reply.code(204).send();
  });

  // ---- organization labels: everyone who can see the organization reads them, owners write them
  async function orgLabels(request: FastifyRequest, orgName: string, write: boolean) {
    const doer: UserRow | null = write ? requireSignedIn(request) : request.doer ?? null;
    const org = await usersStore(db).byName(orgName);
    if (!org || org.type !== USER_TYPE.organization) throw new NotFoundError('organization does not exist');
    const member = doer !== null && (doer.is_admin || await isOrgMember(db, org.id, doer.id));
    if (org.visibility === 'private' && !member) throw new NotFoundError('organization does not exist');
    if (org.visibility === 'limited' && !doer) throw new NotFoundError('organization does not exist');
    if (write && !(doer!.is_admin || await isOrgOwner(db, org.id, doer!.id))) throw new ForbiddenError('must be an organization owner');
    const owner: LabelOwner = { orgId: org.id };
    const render = (l: LabelRow) => toApiLabel(l, { orgName: org.name }, appUrl);
    return { owner, render };
  }

  app.get<{ Params: Static<typeof OrgParams>; Querystring: Static<typeof Paging> }>('/api/v1/orgs/:org/labels', {
    config: { scope: 'organization' },
    schema: { operationId: 'orgListLabels', tags: ['organization'], summary: "List an organization's labels", params: OrgParams, querystring: Paging, response: { 200: Type.Array(Label), ...errors } },
  }, async (request, reply) => {
    const { owner, render } = await orgLabels(request, request.params.org, false);
    const paging = readPaging(request.query, config);
    const [rows, total] = await Promise.all([labelsStore(db).list(owner, paging), labelsStore(db).count(owner)]);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return rows.map(render);
  });

  app.post<{ Params: Static<typeof OrgParams>; Body: Static<typeof CreateLabelOption> }>('/api/v1/orgs/:org/labels', {
    config: { scope: 'organization' },
    schema: { operationId: 'orgCreateLabel', tags: ['organization'], summary: 'Create a label for an organization', params: OrgParams, body: CreateLabelOption, response: { 201: Label, ...errors } },
  }, async (request, reply) => {
    const { owner, render } = await orgLabels(request, request.params.org, true);
    reply.code(201);
    return render(await createLabel(db, owner, request.body));
  });

  app.get<{ Params: Static<typeof OrgLabelParams> }>('/api/v1/orgs/:org/labels/:id', {
    config: { scope: 'organization' },
    schema: { operationId: 'orgGetLabel', tags: ['organization'], summary: 'Get a single label', params: OrgLabelParams, response: { 200: Label, ...errors } },
  }, async (request) => {
    const { owner, render } = await orgLabels(request, request.params.org, false);
    return render(await getLabel(db, owner, request.params.id));
  });

  app.patch<{ Params: Static<typeof OrgLabelParams>; Body: Static<typeof EditLabelOption> }>('/api/v1/orgs/:org/labels/:id', {
    config: { scope: 'organization' },
    schema: { operationId: 'orgEditLabel', tags: ['organization'], summary: 'Update a label', params: OrgLabelParams, body: EditLabelOption, response: { 200: Label, ...errors } },
  }, async (request) => {
    const { owner, render } = await orgLabels(request, request.params.org, true);
    return render(await editLabel(db, owner, request.params.id, request.body));
  });

  app.delete<{ Params: Static<typeof OrgLabelParams> }>('/api/v1/orgs/:org/labels/:id', {
    config: { scope: 'organization' },
    schema: { operationId: 'orgDeleteLabel', tags: ['organization'], summary: 'Delete a label', params: OrgLabelParams, response: { 204: Type.Null(), ...errors } },
  }, async (request, reply) => {
    const { owner } = await orgLabels(request, request.params.org, true);
    await deleteLabel(db, owner, request.params.id);
    reply.code(204).send();
  });
}

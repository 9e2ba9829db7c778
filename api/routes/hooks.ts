// Webhooks of repositories and organizations (Gitea's routers/api/v1/repo/hook.go, org/hook.go and
// utils/hook.go): list, get, create, edit, delete, and a repository hook's test delivery.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import { createHook, deleteHook, editHook, loadHook } from '../../core/webhooks/hooks.js';
import { recordTestDelivery } from '../../core/webhooks/test-delivery.js';
import { hooksStore } from '../../db/hooks.js';
import { readPaging, PagingQuery, setPagingHeaders, setTotalCount } from '../paging.js';
import { CreateHookOption, EditHookOption, Hook } from '../schemas/hook.js';
import { ApiError } from '../schemas/issue.js';
import { toApiHook } from '../serializers/hook.js';
import { hookSurfaces, wakeQuietly, webhookWorkflows } from './hook-scopes.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError };
const HookId = { id: Type.Integer({ description: 'id of the hook' }) };
const TestQuery = Type.Object({ ref: Type.Optional(Type.String({ maxLength: 1024, description: 'the name of the commit/branch/tag, the default branch if absent' })) });

export async function hookRoutes(app: FastifyInstance): Promise<void> {
  const { db, config, secretKey } = app.services;
  const workflows = webhookWorkflows(app);

  for (const surface of hookSurfaces(app)) {
    const { path, idPrefix: p, tag } = surface;
    const IdParams = Type.Object({ ...(surface.params as unknown as { properties: Record<string, never> }).properties, ...HookId });
    const common = { config: { scope: surface.scope } };
    const listWhat = { repo: 'the hooks in a repository', org: "an organization's webhooks", user: "the authenticated user's webhooks" }[surface.kind];

    app.get<{ Querystring: { page?: number; limit?: number } }>(path, {
      ...common,
      schema: { operationId: `${p}ListHooks`, tags: [tag], summary: `List ${listWhat}`, params: surface.params, querystring: Type.Object(PagingQuery), response: { 200: Type.Array(Hook), ...errors } },
    }, async (request, reply) => {
      const { scope } = await surface.resolve(request);
      const paging = readPaging(request.query, config);
      const { rows, total } = await hooksStore(db).list(scope, paging);
      // Gitea sends a Link header for organizations' and users' hooks, only the count for repositories'.
      if (surface.kind !== 'repo') setPagingHeaders(request, reply, total, paging, config.APP_URL);
      else setTotalCount(reply, total);
      return rows.map((h) => toApiHook(h, secretKey));
    });

    app.get<{ Params: { id: number } }>(`${path}/:id`, {
      ...common,
      schema: { operationId: `${p}GetHook`, tags: [tag], summary: 'Get a hook', params: IdParams, response: { 200: Hook, ...errors } },
    }, async (request) => {
      const { scope } = await surface.resolve(request);
      return toApiHook(await loadHook(db, scope, request.params.id), secretKey);
    });

    app.post<{ Body: Static<typeof CreateHookOption> }>(path, {
      ...common,
      schema: {
        operationId: `${p}CreateHook`, tags: [tag], summary: 'Create a hook', params: surface.params, body: CreateHookOption,
        description: 'Types gitea, gogs and forgejo (Gitea\'s payload). `config.secret` signs every delivery (X-Gitea-Signature, X-Hub-Signature-256) and is never shown back; the Authorization header is stored sealed and shown masked.',
        response: { 201: Hook, ...errors },
      },
    }, async (request, reply) => {
      const { scope } = await surface.resolve(request);
      const hook = await createHook(db, scope, request.body, secretKey);
      if (hook.is_active) await wakeQuietly(request, 'start the webhook dispatcher', () => workflows?.startDispatcher());
      reply.code(201);
      return toApiHook(hook, secretKey);
    });

    app.patch<{ Params: { id: number }; Body: Static<typeof EditHookOption> }>(`${path}/:id`, {
      ...common,
      schema: {
        operationId: `${p}EditHook`, tags: [tag], summary: { repo: 'Edit a hook in a repository', org: 'Update a hook', user: 'Update a hook' }[surface.kind],
        params: IdParams, body: Type.Optional(EditHookOption), response: { 200: Hook, ...errors },
      },
    }, async (request) => {
      const { scope } = await surface.resolve(request);
      const hook = await editHook(db, await loadHook(db, scope, request.params.id), request.body ?? {}, secretKey);
      if (hook.is_active) await wakeQuietly(request, 'start the webhook dispatcher', () => workflows?.startDispatcher());
      return toApiHook(hook, secretKey);
    });

    app.delete<{ Params: { id: number } }>(`${path}/:id`, {
      ...common,
      schema: { operationId: `${p}DeleteHook`, tags: [tag], summary: 'Delete a hook', params: IdParams, response: { 204: Type.Null(), ...errors } },
    }, async (request, reply) => {
      const { scope } = await surface.resolve(request);
      await deleteHook(db, await loadHook(db, scope, request.params.id));
      // Its delivery workflow finds the hook gone and ends.
      await wakeQuietly(request, 'wake the deleted hook\'s workflow', () => workflows?.wakeHook(request.params.id));
      reply.code(204).send();
    });

    if (surface.kind !== 'repo') continue;
    app.post<{ Params: { owner: string; repo: string; id: number }; Querystring: Static<typeof TestQuery> }>(`${path}/:id/tests`, {
      ...common,
      schema: {
        operationId: 'repoTestHook', tags: [tag], summary: 'Test a push webhook', params: IdParams, querystring: TestQuery,
        description: 'Sends the tip of `ref` as a push event, as Gitea does (nothing when the hook does not hear pushes or its branch filter refuses the ref). The delivery shows in the hook\'s deliveries.',
        response: { 204: Type.Null(), ...errors },
      },
    }, async (request, reply) => {
      const { scope, doer, repo } = await surface.resolve(request);
      if (repo!.repo.is_empty) throw new NotFoundError('repository is empty');
      const hook = await loadHook(db, scope, request.params.id);
      const made = await recordTestDelivery({ db, config }, repo!, hook, doer, request.query.ref?.trim() || null);
      if (made) await wakeQuietly(request, 'wake the hook\'s workflow', () => workflows?.wakeHook(hook.id));
      reply.code(204).send();
    });
  }
}

// A hook's deliveries, newest first, and sending one again: this service's extension (Gitea shows
// deliveries only in its web UI), with Gitea-style operationIds beside the hook routes.
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { loadDelivery, redeliver, withPayloads } from '../../core/webhooks/deliveries.js';
import { loadHook } from '../../core/webhooks/hooks.js';
import { deliveriesStore } from '../../db/hooks.js';
import { readPaging, PagingQuery, setPagingHeaders } from '../paging.js';
import { HookDelivery } from '../schemas/hook.js';
import { ApiError } from '../schemas/issue.js';
import { toApiDelivery } from '../serializers/hook.js';
import { hookSurfaces, wakeQuietly, webhookWorkflows } from './hook-scopes.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError };

export async function hookDeliveryRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const workflows = webhookWorkflows(app);
  // A hook's history is paged by Gitea's [webhook] PAGING_NUM.
  const paging = { ...config, DEFAULT_PAGING_NUM: config.WEBHOOK_PAGING_NUM };

  for (const surface of hookSurfaces(app)) {
    const { path, idPrefix: p, tag } = surface;
    const base = (surface.params as unknown as { properties: Record<string, never> }).properties;
    const HookParams = Type.Object({ ...base, id: Type.Integer({ description: 'id of the hook' }) });
    const DeliveryParams = Type.Object({ ...HookParams.properties, delivery: Type.Integer({ description: 'id of the delivery' }) });
    const common = { config: { scope: surface.scope } };

    app.get<{ Params: { id: number }; Querystring: { page?: number; limit?: number } }>(`${path}/:id/deliveries`, {
      ...common,
      schema: {
        operationId: `${p}ListHookDeliveries`, tags: [tag], summary: "List a hook's deliveries", params: HookParams, querystring: Type.Object(PagingQuery),
        description: 'Newest first, WEBHOOK_PAGING_NUM to a page by default: what each sent (headers with the Authorization header masked, body), the last answer (body truncated), its duration and the number of attempts. An extension: Gitea shows deliveries only in its web UI.',
        response: { 200: Type.Array(HookDelivery), ...errors },
      },
    }, async (request, reply) => {
      const { scope } = await surface.resolve(request);
      const hook = await loadHook(db, scope, request.params.id);
      const page = readPaging(request.query, paging);
      const { rows, total } = await deliveriesStore(db).list(hook.id, page);
      setPagingHeaders(request, reply, total, page, config.APP_URL);
      return (await withPayloads(db, rows)).map(({ delivery, payload }) => toApiDelivery(delivery, hook, payload));
    });

    app.get<{ Params: { id: number; delivery: number } }>(`${path}/:id/deliveries/:delivery`, {
      ...common,
      schema: { operationId: `${p}GetHookDelivery`, tags: [tag], summary: 'Get a delivery of a hook', params: DeliveryParams, response: { 200: HookDelivery, ...errors } },
    }, async (request) => {
      const { scope } = await surface.resolve(request);
      const hook = await loadHook(db, scope, request.params.id);
      const { delivery, payload } = await loadDelivery(db, hook, request.params.delivery);
      return toApiDelivery(delivery, hook, payload);
    });

    app.post<{ Params: { id: number; delivery: number } }>(`${path}/:id/deliveries/:delivery/redeliver`, {
      ...common,
      schema: {
        operationId: `${p}RedeliverHookDelivery`, tags: [tag], summary: 'Send a delivery again', params: DeliveryParams,
        description: 'A new delivery of the same payload, with its own delivery id (as Gitea\'s replay), sent in order after what the hook has pending.',
        response: { 202: HookDelivery, ...errors },
      },
    }, async (request, reply) => {
      const { scope } = await surface.resolve(request);
      const hook = await loadHook(db, scope, request.params.id);
      const { delivery, payload } = await loadDelivery(db, hook, request.params.delivery);
      const again = await redeliver(db, hook, delivery);
      await wakeQuietly(request, 'wake the hook\'s workflow', () => workflows?.wakeHook(hook.id));
      reply.code(202);
      return toApiDelivery(again, hook, payload);
    });
  }
}

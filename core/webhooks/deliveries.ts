// Reading a hook's deliveries and sending one again (GitHub's redelivery; Gitea's replay makes a
// new delivery of the same payload, with a new delivery id, as this does).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { NotFoundError } from '../errors.js';
import { deliveriesStore, hookEventsStore, type DeliveryRow, type HookRow } from '../../db/hooks.js';

export interface LoadedDelivery {
  delivery: DeliveryRow;
  payload: string;
}

/** Deliveries with the payload each sent (events are shared by the deliveries made from them). */
export async function withPayloads(db: Knex, rows: DeliveryRow[]): Promise<LoadedDelivery[]> {
  const events = hookEventsStore(db);
  const payloads = new Map<number, string>();
  for (const id of new Set(rows.map((r) => r.event_id))) payloads.set(id, (await events.byId(id))?.payload ?? '');
  return rows.map((delivery) => ({ delivery, payload: payloads.get(delivery.event_id) ?? '' }));
}

export async function loadDelivery(db: Knex, hook: HookRow, id: number): Promise<LoadedDelivery> {
  const delivery = await deliveriesStore(db).ofHook(hook.id, id);
  if (!delivery) throw new NotFoundError();
  return (await withPayloads(db, [delivery]))[0]!;
}

/** A new pending delivery of the same payload; its retry window starts now. */
export async function redeliver(db: Knex, hook: HookRow, original: DeliveryRow): Promise<DeliveryRow> {
  const uuid = randomUUID();
  const now = Date.now();
  await deliveriesStore(db).insertMany([{
    hook_id: hook.id, event_id: original.event_id, uuid, event: original.event, next_attempt_ms: now, created_ms: now, redelivery_of: original.id,
  }]);
  return (await deliveriesStore(db).byUuid(uuid))!;
}

// Store for webhooks, the outbox of their events and the deliveries made from those events.
import type { Knex } from 'knex';

export interface HookRow {
  id: number;
  repo_id: number | null;
  owner_id: number | null;
  name: string;
  type: string;
  url: string;
  content_type: 'json' | 'form';
  secret_sealed: string;
  authorization_sealed: string;
  /** Event kinds chosen (parsed from the JSON column). */
  events: string[];
  branch_filter: string;
  is_active: boolean;
  created_unix: number;
  updated_unix: number;
}

export type HookFields = Omit<HookRow, 'id'>;

export interface HookEventRow {
  id: number;
  repo_id: number;
  event: string;
  action: string;
  doer_id: number | null;
  detail: string;
  payload: string | null;
  dispatched: boolean;
  created_ms: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: number;
  hook_id: number;
  event_id: number;
  uuid: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_ms: number;
  created_ms: number;
  last_attempt_ms: number | null;
  finished_ms: number | null;
  redelivery_of: number | null;
  request_headers: string | null;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  duration_ms: number | null;
  error: string | null;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toHookRow(raw: Record<string, unknown>): HookRow {
  let events: string[] = [];
  try {
    const parsed = JSON.parse(String(raw.events ?? '[]')) as unknown;
    if (Array.isArray(parsed)) events = parsed.map(String);
  } catch {
    // A row written by hand with bad JSON chooses nothing rather than failing every read.
  }
  return {
    id: Number(raw.id), repo_id: num(raw.repo_id), owner_id: num(raw.owner_id), name: String(raw.name ?? ''), type: String(raw.type),
    url: String(raw.url), content_type: raw.content_type === 'form' ? 'form' : 'json', secret_sealed: String(raw.secret_sealed ?? ''),
    authorization_sealed: String(raw.authorization_sealed ?? ''), events, branch_filter: String(raw.branch_filter ?? ''),
    is_active: Boolean(raw.is_active), created_unix: Number(raw.created_unix), updated_unix: Number(raw.updated_unix),
  };
}

function hookColumns(fields: Partial<HookFields>): Record<string, unknown> {
  const { events, ...rest } = fields;
  return events === undefined ? rest : { ...rest, events: JSON.stringify(events) };
}

function toEventRow(raw: Record<string, unknown>): HookEventRow {
  return {
    id: Number(raw.id), repo_id: Number(raw.repo_id), event: String(raw.event), action: String(raw.action ?? ''), doer_id: num(raw.doer_id),
    detail: String(raw.detail ?? '{}'), payload: raw.payload === null || raw.payload === undefined ? null : String(raw.payload),
    dispatched: Boolean(raw.dispatched), created_ms: Number(raw.created_ms),
  };
}

function toDeliveryRow(raw: Record<string, unknown>): DeliveryRow {
  const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    id: Number(raw.id), hook_id: Number(raw.hook_id), event_id: Number(raw.event_id), uuid: String(raw.uuid), event: String(raw.event),
    status: String(raw.status) as DeliveryStatus, attempts: Number(raw.attempts), next_attempt_ms: Number(raw.next_attempt_ms),
    created_ms: Number(raw.created_ms), last_attempt_ms: num(raw.last_attempt_ms), finished_ms: num(raw.finished_ms),
    redelivery_of: num(raw.redelivery_of), request_headers: str(raw.request_headers), response_status: num(raw.response_status),
    response_headers: str(raw.response_headers), response_body: str(raw.response_body), duration_ms: num(raw.duration_ms), error: str(raw.error),
  };
}

export interface HookScope {
  repoId?: number;
  ownerId?: number;
}

function scoped(q: Knex.QueryBuilder, scope: HookScope): Knex.QueryBuilder {
  if (scope.repoId !== undefined) return q.where('repo_id', scope.repoId);
  return q.where('owner_id', scope.ownerId ?? -1);
}

export function hooksStore(db: Knex) {
  return {
    async insert(fields: HookFields, trx: Knex = db): Promise<number> {
      const [id] = await trx('webhooks').insert(hookColumns(fields));
      return Number(id);
    },
    async update(id: number, fields: Partial<HookFields>, trx: Knex = db): Promise<void> {
      await trx('webhooks').where({ id }).update(hookColumns(fields));
    },
    async remove(id: number, trx: Knex = db): Promise<void> {
      await trx('webhook_deliveries').where({ hook_id: id }).delete();
      await trx('webhooks').where({ id }).delete();
    },
    async byId(id: number, trx: Knex = db): Promise<HookRow | undefined> {
      const raw = await trx('webhooks').where({ id }).first();
      return raw ? toHookRow(raw) : undefined;
    },
    /** The hook with this id in this repository or of this owner; undefined otherwise. */
    async inScope(scope: HookScope, id: number, trx: Knex = db): Promise<HookRow | undefined> {
      const raw = await scoped(trx('webhooks'), scope).andWhere({ id }).first();
      return raw ? toHookRow(raw) : undefined;
    },
    async list(scope: HookScope, page: { limit: number; offset: number }, trx: Knex = db): Promise<{ rows: HookRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        scoped(trx('webhooks'), scope).orderBy('id').limit(page.limit).offset(page.offset),
        scoped(trx('webhooks'), scope).count({ n: '*' }).first(),
      ]);
      return { rows: rows.map(toHookRow), total: Number(count?.n ?? 0) };
    },
    /** Active hooks of the repository and of its owner, which hear the repository's events. */
    async activeFor(repoId: number, ownerId: number, trx: Knex = db): Promise<HookRow[]> {
      const rows = await trx('webhooks').where('is_active', true)
        .andWhere((q) => q.where('repo_id', repoId).orWhere('owner_id', ownerId)).orderBy('id');
      return rows.map(toHookRow);
    },
    async anyExists(trx: Knex = db): Promise<boolean> {
      return Boolean(await trx('webhooks').first('id'));
    },
    /** Whether any active hook hears the repository's events (one indexed look-up, inside the change's transaction). */
    async anyActiveFor(repoId: number, trx: Knex = db): Promise<boolean> {
      const row = await trx('webhooks').where('is_active', true)
        .andWhere((q) => q.where('repo_id', repoId).orWhereIn('owner_id', trx('repositories').where('id', repoId).select('owner_id')))
        .first('id');
      return Boolean(row);
    },
  };
}

export function hookEventsStore(db: Knex) {
  return {
    async insert(row: Omit<HookEventRow, 'id' | 'payload' | 'dispatched'> & { payload?: string | null; dispatched?: boolean }, trx: Knex = db): Promise<number> {
      const [id] = await trx('webhook_events').insert({ ...row, payload: row.payload ?? null, dispatched: row.dispatched ?? false });
      return Number(id);
    },
    /** The oldest events not yet turned into deliveries. */
    async undispatched(limit: number, trx: Knex = db): Promise<HookEventRow[]> {
      const rows = await trx('webhook_events').where('dispatched', false).orderBy('id').limit(limit);
      return rows.map(toEventRow);
    },
    async hasUndispatched(trx: Knex = db): Promise<boolean> {
      return Boolean(await trx('webhook_events').where('dispatched', false).first('id'));
    },
    async byId(id: number, trx: Knex = db): Promise<HookEventRow | undefined> {
      const raw = await trx('webhook_events').where({ id }).first();
      return raw ? toEventRow(raw) : undefined;
    },
    /** The payloads of these events, by event id (one query for a batch of deliveries). */
    async payloadsOf(ids: number[], trx: Knex = db): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map();
      const rows = await trx('webhook_events').whereIn('id', [...new Set(ids)]).whereNotNull('payload').select('id', 'payload');
      return new Map(rows.map((r: { id: unknown; payload: unknown }) => [Number(r.id), String(r.payload)]));
    },
    /** Keeps the payload for the deliveries (and redeliveries) made from it; false when already dispatched. */
    async markDispatched(id: number, payload: string | null, trx: Knex = db): Promise<boolean> {
      return Number(await trx('webhook_events').where({ id, dispatched: false }).update({ dispatched: true, payload })) > 0;
    },
    /** An event no hook took (or whose subject is gone) is not kept. */
    async remove(id: number, trx: Knex = db): Promise<void> {
      await trx('webhook_events').where({ id }).delete();
    },
    /** Events left with no delivery (their hooks' history pruned) go too. */
    async removeOrphans(ids: number[], trx: Knex = db): Promise<void> {
      if (ids.length === 0) return;
      await trx('webhook_events').whereIn('id', ids).where('dispatched', true)
        .whereNotExists(trx('webhook_deliveries as d').whereRaw('d.event_id = webhook_events.id').select('d.id')).delete();
    },
  };
}

export type DeliveryInsert = Pick<DeliveryRow, 'hook_id' | 'event_id' | 'uuid' | 'event' | 'next_attempt_ms' | 'created_ms'> & { redelivery_of?: number | null };

export type AttemptOutcome = Partial<Pick<DeliveryRow,
  'status' | 'next_attempt_ms' | 'finished_ms' | 'request_headers' | 'response_status' | 'response_headers' | 'response_body' | 'duration_ms' | 'error'>>;

export function deliveriesStore(db: Knex) {
  return {
    async insertMany(rows: DeliveryInsert[], trx: Knex = db): Promise<void> {
      if (rows.length === 0) return;
      await trx('webhook_deliveries').insert(rows.map((r) => ({ ...r, status: 'pending', attempts: 0, redelivery_of: r.redelivery_of ?? null })));
    },
    async byUuid(uuid: string, trx: Knex = db): Promise<DeliveryRow | undefined> {
      const raw = await trx('webhook_deliveries').where({ uuid }).first();
      return raw ? toDeliveryRow(raw) : undefined;
    },
    async ofHook(hookId: number, id: number, trx: Knex = db): Promise<DeliveryRow | undefined> {
      const raw = await trx('webhook_deliveries').where({ hook_id: hookId, id }).first();
      return raw ? toDeliveryRow(raw) : undefined;
    },
    /** Newest first, as Gitea lists a hook's history. */
    async list(hookId: number, page: { limit: number; offset: number }, trx: Knex = db): Promise<{ rows: DeliveryRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        trx('webhook_deliveries').where({ hook_id: hookId }).orderBy('id', 'desc').limit(page.limit).offset(page.offset),
        trx('webhook_deliveries').where({ hook_id: hookId }).count({ n: '*' }).first(),
      ]);
      return { rows: rows.map(toDeliveryRow), total: Number(count?.n ?? 0) };
    },
    /** The hook's pending deliveries in the order their events happened. */
    async pending(hookId: number, limit: number, trx: Knex = db): Promise<DeliveryRow[]> {
      const rows = await trx('webhook_deliveries').where({ hook_id: hookId, status: 'pending' }).orderBy('id').limit(limit);
      return rows.map(toDeliveryRow);
    },
    async countPending(hookId: number, trx: Knex = db): Promise<number> {
      const row = await trx('webhook_deliveries').where({ hook_id: hookId, status: 'pending' }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /**
     * Counts attempts before they are made: a worker that dies during one leaves it counted (and
     * those of the claimed deliveries it never reached, which saveOutcomes would have put back).
     */
    async claim(ids: number[], nowMs: number, trx: Knex = db): Promise<void> {
      if (ids.length === 0) return;
      await trx('webhook_deliveries').whereIn('id', ids).update({ attempts: trx.raw('attempts + 1'), last_attempt_ms: nowMs });
    },
    async recordOutcome(id: number, outcome: AttemptOutcome, trx: Knex = db): Promise<void> {
      await trx('webhook_deliveries').where({ id }).update(outcome);
    },
    /** Writes a batch's rows as they now are, in one statement. */
    async saveOutcomes(rows: DeliveryRow[], trx: Knex = db): Promise<void> {
      if (rows.length === 0) return;
      await trx('webhook_deliveries').insert(rows).onConflict('id').merge([
        'status', 'attempts', 'next_attempt_ms', 'last_attempt_ms', 'finished_ms', 'request_headers', 'response_status', 'response_headers',
        'response_body', 'duration_ms', 'error',
      ]);
    },
    /** Hooks with a pending delivery that fell due before `dueBeforeMs` (nobody may be delivering them). */
    async hooksWithOverdue(dueBeforeMs: number, limit: number, trx: Knex = db): Promise<number[]> {
      const rows = await trx('webhook_deliveries').where('status', 'pending').andWhere('next_attempt_ms', '<', dueBeforeMs)
        .distinct('hook_id').limit(limit);
      return rows.map((r: { hook_id: unknown }) => Number(r.hook_id));
    },
    /** Deletes the hook's finished deliveries beyond the newest `keep`; answers the events they came from. */
    async pruneFinished(hookId: number, keep: number, trx: Knex = db): Promise<number[]> {
      const cutoff = await trx('webhook_deliveries').where({ hook_id: hookId }).whereNot('status', 'pending')
        .orderBy('id', 'desc').offset(keep).first('id');
      if (!cutoff) return [];
      const old = trx('webhook_deliveries').where({ hook_id: hookId }).whereNot('status', 'pending').andWhere('id', '<=', Number(cutoff.id));
      const events = (await old.clone().distinct('event_id')).map((r: { event_id: unknown }) => Number(r.event_id));
      await old.clone().delete();
      return events;
    },
  };
}

/** Account names by primary e-mail (lower-cased), for the usernames of commit authors in payloads. */
export async function userNamesByEmail(db: Knex, emails: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(emails.map((e) => e.toLowerCase()).filter(Boolean))];
  if (wanted.length === 0) return new Map();
  const rows = await db('users').whereIn('lower_email', wanted).andWhere('type', 0).select('lower_email', 'name');
  return new Map(rows.map((r: { lower_email: unknown; name: unknown }) => [String(r.lower_email), String(r.name)]));
}

// Turns recorded events into deliveries: for each event (oldest first) the hooks that hear it (active
// hooks of the repository and of its owner, the kind chosen, the branch filter passed), its payload
// built once, and one delivery per hook with its own delivery id.
import { randomUUID } from 'node:crypto';
import { deliveriesStore, hookEventsStore, hooksStore, type DeliveryInsert, type HookEventRow, type HookRow } from '../../db/hooks.js';
import { branchFilterPasses } from './branch-filter.js';
import { filtersByBranch, hookHears, type HookEventType } from './events.js';
import { PayloadContext, type PayloadDeps } from './payloads/context.js';
import { buildPayloadText, eventDetail } from './payloads/index.js';

/** Payloads built at once in one batch: each costs a few queries and sometimes git. */
const BUILD_CONCURRENCY = 4;

export interface DispatchOutcome {
  /** Events taken from the outbox (dispatched or dropped). */
  events: number;
  /** Hooks that got new deliveries, to wake. */
  hookIds: number[];
}

function hearing(hooks: HookRow[], row: HookEventRow): HookRow[] {
  const event = row.event as HookEventType;
  const detail = eventDetail(row);
  const ref = detail.kind === 'ref' ? detail.ref : null;
  return hooks.filter((h) => hookHears(h.events, event) && (!filtersByBranch(event) || ref === null || branchFilterPasses(h.branch_filter, ref)));
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }));
  return out;
}

class AlreadyDispatched extends Error {}

interface Planned {
  row: HookEventRow;
  hooks: HookRow[];
  payload: string | null;
}

/** Dispatches up to `limit` events; safe to run again after a crash (an event is dispatched once). */
export async function dispatchHookEvents(deps: PayloadDeps, limit: number): Promise<DispatchOutcome> {
  const { db } = deps;
  const rows = await hookEventsStore(db).undispatched(limit);
  if (rows.length === 0) return { events: 0, hookIds: [] };
  const contexts = new Map<number, Promise<PayloadContext | null>>();
  const contextOf = (repoId: number) => {
    let pc = contexts.get(repoId);
    if (!pc) contexts.set(repoId, (pc = PayloadContext.forRepository(deps, repoId)));
    return pc;
  };
  const hooksOf = new Map<number, Promise<HookRow[]>>();
  const planned = await mapLimited(rows, BUILD_CONCURRENCY, async (row): Promise<Planned> => {
    const pc = await contextOf(row.repo_id);
    if (!pc) return { row, hooks: [], payload: null };
    let all = hooksOf.get(row.repo_id);
    if (!all) hooksOf.set(row.repo_id, (all = hooksStore(db).activeFor(row.repo_id, pc.view.owner.id)));
    const hooks = hearing(await all, row);
    return { row, hooks, payload: hooks.length ? await buildPayloadText(pc, row) : null };
  });

  const woken = new Set<number>();
  try {
    await db.transaction(async (trx) => {
      const events = hookEventsStore(trx);
      const deliveries: DeliveryInsert[] = [];
      const now = Date.now();
      for (const { row, hooks, payload } of planned) {
        if (payload === null || hooks.length === 0) {
          await events.remove(row.id, trx);
          continue;
        }
        // Another dispatcher (a retried activity whose first attempt still runs) got here first.
        if (!(await events.markDispatched(row.id, payload, trx))) throw new AlreadyDispatched();
        for (const hook of hooks) {
          deliveries.push({ hook_id: hook.id, event_id: row.id, uuid: randomUUID(), event: row.event, next_attempt_ms: now, created_ms: row.created_ms });
          woken.add(hook.id);
        }
      }
      // One statement per few hundred rows: a burst of events becomes its deliveries in few round trips.
      for (let i = 0; i < deliveries.length; i += 200) await deliveriesStore(trx).insertMany(deliveries.slice(i, i + 200), trx);
    });
  } catch (err) {
    if (err instanceof AlreadyDispatched) return { events: 0, hookIds: [] };
    throw err;
  }
  return { events: rows.length, hookIds: [...woken] };
}

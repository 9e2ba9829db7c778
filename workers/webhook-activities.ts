// Activities of the webhook workflows: dispatching recorded events into deliveries (polling the
// outbox, woken at once by this process's commits), and delivering one hook's deliveries
// (workers/webhook-deliver.ts).
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { RetryPolicy } from '../core/webhooks/delivery-policy.js';
import { dispatchHookEvents } from '../core/webhooks/dispatch.js';
import { onHookEventsCommitted } from '../core/webhooks/outbox.js';
import { deliveriesStore, hookEventsStore, hooksStore } from '../db/hooks.js';
import type { DispatchRound, WebhookActivities } from '../workflows/webhook-messages.js';
import { HostAllowList } from './webhook-address.js';
import { WebhookWorkflows } from './webhook-client.js';
import { deliverHook } from './webhook-deliver.js';
import type { Resolver, WebhookHttpSettings } from './webhook-http.js';

export interface WebhookActivityDeps {
  db: Knex;
  config: {
    APP_URL: string; APP_DATA_PATH: string; WORK_IN_PROGRESS_PREFIXES: string;
    TEMPORAL_TASK_QUEUE: string; TEMPORAL_WORKFLOW_ID_PREFIX: string;
    WEBHOOK_ALLOWED_HOST_LIST: string; WEBHOOK_SKIP_TLS_VERIFY: boolean; WEBHOOK_DELIVER_TIMEOUT: number;
    WEBHOOK_RETRY_MIN_BACKOFF_MS: number; WEBHOOK_RETRY_MAX_BACKOFF_MS: number; WEBHOOK_RETRY_WINDOW: number;
  };
  /** Opens the hooks' sealed secrets (the server secret the API sealed them with). */
  secretKey: Buffer;
  /** Host name resolution; the system resolver unless given. */
  resolve?: Resolver;
}

/** One dispatch activity runs this long, then hands back to its workflow (which runs it again). */
const DISPATCH_ROUND_MS = 60_000;
/** How often the outbox is looked at when this process's commits do not wake the dispatcher. */
const POLL_MS = 500;
const DISPATCH_BATCH = 200;
const GATHER_MS = 50;
const WAKE_INTERVAL_MS = 250;
/** Pending deliveries this late are woken again, in case the signal that should have woken their hook was lost. */
const OVERDUE_MS = 30_000;

function activityContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

/** Heartbeats every second while `fn` runs, so a dead worker is noticed within the heartbeat timeout. */
async function heartbeating<T>(fn: () => Promise<T>): Promise<T> {
  const context = activityContext();
  const timer = context ? setInterval(() => context.heartbeat(), 1000) : null;
  try {
    return await fn();
  } finally {
    if (timer) clearInterval(timer);
  }
}

export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities {
  const { config } = deps;
  const http: WebhookHttpSettings = {
    allowList: HostAllowList.parse(config.WEBHOOK_ALLOWED_HOST_LIST),
    skipTlsVerify: config.WEBHOOK_SKIP_TLS_VERIFY,
    timeoutMs: config.WEBHOOK_DELIVER_TIMEOUT * 1000,
    resolve: deps.resolve,
  };
  const policy: RetryPolicy = {
    minBackoffMs: config.WEBHOOK_RETRY_MIN_BACKOFF_MS, maxBackoffMs: config.WEBHOOK_RETRY_MAX_BACKOFF_MS, windowMs: config.WEBHOOK_RETRY_WINDOW * 1000,
  };
  const workflowsOf = (context: Context | null) => (context ? new WebhookWorkflows(context.client, config) : null);

  return {
    dispatchEvents: () => heartbeating(async (): Promise<DispatchRound> => {
      const context = activityContext();
      const workflows = workflowsOf(context);
      let woken = false;
      let wake: (() => void) | null = null;
      const off = onHookEventsCommitted(() => {
        woken = true;
        wake?.();
      });
      const until = Date.now() + DISPATCH_ROUND_MS;
      let lastSweep = 0;
      try {
        let lastRound = 0;
        // Each hook's workflow is signalled at most every WAKE_INTERVAL_MS: a busy one finds new
        // deliveries itself before it goes idle, and one owed a signal gets it when the interval ends.
        const lastWake = new Map<number, number>();
        const owed = new Set<number>();
        const wakeDue = async (ids: Iterable<number>) => {
          for (const id of ids) owed.add(id);
          const now = Date.now();
          const due = [...owed].filter((id) => now - (lastWake.get(id) ?? 0) >= WAKE_INTERVAL_MS);
          for (const id of due) {
            owed.delete(id);
            lastWake.set(id, now);
          }
          await Promise.all(due.map((id) => workflows?.wakeHook(id)));
        };
        while (Date.now() < until && !context?.cancellationSignal.aborted) {
          // A burst of commits is gathered into rounds at most GATHER_MS apart: each round signals
          // every hook it fed, and signals (workflow tasks on the Temporal server) cost more than waiting.
          const gap = lastRound + GATHER_MS - Date.now();
          if (gap > 0) await new Promise((r) => setTimeout(r, gap));
          lastRound = Date.now();
          woken = false;
          const out = await dispatchHookEvents(deps, DISPATCH_BATCH);
          await wakeDue(out.hookIds);
          if (out.events === DISPATCH_BATCH) continue;
          if (Date.now() - lastSweep > OVERDUE_MS) {
            lastSweep = Date.now();
            for (const hookId of await deliveriesStore(deps.db).hooksWithOverdue(Date.now() - OVERDUE_MS, 100)) await workflows?.wakeHook(hookId);
            if (!(await hooksStore(deps.db).anyExists()) && !(await hookEventsStore(deps.db).hasUndispatched())) return { noHooks: true };
          }
          if (woken) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, owed.size > 0 ? WAKE_INTERVAL_MS : POLL_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
            context?.cancellationSignal.addEventListener('abort', wake, { once: true });
          });
          wake = null;
        }
        // Signals still owed go now: the next round starts with none.
        await Promise.all([...owed].map((id) => workflows?.wakeHook(id)));
        return { noHooks: false };
      } finally {
        off();
      }
    }),

    deliverPending: (hookId) => heartbeating(() => deliverHook({
      db: deps.db, secretKey: deps.secretKey, http, policy, cancelled: () => activityContext()?.cancellationSignal.aborted ?? false,
    }, hookId)),
  };
}

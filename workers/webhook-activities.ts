// Activities of the webhook workflows: dispatching recorded events into deliveries, and delivering
// one hook's deliveries in order with its secret, its Authorization header and the address checks.
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { openSecret } from '../core/auth/secret-box.js';
import { faultPoint } from '../core/fault-points.js';
import { judgeAttempt, nextAttemptAt, type AttemptResult, type RetryPolicy } from '../core/webhooks/delivery-policy.js';
import { dispatchHookEvents } from '../core/webhooks/dispatch.js';
import type { HookEventType } from '../core/webhooks/events.js';
import { onHookEventsCommitted } from '../core/webhooks/outbox.js';
import { deliveryRequest, displayUrl, recordedHeaders, type DeliveryTarget } from '../core/webhooks/request.js';
import { deliveriesStore, hookEventsStore, hooksStore, type AttemptOutcome, type DeliveryRow, type HookRow } from '../db/hooks.js';
import { reposStore } from '../db/repos.js';
import { usersStore, USER_TYPE } from '../db/users.js';
import type { DeliveryRound, DispatchRound, WebhookActivities } from '../workflows/webhook-messages.js';
import { HostAllowList } from './webhook-address.js';
import { WebhookWorkflows } from './webhook-client.js';
import { sendDelivery, type Resolver, type WebhookHttpSettings } from './webhook-http.js';

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
/** Pending deliveries this late are woken again, in case the signal that should have woken their hook was lost. */
const OVERDUE_MS = 30_000;
/** A delivery round hands back to its workflow after this long (history stays short, the memo current). */
const DELIVERY_ROUND_MS = 20_000;
/** Finished deliveries kept per hook for the deliveries list; older ones are deleted. */
export const DELIVERIES_KEPT = 1000;

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

async function targetOf(deps: WebhookActivityDeps, hook: HookRow): Promise<DeliveryTarget & { owner: string }> {
  let targetType = 'repository';
  let owner = '';
  if (hook.repo_id !== null) {
    const repo = await reposStore(deps.db).byId(hook.repo_id);
    const repoOwner = repo ? await usersStore(deps.db).byId(repo.owner_id) : undefined;
    owner = repo && repoOwner ? `${repoOwner.name}/${repo.name}` : '';
  } else {
    const account = await usersStore(deps.db).byId(hook.owner_id ?? 0);
    targetType = account?.type === USER_TYPE.organization ? 'organization' : 'user';
    owner = account?.name ?? '';
  }
  return {
    url: hook.url, contentType: hook.content_type, targetType, owner,
    secret: hook.secret_sealed ? openSecret(hook.secret_sealed, deps.secretKey) ?? '' : '',
    authorization: hook.authorization_sealed ? openSecret(hook.authorization_sealed, deps.secretKey) ?? '' : '',
  };
}

function outcomeOf(result: AttemptResult): AttemptOutcome {
  return result.kind === 'response'
    ? { response_status: result.response.status, response_headers: JSON.stringify(result.response.headers), response_body: result.response.body, duration_ms: result.durationMs, error: null }
    : { response_status: null, response_headers: null, response_body: null, duration_ms: result.durationMs, error: result.message };
}

function describe(result: AttemptResult): string {
  return result.kind === 'response' ? `HTTP ${result.response.status}` : result.message.slice(0, 120);
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

  async function finish(d: DeliveryRow, status: 'delivered' | 'failed', fields: AttemptOutcome = {}): Promise<void> {
    await deliveriesStore(deps.db).recordOutcome(d.id, { ...fields, status, finished_ms: Date.now() });
  }

  /** One attempt of one delivery; answers when the next attempt is due (null: it is finished). */
  async function attempt(hook: HookRow, target: DeliveryTarget, d: DeliveryRow): Promise<{ retryAt: number | null; outcome: string }> {
    const event = await hookEventsStore(deps.db).byId(d.event_id);
    if (!event?.payload) {
      await finish(d, 'failed', { error: 'the event of this delivery is gone' });
      return { retryAt: null, outcome: 'failed: event gone' };
    }
    const request = deliveryRequest(target, d.event as HookEventType, d.uuid, event.payload);
    const now = Date.now();
    await deliveriesStore(deps.db).startAttempt(d.id, now);
    faultPoint('webhook:before-send');
    const result = await sendDelivery(request, http);
    faultPoint('webhook:after-send');
    const recorded: AttemptOutcome = {
      ...outcomeOf(result),
      request_headers: JSON.stringify({ url: displayUrl(request.url), http_method: request.method, headers: recordedHeaders(request.headers) }),
    };
    const verdict = judgeAttempt(result);
    if (verdict === 'retry') {
      const at = nextAttemptAt(d.attempts + 1, d.created_ms, Date.now(), policy);
      if (at !== null) {
        await deliveriesStore(deps.db).recordOutcome(d.id, { ...recorded, next_attempt_ms: at });
        return { retryAt: at, outcome: `retrying after ${describe(result)}` };
      }
      await finish(d, 'failed', { ...recorded, error: `${recorded.error ?? describe(result)}; given up after ${d.attempts + 1} attempts` });
      return { retryAt: null, outcome: `given up after ${describe(result)}` };
    }
    await finish(d, verdict, recorded);
    return { retryAt: null, outcome: `${verdict}: ${describe(result)}` };
  }

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
        while (Date.now() < until && !context?.cancellationSignal.aborted) {
          woken = false;
          const out = await dispatchHookEvents(deps, DISPATCH_BATCH);
          for (const hookId of out.hookIds) await workflows?.wakeHook(hookId);
          if (out.events === DISPATCH_BATCH) continue;
          if (Date.now() - lastSweep > OVERDUE_MS) {
            lastSweep = Date.now();
            for (const hookId of await deliveriesStore(deps.db).hooksWithOverdue(Date.now() - OVERDUE_MS, 100)) await workflows?.wakeHook(hookId);
            if (!(await hooksStore(deps.db).anyExists()) && !(await hookEventsStore(deps.db).hasUndispatched())) return { noHooks: true };
          }
          if (woken) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, POLL_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
            context?.cancellationSignal.addEventListener('abort', wake, { once: true });
          });
          wake = null;
        }
        return { noHooks: false };
      } finally {
        off();
      }
    }),

    deliverPending: (hookId) => heartbeating(async (): Promise<DeliveryRound> => {
      const store = deliveriesStore(deps.db);
      const hook = await hooksStore(deps.db).byId(hookId);
      const idle = { target: '', owner: '', pending: 0, lastDelivery: '', lastOutcome: '' };
      if (!hook) return { hookGone: true, more: false, nextDueMs: null, memo: idle };
      const target = await targetOf(deps, hook);
      const memo = { ...idle, target: displayUrl(hook.url), owner: target.owner };
      const started = Date.now();
      const cancelled = () => activityContext()?.cancellationSignal.aborted ?? false;
      const round = async (): Promise<Omit<DeliveryRound, 'memo'>> => {
        for (;;) {
          const batch = await store.pending(hookId, 20);
          for (const d of batch) {
            if (!hook.is_active) {
              await finish(d, 'failed', { error: 'the hook is not active' });
              continue;
            }
            if (d.next_attempt_ms > Date.now()) return { hookGone: false, more: false, nextDueMs: d.next_attempt_ms };
            const { retryAt, outcome } = await attempt(hook, target, d);
            memo.lastDelivery = d.uuid;
            memo.lastOutcome = outcome;
            // Later deliveries wait for this one: a hook hears its events in the order they happened.
            if (retryAt !== null) return { hookGone: false, more: false, nextDueMs: retryAt };
            if (Date.now() - started > DELIVERY_ROUND_MS || cancelled()) return { hookGone: false, more: true, nextDueMs: null };
          }
          if (batch.length < 20) return { hookGone: false, more: false, nextDueMs: null };
        }
      };
      const result = await round();
      const pruned = await store.pruneFinished(hookId, DELIVERIES_KEPT);
      await hookEventsStore(deps.db).removeOrphans(pruned);
      memo.pending = await store.countPending(hookId);
      return { ...result, memo };
    }),
  };
}

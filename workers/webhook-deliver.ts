// Delivers one hook's pending deliveries in the order their events happened, one request at a time:
// a batch is claimed (its attempts counted; the first delivery alone, the rest once it is answered),
// sent, and its outcomes written in one more statement, so a burst costs three writes per fifty
// deliveries rather than two per delivery. A worker that dies in between leaves the batch pending:
// what it sent is sent again with the same delivery id.
import type { Knex } from 'knex';
import { openSecret } from '../core/auth/secret-box.js';
import { faultPoint } from '../core/fault-points.js';
import { judgeAttempt, nextAttemptAt, type AttemptResult, type RetryPolicy } from '../core/webhooks/delivery-policy.js';
import type { HookEventType } from '../core/webhooks/events.js';
import { deliveryRequest, displayUrl, recordedHeaders, type DeliveryTarget } from '../core/webhooks/request.js';
import { deliveriesStore, hookEventsStore, hooksStore, type DeliveryRow, type HookRow } from '../db/hooks.js';
import { reposStore } from '../db/repos.js';
import { usersStore, USER_TYPE } from '../db/users.js';
import type { DeliveryRound } from '../workflows/webhook-messages.js';
import { sendDelivery, type WebhookHttpSettings } from './webhook-http.js';

/** Pending deliveries claimed, sent and recorded together. */
const BATCH = 50;
/** A round hands back to its workflow after this long (history stays short, the memo current). */
const ROUND_MS = 20_000;
/** Finished deliveries kept per hook for the deliveries list; older ones are deleted. */
export const DELIVERIES_KEPT = 1000;

export interface DeliverDeps {
  db: Knex;
  secretKey: Buffer;
  http: WebhookHttpSettings;
  policy: RetryPolicy;
  /** True once the activity is cancelled (worker shutting down). */
  cancelled(): boolean;
}

async function targetOf(deps: DeliverDeps, hook: HookRow): Promise<DeliveryTarget & { owner: string }> {
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
  const open = (sealed: string) => (sealed ? openSecret(sealed, deps.secretKey) ?? '' : '');
  return { url: hook.url, contentType: hook.content_type, targetType, owner, secret: open(hook.secret_sealed), authorization: open(hook.authorization_sealed) };
}

function describe(result: AttemptResult): string {
  return result.kind === 'response' ? `HTTP ${result.response.status}` : result.message.slice(0, 120);
}

/** The delivery as it stands after this attempt. */
function afterAttempt(deps: DeliverDeps, d: DeliveryRow, request: ReturnType<typeof deliveryRequest>, result: AttemptResult): DeliveryRow {
  const attempted: DeliveryRow = {
    ...d, attempts: d.attempts + 1, last_attempt_ms: Date.now(), duration_ms: result.durationMs,
    request_headers: JSON.stringify({ url: displayUrl(request.url), http_method: request.method, headers: recordedHeaders(request.headers) }),
    ...(result.kind === 'response'
      ? { response_status: result.response.status, response_headers: JSON.stringify(result.response.headers), response_body: result.response.body, error: null }
      : { response_status: null, response_headers: null, response_body: null, error: result.message }),
  };
  const verdict = judgeAttempt(result);
  if (verdict !== 'retry') return { ...attempted, status: verdict, finished_ms: Date.now() };
  const at = nextAttemptAt(attempted.attempts, d.created_ms, Date.now(), deps.policy);
  if (at !== null) return { ...attempted, next_attempt_ms: at };
  return { ...attempted, status: 'failed', finished_ms: Date.now(), error: `${attempted.error ?? describe(result)}; given up after ${attempted.attempts} attempts` };
}

export async function deliverHook(deps: DeliverDeps, hookId: number): Promise<DeliveryRound> {
  const store = deliveriesStore(deps.db);
  const hook = await hooksStore(deps.db).byId(hookId);
  const memo = { target: '', owner: '', pending: 0, lastDelivery: '', lastOutcome: '' };
  if (!hook) return { hookGone: true, more: false, nextDueMs: null, memo };
  const target = await targetOf(deps, hook);
  Object.assign(memo, { target: displayUrl(hook.url), owner: target.owner });
  const started = Date.now();

  const round = async (): Promise<Omit<DeliveryRound, 'memo'>> => {
    for (;;) {
      const batch = await store.pending(hookId, BATCH);
      if (batch.length === 0) return { hookGone: false, more: false, nextDueMs: null };
      if (!hook.is_active) {
        // Gitea skips the deliveries of a hook made inactive meanwhile.
        await store.saveOutcomes(batch.map((d) => ({ ...d, status: 'failed', finished_ms: Date.now(), error: 'the hook is not active' })));
        continue;
      }
      const now = Date.now();
      const firstLater = batch.findIndex((d) => d.next_attempt_ms > now);
      const due = firstLater < 0 ? batch : batch.slice(0, firstLater);
      if (due.length === 0) return { hookGone: false, more: false, nextDueMs: batch[0]!.next_attempt_ms };
      // The first delivery is claimed alone: a receiver that fails it (down, slow) ends the round
      // there, and the deliveries behind it must not show attempts they never got. Once it is
      // answered, the rest of the batch is claimed in one statement.
      await store.claim([due[0]!.id], now);
      const payloads = await hookEventsStore(deps.db).payloadsOf(due.map((d) => d.event_id));
      const settled: DeliveryRow[] = [];
      let stop: Omit<DeliveryRound, 'memo'> | null = null;
      for (const d of due) {
        if (settled.length === 1) await store.claim(due.slice(1).map((later) => later.id), Date.now());
        const payload = payloads.get(d.event_id);
        let row: DeliveryRow;
        if (payload === undefined) {
          row = { ...d, attempts: d.attempts + 1, status: 'failed', finished_ms: Date.now(), error: 'the event of this delivery is gone' };
        } else {
          const request = deliveryRequest(target, d.event as HookEventType, d.uuid, payload);
          faultPoint('webhook:before-send');
          const result = await sendDelivery(request, deps.http);
          faultPoint('webhook:after-send');
          row = afterAttempt(deps, d, request, result);
          memo.lastOutcome = row.status === 'pending' ? `retrying after ${describe(result)}` : `${row.status}: ${describe(result)}`;
        }
        settled.push(row);
        memo.lastDelivery = d.uuid;
        // Later deliveries wait for this one: a hook hears its events in the order they happened.
        if (row.status === 'pending') stop = { hookGone: false, more: false, nextDueMs: row.next_attempt_ms };
        else if (Date.now() - started > ROUND_MS || deps.cancelled()) stop = { hookGone: false, more: true, nextDueMs: null };
        if (stop) break;
      }
      // What was claimed but not reached goes back as it was (its attempt was not made).
      await store.saveOutcomes([...settled, ...due.slice(settled.length)]);
      if (stop) return stop;
    }
  };

  const result = await round();
  const pruned = await store.pruneFinished(hookId, DELIVERIES_KEPT);
  await hookEventsStore(deps.db).removeOrphans(pruned);
  memo.pending = await store.countPending(hookId);
  return { ...result, memo };
}

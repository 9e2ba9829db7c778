// Hooks to Gitea's Hook JSON (services/webhook/general.go ToHook) and deliveries to this service's
// HookDelivery JSON. Secrets never appear: no `secret` in config, the Authorization header masked.
import { maskedAuthorization } from '../../core/webhooks/hooks.js';
import { headerEvent, type HookEventType } from '../../core/webhooks/events.js';
import { displayUrl, requestBody } from '../../core/webhooks/request.js';
import type { DeliveryRow, HookRow } from '../../db/hooks.js';
import { unixToIso } from '../../db/time.js';

export function toApiHook(hook: HookRow, secretKey: Buffer) {
  return {
    id: hook.id,
    name: hook.name,
    type: hook.type,
    branch_filter: hook.branch_filter,
    config: { content_type: hook.content_type, url: hook.url },
    events: hook.events,
    authorization_header: maskedAuthorization(hook.authorization_sealed, secretKey),
    active: hook.is_active,
    updated_at: unixToIso(hook.updated_unix),
    created_at: unixToIso(hook.created_unix),
  };
}

const msIso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

function parsed<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function toApiDelivery(d: DeliveryRow, hook: HookRow, payload: string) {
  const request = parsed(d.request_headers, { url: displayUrl(hook.url), http_method: 'POST', headers: {} as Record<string, string> });
  return {
    id: d.id,
    uuid: d.uuid,
    event: headerEvent(d.event as HookEventType),
    event_type: d.event,
    status: d.status,
    redelivery: d.redelivery_of !== null,
    attempts: d.attempts,
    created_at: msIso(d.created_ms)!,
    last_attempt_at: msIso(d.last_attempt_ms),
    next_attempt_at: d.status === 'pending' ? msIso(d.next_attempt_ms) : null,
    finished_at: msIso(d.finished_ms),
    duration_ms: d.duration_ms,
    request: { ...request, body: requestBody(hook.content_type, payload) },
    response: d.response_status === null ? null : { status: d.response_status, headers: parsed(d.response_headers, {}), body: d.response_body ?? '' },
    error: d.error,
  };
}

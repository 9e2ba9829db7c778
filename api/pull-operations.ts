// Routes hand every change of a pull request's git or merged/closed state to its workflow through
// this one function, and turn the workflow's answer back into an HTTP reply.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UpdateDefinition } from '@temporalio/common';
import { ServiceError, UnavailableError } from '../core/errors.js';
import type { OperationOutcome, OperationRequest, PullKey } from '../workflows/pull-messages.js';
import type { Services } from './services.js';
import { recordWorkflowOperation } from './plugins/metrics.js';

/**
 * Derived keys whose last answer was a refusal, with how many times: a repeated request after a
 * refusal (checks were pending, the head moved) must run again, not get the stale refusal back.
 * Bounded; per API process (clients that need strict guarantees send Idempotency-Key).
 */
const refusedDerivedKeys = new Map<string, number>();
/** The first of each burst of identical requests, per derived key, with when it came. */
const recentDerivedKeys = new Map<string, { key: string; at: number; pull: string }>();
/** The bursts remembered for each pull request ("repoId/index"), so another operation can end them. */
const burstsByPull = new Map<string, Set<string>>();
const DERIVED_KEY_WINDOW_MS = 10_000;
const MAX_REMEMBERED = 10_000;

export interface OperationKey {
  updateId: string;
  /** Set for keys derived from the request (no Idempotency-Key header). */
  derived: string | null;
  /** The burst of identical requests a derived key belongs to (see idempotencyKey). */
  burst: string | null;
  /** The HTTP request's id, carried into the workflow's memo and logs. */
  requestId: string;
}

/**
 * The update id: the client's Idempotency-Key when given, else one derived from the request, so a
 * double-clicked or quickly retried request gets the first answer instead of a second operation.
 * An identical request more than 10 seconds after the first of its burst is a new operation.
 */
export function idempotencyKey(request: FastifyRequest, operation: string, key: PullKey): OperationKey {
  const given = request.headers['idempotency-key'];
  const scope = `${operation}/${key.repoId}/${key.index}/${request.doer?.id ?? 0}`;
  if (typeof given === 'string' && given.length > 0 && given.length <= 255) return { updateId: `${scope}/key/${given}`, derived: null, burst: null, requestId: request.id };
  const digest = createHash('sha256').update(JSON.stringify([request.method, request.url, request.body ?? null])).digest('hex').slice(0, 32);
  // The window slides from the first of a burst of identical requests (a fixed time bucket would
  // split a double click that straddles its boundary into two operations).
  const base = `${scope}/req/${digest}`;
  const now = Date.now();
  const recent = recentDerivedKeys.get(base);
  let derived: string;
  if (recent && now - recent.at < DERIVED_KEY_WINDOW_MS) {
    derived = recent.key;
  } else {
    derived = `${base}/${now}`;
    if (recentDerivedKeys.size >= MAX_REMEMBERED) forgetBurst(recentDerivedKeys.keys().next().value!);
    const pull = pullOf(key);
    recentDerivedKeys.set(base, { key: derived, at: now, pull });
    burstsByPull.set(pull, (burstsByPull.get(pull) ?? new Set()).add(base));
  }
  const refusals = refusedDerivedKeys.get(derived) ?? 0;
  return { updateId: refusals ? `${derived}/${refusals}` : derived, derived, burst: base, requestId: request.id };
}

const pullOf = (key: PullKey) => `${key.repoId}/${key.index}`;

function forgetBurst(base: string): void {
  const pull = recentDerivedKeys.get(base)?.pull;
  recentDerivedKeys.delete(base);
  if (pull === undefined) return;
  burstsByPull.get(pull)?.delete(base);
  if (burstsByPull.get(pull)?.size === 0) burstsByPull.delete(pull);
}

/**
 * An operation on the pull request ended: an identical request to an earlier, different one is
 * no longer its repetition (schedule, cancel, schedule again must schedule twice).
 */
function endOtherBursts(key: PullKey, operationKey: OperationKey): void {
  for (const base of [...(burstsByPull.get(pullOf(key)) ?? [])]) {
    if (base !== operationKey.burst) forgetBurst(base);
  }
}

function rememberRefusal(derived: string): void {
  if (refusedDerivedKeys.size >= MAX_REMEMBERED) refusedDerivedKeys.delete(refusedDerivedKeys.keys().next().value!);
  refusedDerivedKeys.set(derived, (refusedDerivedKeys.get(derived) ?? 0) + 1);
}

/** Temporal answers that are worth another try: the run was completing, or the server is busy. */
function transient(err: unknown): boolean {
  const text = `${(err as Error)?.name ?? ''} ${(err as Error)?.message ?? ''} ${String((err as { cause?: unknown })?.cause ?? '')}`;
  return /RESOURCE_EXHAUSTED|UNAVAILABLE|DEADLINE_EXCEEDED|ECONNREFUSED|already completed|completing|closed|in-flight|WorkflowUpdateRPCTimeoutOrCancelled/i.test(text);
}

export async function runPullOperation<R extends OperationRequest>(
  services: Services,
  key: PullKey,
  update: UpdateDefinition<OperationOutcome, [R]>,
  request: R,
  operationKey: OperationKey,
  log?: { warn(obj: object, msg: string): void },
): Promise<OperationOutcome> {
  if (!services.pullWorkflows) throw new UnavailableError('pull request operations are unavailable: no Temporal connection');
  // A workflow run that is finishing (a merge just completed) or a busy server answers with a
  // transient error; the next attempt reaches the existing or a new run.
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await services.pullWorkflows.execute(key, update, [{ ...request, requestId: operationKey.requestId }], operationKey.updateId);
      recordWorkflowOperation(update.name, outcome.status);
      if (outcome.status >= 400 && operationKey.derived) rememberRefusal(operationKey.derived);
      endOtherBursts(key, operationKey);
      return outcome;
    } catch (err) {
      if (err instanceof ServiceError) recordWorkflowOperation(update.name, err.status);
      if (err instanceof ServiceError) throw err;
      log?.warn({ err, attempt }, 'pull request operation failed to reach its workflow');
      if (!transient(err) || attempt >= 20) {
        recordWorkflowOperation(update.name, transient(err) ? 'unavailable' : 'error');
        if (transient(err)) throw new UnavailableError('the workflow service is unavailable, try again shortly');
        throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * attempt) + Math.random() * 50));
    }
  }
}

/** Sends an operation's outcome: 2xx bodies as they are, errors in Gitea's shape (or raw bodies). */
export function sendOutcome(reply: FastifyReply, outcome: OperationOutcome, appUrl: string): FastifyReply {
  if (outcome.status >= 400) {
    const body = outcome.body;
    if (body && typeof body === 'object' && 'raw' in (body as Record<string, unknown>)) {
      return reply.code(outcome.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send((body as { raw: unknown }).raw);
    }
    // A workflow's 500 names the failing activity's error: that is for the log, not the client.
    // (A 507 or 503 names a condition the caller should see: it stays.)
    const message = outcome.status === 500
      ? 'internal error: the operation failed; the server log has the details'
      : body && typeof body === 'object' && 'message' in (body as Record<string, unknown>) ? String((body as { message: unknown }).message) : '';
    return reply.code(outcome.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send({ message, url: `${appUrl}api/swagger` });
  }
  if (outcome.body === undefined) return reply.code(outcome.status).send();
  return reply.code(outcome.status).send(outcome.body);
}

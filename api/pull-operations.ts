// Routes hand every change of a pull request's git or merged/closed state to its workflow through
// this one function, and turn the workflow's answer back into an HTTP reply.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { UpdateDefinition } from '@temporalio/common';
import { UnavailableError, UnprocessableError } from '../core/errors.js';
import { idempotencyStore, requestHash, type Claim, type IdempotencyScope } from '../db/idempotency.js';
import type { OperationOutcome, OperationRequest, PullKey } from '../workflows/pull-messages.js';
import type { QueueKey } from '../workflows/queue-messages.js';
import { PullUpdateError } from '../workers/pull-workflow-client.js';
import type { Services } from './services.js';
import { recordWorkflowOperation } from './plugins/metrics.js';

/** Idempotency-Key values longer than this are not keys (they are ignored, as an absent header). */
const MAX_KEY_LENGTH = 255;

export interface OperationKey {
  /** The workflow update id; for a keyed request, set once its key is claimed (claimOperation). */
  updateId: string;
  /** The HTTP request's id, carried into the workflow's memo and logs. */
  requestId: string;
  log: FastifyBaseLogger;
  /** Set when the request carries an Idempotency-Key. */
  keyed?: { scope: IdempotencyScope; requestHash: string; claim?: Claim };
}

/** A workflow's answer, or one recorded for the request's Idempotency-Key and given again. */
export type PullAnswer = OperationOutcome & { replayed?: boolean };

/**
 * What names the operation a request asks for. Without an Idempotency-Key every request is its own
 * operation (a random update id), judged against the state it finds: a second merge of a merged
 * pull request is told so (405). With one, the first answer for the key is given back to every
 * retry of the same request, from any API process, for 24 hours (db/idempotency.ts); the key with
 * a different request answers 422.
 */
export function idempotencyKey(request: FastifyRequest, operation: string, key: PullKey): OperationKey {
  const scope = `${operation}/${key.repoId}/${key.index}/${request.doer?.id ?? 0}`;
  const given = request.headers['idempotency-key'];
  const base = { requestId: request.id, log: request.log };
  if (typeof given !== 'string' || given.length === 0 || given.length > MAX_KEY_LENGTH) return { ...base, updateId: `${scope}/req/${randomUUID()}` };
  return {
    ...base,
    updateId: '',
    keyed: {
      scope: { repoId: key.repoId, index: key.index, operation, userId: request.doer?.id ?? 0, key: given },
      requestHash: requestHash((request.query ?? {}) as Record<string, unknown>, request.body),
    },
  };
}

/**
 * Claims a keyed request's key (a request without one passes through): its update id then names
 * the claim, so every retry of the request sends the same update to the workflow.
 */
export async function claimOperation(services: Services, operationKey: OperationKey): Promise<OperationKey> {
  const keyed = operationKey.keyed;
  if (!keyed || keyed.claim) return operationKey;
  const claim = await idempotencyStore(services.db).claim(keyed.scope, keyed.requestHash);
  const { operation, repoId, index, userId, key } = keyed.scope;
  return { ...operationKey, updateId: `${operation}/${repoId}/${index}/${userId}/key/${claim.id}/${key}`, keyed: { ...keyed, claim } };
}

/** The HTTP answer for an operation that got no answer from its workflow (never a 500). */
function failureAnswer(err: PullUpdateError, keyed: boolean): Error {
  switch (err.failure.kind) {
    case 'refused':
      return new UnprocessableError(err.failure.detail);
    case 'no-answer':
      return new UnavailableError(keyed
        ? 'the operation did not answer in time and may still complete; a retry with the same Idempotency-Key gets its answer'
        : 'the operation did not answer in time and may still complete; look at the pull request before trying again');
    case 'never-ran':
    case 'busy':
      return new UnavailableError('the workflow service is busy or unreachable, try again shortly');
    default:
      return new UnavailableError('pull request operations are unavailable right now, try again shortly');
  }
}

export async function runPullOperation<R extends OperationRequest>(
  services: Services,
  key: PullKey,
  update: UpdateDefinition<OperationOutcome, [R]>,
  request: R,
  unclaimed: OperationKey,
  /** Sent to this merge queue's workflow instead of the pull request's. */
  queue?: QueueKey,
): Promise<PullAnswer> {
  if (!services.pullWorkflows) throw new UnavailableError('pull request operations are unavailable: no Temporal connection');
  const operationKey = await claimOperation(services, unclaimed);
  const { log, keyed } = operationKey;
  const claim = keyed?.claim;
  if (claim?.state === 'mismatch') throw new UnprocessableError('the Idempotency-Key was already used for a different request');
  if (claim?.state === 'answered') {
    recordWorkflowOperation(update.name, 'replayed');
    return { ...claim.answer, replayed: true };
  }
  let outcome: OperationOutcome;
  try {
    const onRetry = (failure: { kind: string; detail: string }, attempt: number) => {
      log.warn({ updateId: operationKey.updateId, kind: failure.kind, attempt, detail: failure.detail }, failure.kind === 'no-answer' ? 'pull request operation: waiting for its answer again' : 'pull request operation sent again');
    };
    const args: [R] = [{ ...request, requestId: operationKey.requestId }];
    outcome = queue
      ? await services.pullWorkflows.executeQueue(queue, update, args, operationKey.updateId, onRetry)
      : await services.pullWorkflows.execute(key, update, args, operationKey.updateId, onRetry);
  } catch (err) {
    if (!(err instanceof PullUpdateError)) throw err;
    recordWorkflowOperation(update.name, err.failure.kind);
    log[err.failure.kind === 'unavailable' ? 'error' : 'warn']({ err: err.cause, updateId: operationKey.updateId, kind: err.failure.kind, attempts: err.attempts }, 'pull request operation got no answer from its workflow');
    throw failureAnswer(err, keyed !== undefined);
  }
  recordWorkflowOperation(update.name, outcome.status);
  // The answer is kept for the key before the client sees it (a failure to keep it is logged: the
  // workflow run still answers a retry with the same update id while it lasts).
  if (claim) await idempotencyStore(services.db).answer(claim.id, outcome).catch((err: unknown) => log.warn({ err }, 'could not record the answer for the Idempotency-Key'));
  return outcome;
}

/** Sends an operation's outcome: 2xx bodies as they are, errors in Gitea's shape (or raw bodies). */
export function sendOutcome(reply: FastifyReply, outcome: PullAnswer, appUrl: string): FastifyReply {
  if (outcome.replayed) reply.header('idempotent-replayed', 'true');
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

// Routes hand every change of a pull request's git or merged/closed state to its workflow through
// this one function, and turn the workflow's answer back into an HTTP reply.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UpdateDefinition } from '@temporalio/common';
import { ServiceError, UnavailableError } from '../core/errors.js';
import type { OperationOutcome, PullKey } from '../workflows/pull-messages.js';
import type { Services } from './services.js';

/**
 * The update id: the client's Idempotency-Key when given, else one derived from the request, so a
 * retried or double-clicked request gets the first answer instead of a second operation. The derived
 * key includes a coarse time bucket: an identical request much later is a new operation.
 */
export function idempotencyKey(request: FastifyRequest, operation: string, key: PullKey): string {
  const given = request.headers['idempotency-key'];
  const scope = `${operation}/${key.repoId}/${key.index}/${request.doer?.id ?? 0}`;
  if (typeof given === 'string' && given.length > 0 && given.length <= 255) return `${scope}/key/${given}`;
  const bucket = Math.floor(Date.now() / 10_000);
  const digest = createHash('sha256').update(JSON.stringify([request.method, request.url, request.body ?? null, bucket])).digest('hex').slice(0, 32);
  return `${scope}/req/${digest}`;
}

export async function runPullOperation<A extends unknown[]>(
  services: Services,
  key: PullKey,
  update: UpdateDefinition<OperationOutcome, A>,
  args: A,
  updateId: string,
): Promise<OperationOutcome> {
  if (!services.pullWorkflows) throw new UnavailableError('pull request operations are unavailable: no Temporal connection');
  try {
    return await services.pullWorkflows.execute(key, update, args, updateId);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    const name = (err as Error).name ?? '';
    if (name === 'ServiceError' || /UNAVAILABLE|DEADLINE_EXCEEDED|ECONNREFUSED/.test(String((err as Error).message))) {
      throw new UnavailableError('the workflow service is unavailable, try again shortly');
    }
    throw err;
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
    const message = outcome.status >= 500
      ? 'internal error: the operation failed; the server log has the details'
      : body && typeof body === 'object' && 'message' in (body as Record<string, unknown>) ? String((body as { message: unknown }).message) : '';
    return reply.code(outcome.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send({ message, url: `${appUrl}api/swagger` });
  }
  if (outcome.body === undefined) return reply.code(outcome.status).send();
  return reply.code(outcome.status).send(outcome.body);
}

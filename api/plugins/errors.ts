// One place that turns every failure into Gitea's error shape: {"message": ..., "url": ...}.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ServiceError, storageFailure } from '../../core/errors.js';
import { isDatabaseUnavailable } from '../../db/connection.js';
import { repositoryStorageReachable, STORAGE_UNAVAILABLE_MESSAGE } from '../../core/repository-storage.js';

export function swaggerUrl(appUrl: string): string {
  return `${appUrl}api/swagger`;
}

/** Gitea words validation failures as "<Field>: <problem>". */
function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const field = missing ?? (path || err.validationContext || 'body');
  const problem = missing ? 'Required' : first.message ?? 'invalid value';
  return `[${field}]: ${problem}`;
}

/**
 * Error bodies bypass the route's response schemas (a route whose 422 is a plain-text body must
 * still send a JSON error when something else fails).
 */
function sendJson(reply: FastifyReply, status: number, body: unknown): void {
  reply.code(status).type('application/json; charset=utf-8').serializer((payload: unknown) => JSON.stringify(payload)).send(body);
}

/**
 * Errors the router raises before any route or error handler runs (a malformed percent-escape, a
 * path parameter past maxParamLength): Fastify's default body is not Gitea's shape.
 */
export function frameworkErrorHandler(appUrl: string) {
  const url = swaggerUrl(appUrl);
  return (err: FastifyError, _request: unknown, reply: FastifyReply): void => {
    const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
    sendJson(reply, status, { message: err.code === 'FST_ERR_BAD_URL' ? 'the URL is not validly escaped' : err.message, url });
  };
}

export function registerErrorHandling(app: FastifyInstance, appUrl: string): void {
  const url = swaggerUrl(appUrl);

  app.setNotFoundHandler((request, reply) => {
    sendJson(reply, 404, { message: 'not found', url });
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ServiceError) {
      if (err.headers) reply.headers(err.headers);
      sendJson(reply, err.status, err.rawBody !== undefined ? err.rawBody : { message: err.message, url });
      return;
    }
    if (err.validation) {
      sendJson(reply, 422, { message: validationMessage(err), url });
      return;
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      sendJson(reply, 413, { message: `request body is larger than the limit of ${app.initialConfig.bodyLimit} bytes`, url });
      return;
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      sendJson(reply, 415, { message: 'unsupported content type', url });
      return;
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors: malformed JSON, bad content length, and so on.
      sendJson(reply, err.statusCode, { message: err.message, url });
      return;
    }
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err }, 'database unavailable');
      reply.header('retry-after', '5');
      sendJson(reply, 503, { message: 'the database is unavailable, try again shortly', url });
      return;
    }
    const storage = storageFailure(err);
    if (storage) {
      request.log.error({ err }, 'repository storage full or not writable');
      sendJson(reply, storage.status, { message: storage.message, url });
      return;
    }
    if (!repositoryStorageReachable(app.services.config)) {
      // The shared repository storage went away (a network mount, a disk): the failure is that.
      request.log.error({ err }, 'repository storage unavailable');
      reply.header('retry-after', '5');
      sendJson(reply, 503, { message: STORAGE_UNAVAILABLE_MESSAGE, url });
      return;
    }
    request.log.error({ err }, 'unexpected failure');
    // Internals are never shown to clients; the request id ties the answer to the log line.
    sendJson(reply, 500, { message: `internal error (request ${request.id})`, url });
  });
}

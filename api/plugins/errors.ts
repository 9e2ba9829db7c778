// One place that turns every failure into Gitea's error shape: {"message": ..., "url": ...}.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ServiceError } from '../../core/errors.js';
import { isDatabaseUnavailable } from '../../db/connection.js';

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

export function registerErrorHandling(app: FastifyInstance, appUrl: string): void {
  const url = swaggerUrl(appUrl);

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ message: 'not found', url });
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ServiceError) {
      if (err.headers) reply.headers(err.headers);
      reply.code(err.status).send(err.rawBody !== undefined ? err.rawBody : { message: err.message, url });
      return;
    }
    if (err.validation) {
      reply.code(422).send({ message: validationMessage(err), url });
      return;
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      reply.code(413).send({ message: `request body is larger than the limit of ${app.initialConfig.bodyLimit} bytes`, url });
      return;
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      reply.code(415).send({ message: 'unsupported content type', url });
      return;
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors: malformed JSON, bad content length, and so on.
      reply.code(err.statusCode).send({ message: err.message, url });
      return;
    }
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err }, 'database unavailable');
      reply.code(503).header('retry-after', '5').send({ message: 'the database is unavailable, try again shortly', url });
      return;
    }
    request.log.error({ err }, 'unexpected failure');
    // Internals are never shown to clients; the request id ties the answer to the log line.
    reply.code(500).send({ message: `internal error (request ${request.id})`, url });
  });
}

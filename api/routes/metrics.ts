// GET /metrics: Prometheus text, protected as Gitea protects it. With METRICS_TOKEN set, only
// `Authorization: Bearer <token>` is let through (401 otherwise); without one, the endpoint exists
// only when ENABLE_METRICS is on (404 otherwise), as an operator must opt in to an open endpoint.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { NotFoundError, UnauthorizedError } from '../../core/errors.js';

/** Compares digests, so neither the token's length nor its prefix leaks through timing. */
function sameSecret(given: string, wanted: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(wanted));
}

export async function metricsRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.services;
  // webAuth: the bearer token here is the metrics token, not an API credential for the auth hook.
  app.get('/metrics', { schema: { hide: true }, config: { webAuth: true } }, async (request, reply) => {
    if (config.METRICS_TOKEN) {
      if (!sameSecret(request.headers.authorization ?? '', `Bearer ${config.METRICS_TOKEN}`)) throw new UnauthorizedError('a valid metrics bearer token is required');
    } else if (!config.ENABLE_METRICS) {
      throw new NotFoundError('not found');
    }
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(app.metrics.render());
  });
}

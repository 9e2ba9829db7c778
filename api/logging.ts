// Log settings for the API: a request id on every line and no credentials in any line.
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

const SECRET_QUERY_KEYS = /^(token|access_token|password|client_secret|code|refresh_token)$/i;

/** Removes credentials from a URL before it is logged. */
export function redactUrl(rawUrl: string): string {
  const q = rawUrl.indexOf('?');
  if (q < 0) return rawUrl;
  const params = new URLSearchParams(rawUrl.slice(q + 1));
  let changed = false;
  for (const key of [...params.keys()]) {
    if (SECRET_QUERY_KEYS.test(key)) {
      params.set(key, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${rawUrl.slice(0, q)}?${params.toString()}` : rawUrl;
}

export function requestIdFrom(header: unknown): string {
  return typeof header === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(header) ? header : randomUUID();
}

export function loggerOptions(level: string) {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-gitea-otp"]', 'req.headers["x-service-otp"]', 'password', 'passwd', '*.password', 'token', '*.token'],
      censor: '[redacted]',
    },
    serializers: {
      req(req: FastifyRequest) {
        return { method: req.method, url: redactUrl(req.url), remoteAddress: req.ip };
      },
    },
  };
}

// Strong entity tags for answers that are functions of commit ids (and the few other inputs named
// by the caller), and If-None-Match answered 304 before the answer is built.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readCache } from '../core/read-cache.js';

export function strongEtag(parts: ReadonlyArray<string | number | boolean | null | undefined>): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${p ?? ''}\0`);
  return `"${h.digest('base64url').slice(0, 32)}"`;
}

/** Whether an If-None-Match header names `etag` (RFC 9110: weak comparison, `*` matches anything). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  for (const raw of header.split(',')) {
    const tag = raw.trim().replace(/^W\//, '');
    if (tag === '*' || tag === etag) return true;
  }
  return false;
}

/**
 * Sets the ETag; when the client already holds this answer, sends 304 and returns true (the route
 * then returns the reply without building a body).
 */
export function answeredNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag);
  if (!etagMatches(request.headers['if-none-match'], etag)) return false;
  reply.code(304).send();
  return true;
}

/**
 * Sends the answer named by `etag` as JSON bytes built (and serialized with the route's own response
 * schema) once, then kept in the read cache: a large page read again costs no serialization. Only
 * for answers whose ETag names every input of the body, as an ETag must anyway.
 */
export async function sendKeptByEtag(reply: FastifyReply, etag: string, build: () => Promise<unknown>): Promise<FastifyReply> {
  const body = await readCache.memo(`body\0${etag}`, async () => Buffer.from(reply.serialize(await build()) as string), (b) => b.length + 96);
  return reply.type('application/json; charset=utf-8').send(body);
}

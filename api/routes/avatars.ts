// Avatar pictures at the addresses the JSON gives (Gitea's /avatars/<hash> and its default picture
// for deleted accounts), outside /api/v1 and outside the API document, as in Gitea.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { identiconPng, isAvatarHash } from '../../core/avatars.js';
import { NotFoundError } from '../../core/errors.js';

const AvatarParams = Type.Object({ hash: Type.String({ maxLength: 64 }) });
// Gitea's own caching of avatar pictures.
const CACHE_CONTROL = 'public, max-age=21600, no-transform';
const GHOST_HASH = '0'.repeat(32);

export async function avatarRoutes(app: FastifyInstance): Promise<void> {
  // The same hash always makes the same picture: a small per-process cache is safe.
  const cache = new Map<string, Buffer>();
  function picture(hash: string): Buffer {
    let png = cache.get(hash);
    if (!png) {
      png = identiconPng(hash);
      if (cache.size >= 1000) cache.delete(cache.keys().next().value!);
      cache.set(hash, png);
    }
    return png;
  }

  app.get<{ Params: Static<typeof AvatarParams> }>('/avatars/:hash', {
    schema: { hide: true, params: AvatarParams },
  }, async (request, reply) => {
    const hash = request.params.hash.toLowerCase();
    if (!isAvatarHash(hash)) throw new NotFoundError();
    if (request.headers['if-none-match'] === `"${hash}"`) return reply.code(304).header('cache-control', CACHE_CONTROL).send();
    return reply.type('image/png').header('cache-control', CACHE_CONTROL).header('etag', `"${hash}"`).send(picture(hash));
  });

  app.get('/assets/img/avatar_default.png', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('image/png').header('cache-control', CACHE_CONTROL).send(picture(GHOST_HASH));
  });
}

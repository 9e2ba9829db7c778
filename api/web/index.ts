// The web side of the service in one encapsulated plugin: the cookie and form parsers it needs are
// registered here only, so the JSON API around it is unchanged.
import type { FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { oauth2ProviderRoutes } from '../routes/oauth2-provider.js';
import { webPageRoutes } from './routes.js';
import { changePasswordRoutes } from './change-password.js';
import { cookieSecret } from './session.js';

export async function webRoutes(app: FastifyInstance): Promise<void> {
  await app.register(async (web) => {
    // Pages and Gitea's /login/oauth endpoints are not part of the /api/v1 document (nor are they in Gitea's).
    web.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await web.register(cookie, { secret: cookieSecret(web.services.secretKey) });
    await web.register(formbody, { bodyLimit: 64 * 1024 });
    await web.register(webPageRoutes);
    await web.register(changePasswordRoutes);
    await web.register(oauth2ProviderRoutes);
  });
}

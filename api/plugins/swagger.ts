// The OpenAPI document, generated from the route schemas, at /swagger.v1.json, and the Swagger
// UI at /api/swagger — both only when ENABLE_SWAGGER is on, as in Gitea.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from '../../app/config.js';
import { documentRoute, hoistModels } from './openapi-document.js';

// Gitea's Go SDK (and tea) gate calls on the server version: claim the Gitea release whose API
// this implements, with build metadata that version parsers ignore when comparing.
export const SERVICE_VERSION = '1.26.4+pullhost';

export async function registerSwagger(app: FastifyInstance, config: Config): Promise<void> {
  if (!config.ENABLE_SWAGGER) return;
  const base = new URL(config.APP_URL);
  await app.register(swagger, {
    swagger: {
      info: {
        title: 'Gitea-compatible API',
        description: 'Pull requests, markup rendering, tokens and access; wire-compatible with Gitea /api/v1.',
        version: SERVICE_VERSION,
      },
      host: base.host,
      basePath: '/api/v1',
      schemes: [base.protocol.replace(':', '')],
      consumes: ['application/json', 'text/plain'],
      produces: ['application/json', 'text/html'],
      securityDefinitions: {
        BasicAuth: { type: 'basic' },
        Token: { type: 'apiKey', name: 'token', in: 'query' },
        AccessToken: { type: 'apiKey', name: 'access_token', in: 'query' },
        AuthorizationHeaderToken: { type: 'apiKey', name: 'Authorization', in: 'header', description: 'API tokens must be prepended with "token" followed by a space.' },
        SudoParam: { type: 'apiKey', name: 'sudo', in: 'query', description: 'Sudo API request as the user provided as the key. Admin privileges are required.' },
        SudoHeader: { type: 'apiKey', name: 'Sudo', in: 'header', description: 'Sudo API request as the user provided as the key. Admin privileges are required.' },
        TOTPHeader: { type: 'apiKey', name: 'X-GITEA-OTP', in: 'header', description: 'Must be used in combination with BasicAuth if two-factor authentication is enabled.' },
      },
      security: [
        { BasicAuth: [] }, { Token: [] }, { AccessToken: [] }, { AuthorizationHeaderToken: [] },
        { SudoParam: [] }, { SudoHeader: [] }, { TOTPHeader: [] },
      ],
    },
    transform: documentRoute as never,
    transformObject: (documentObject) => hoistModels((documentObject as { swaggerObject: Record<string, unknown> }).swaggerObject) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/api/swagger', uiConfig: { url: '/swagger.v1.json' } as never });
  app.get('/swagger.v1.json', { schema: { hide: true } }, async () => app.swagger());
}

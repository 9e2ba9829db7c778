// Service metadata: version, API settings, health check and the swagger redirect.
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { SERVICE_VERSION } from '../plugins/swagger.js';

const HealthCheck = Type.Object({ status: Type.String(), time: Type.String(), output: Type.Optional(Type.String()) });

export async function miscRoutes(app: FastifyInstance): Promise<void> {
  const { config, db } = app.services;

  app.get('/api/v1/version', {
    schema: { operationId: 'getVersion', tags: ['miscellaneous'], summary: "Returns the version of the server", response: { 200: Type.Object({ version: Type.String() }, { title: 'ServerVersion' }) } },
  }, async () => ({ version: SERVICE_VERSION }));

  app.get('/api/v1/settings/api', {
    schema: {
      operationId: 'getGeneralAPISettings',
      tags: ['settings'],
      summary: 'Get instance\'s global settings for api',
      response: {
        200: Type.Object({
          max_response_items: Type.Integer(),
          default_paging_num: Type.Integer(),
          default_git_trees_per_page: Type.Integer(),
          default_max_blob_size: Type.Integer(),
          default_max_response_size: Type.Integer(),
        }, { title: 'GeneralAPISettings' }),
      },
    },
  }, async () => ({
    max_response_items: config.MAX_RESPONSE_ITEMS,
    default_paging_num: config.DEFAULT_PAGING_NUM,
    default_git_trees_per_page: 1000,
    default_max_blob_size: 10485760,
    default_max_response_size: 104857600,
  }));

  if (config.ENABLE_SWAGGER) {
    app.get('/api/v1/swagger', { schema: { hide: true } }, async (_req, reply) => reply.redirect(`${config.APP_URL}api/swagger`, 303));
  }

  // Gitea answers a failed check with 424, not 503; clients and probes rely on that.
  app.get('/api/healthz', {
    schema: {
      tags: ['miscellaneous'],
      summary: 'Health check',
      response: {
        200: Type.Object({ status: Type.String(), description: Type.String(), checks: Type.Record(Type.String(), Type.Array(HealthCheck)) }),
        424: Type.Object({ status: Type.String(), description: Type.String(), checks: Type.Record(Type.String(), Type.Array(HealthCheck)) }),
      },
    },
  }, async (_req, reply) => {
    const time = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    let dbCheck: { status: string; time: string; output?: string } = { status: 'pass', time };
    try {
      await db.raw('SELECT 1');
    } catch (err) {
      dbCheck = { status: 'fail', time, output: (err as Error).message };
    }
    const status = dbCheck.status;
    reply.code(status === 'pass' ? 200 : 424).header('content-type', 'application/json');
    return { status, description: 'Gitea: Git with a cup of tea', checks: { 'database:ping': [dbCheck] } };
  });
}

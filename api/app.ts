// Assembles the HTTP API: hardened Fastify defaults, then shared plugins, then route modules.
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DestinationStream } from 'pino';
import { frameworkErrorHandler, registerErrorHandling } from './plugins/errors.js';
import { registerSwagger } from './plugins/swagger.js';
import { registerGoDecoding } from './plugins/decoding.js';
import { loggerOptions, requestIdFrom } from './logging.js';
import { readCache } from '../core/read-cache.js';
import { noteWork, startIdleCollection } from '../app/idle-gc.js';
import type { Services } from './services.js';
import { miscRoutes } from './routes/misc.js';
import { authPlugin } from './plugins/auth.js';
import { metricsPlugin } from './plugins/metrics.js';

export interface BuildOptions {
  /** Route modules added by later features; each is a Fastify plugin function. */
  routes?: Array<(app: FastifyInstance) => Promise<void>>;
  logger?: boolean;
  /** Where log lines go (a readable form on a terminal); absent: stdout as JSON. */
  logStream?: DestinationStream;
}

export async function buildApp(services: Services, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: options.logger === false ? false : { ...loggerOptions(config.LOG_LEVEL), ...(options.logStream ? { stream: options.logStream } : {}) },
    bodyLimit: config.BODY_LIMIT,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    requestIdHeader: false,
    requestTimeout: 120_000,
    connectionTimeout: 0,
    keepAliveTimeout: 72_000,
    return503OnClosing: true,
    trustProxy: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    frameworkErrors: frameworkErrorHandler(config.APP_URL),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('services', services);
  readCache.setLimit(config.READ_CACHE_MEMORY_BYTES);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    noteWork();
  });
  startIdleCollection(config.IDLE_GC_SECONDS);
  registerErrorHandling(app, config.APP_URL);
  // Go clients' nulls, empty strings, empty bodies and query and path values: api/decoding.ts.
  registerGoDecoding(app);
  await app.register(metricsPlugin);
  await registerSwagger(app, config);

  await app.register(authPlugin);
  await app.register(miscRoutes, { prefix: '/' });
  for (const routes of options.routes ?? []) await app.register(routes);
  return app;
}

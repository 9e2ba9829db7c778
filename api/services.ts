// What route modules are given: the configuration and the handles to the real parts.
import type { Config } from '../app/config.js';
import type { Db } from '../db/connection.js';
import type { TaskPool } from '../workers/pool.js';
import type { PullWorkflowClient } from '../workers/pull-workflow-client.js';

export interface Services {
  config: Config;
  db: Db;
  pool: TaskPool;
  /** null in roles that do not talk to Temporal (none today; kept explicit for tests). */
  pullWorkflows: PullWorkflowClient | null;
  /** Server secret used for keyed hashes (tokens) and encryption at rest (TOTP secrets). */
  secretKey: Buffer;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

// Test harness: boots the real app against the real MariaDB, the real Temporal dev server and
// temporary git repositories, isolated per test file (own database, namespace, task queue, data).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import knexFactory from 'knex';
import { loadConfig, type Config } from '../app/config.js';
import { startDevServer, type DevServer } from '../app/temporal-dev-server.js';
import { temporalCliPath } from '../app/paths.js';
import { freePort } from '../app/ports.js';
import { loadSecretKey } from '../app/secret.js';
import { ensureDatabaseExists, localMariaDbHost, mysqlConnection, openDatabase, type Db } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { copySchemaTemplate } from './schema-template.js';
import { createTaskPool, type TaskPool } from '../workers/pool.js';
import { startTemporalWorker, type RunningWorker } from '../workers/temporal-worker.js';
import type { Resolver } from '../workers/webhook-http.js';
import { installTemporalRuntime } from '../workers/temporal-runtime.js';
import pino from 'pino';
import { PullWorkflowClient } from '../workers/pull-workflow-client.js';
import { buildApp } from '../api/app.js';
import { allRoutes } from '../api/routes/index.js';

interface Tap {
  teardown(fn: () => unknown): void;
}

export interface TestServices {
  config: Config;
  db: Db;
  app: FastifyInstance;
  pool: TaskPool;
  pullWorkflows: PullWorkflowClient | null;
  worker: RunningWorker | null;
  /** Base URL when the server listens (`listen: true`), e.g. http://127.0.0.1:PORT/ */
  baseUrl: string;
  dataDir: string;
}

export interface TestOptions {
  temporal?: boolean;
  listen?: boolean;
  dbType?: 'mysql' | 'sqlite3';
  env?: Record<string, string>;
  /** With temporal: use this Temporal server (e.g. one the test restarts) instead of the run's. */
  temporalAddress?: string;
  /** With temporal: run the Temporal worker in this process (default) or leave it to another. */
  worker?: boolean;
  /** With temporal: how the worker's webhook deliveries resolve host names (the system resolver otherwise). */
  webhookResolve?: Resolver;
  /** Extra routes for a test (registered before the app is ready). */
  routes?: Array<(app: FastifyInstance) => Promise<void>>;
}

export { freePort };

let ownDevServer: Promise<DevServer> | undefined;

/** The run's dev server (from scripts/test.mjs), or one of our own when a file runs alone. */
async function temporalAddress(t: Tap): Promise<{ address: string; namespace: string }> {
  if (process.env.TEMPORAL_ADDRESS) {
    const slots = Number(process.env.PULLHOST_TEST_NAMESPACES ?? '1');
    const namespace = slots > 1 ? `t${Number(process.env.TAP_CHILD_ID ?? 0) % slots}` : 'default';
    return { address: process.env.TEMPORAL_ADDRESS, namespace };
  }
  if (!ownDevServer) {
    const [port, uiPort] = [await freePort(), await freePort()];
    ownDevServer = startDevServer({ cliPath: temporalCliPath(''), port, uiPort });
    t.teardown(async () => (await ownDevServer)?.stop());
  }
  return { address: (await ownDevServer).address, namespace: 'default' };
}

export async function dropMysqlDatabase(config: Config): Promise<void> {
  const admin = knexFactory({ client: 'mysql2', connection: mysqlConnection(config), pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS \`${config.DB_NAME}\``);
  } finally {
    await admin.destroy();
  }
}

export async function startTestServices(t: Tap, options: TestOptions = {}): Promise<TestServices> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pullhost-test-'));
  const port = options.listen ? await freePort() : 3000;
  const temporal = options.temporalAddress ? { address: options.temporalAddress, namespace: 'default' } : options.temporal ? await temporalAddress(t) : null;
  const config = loadConfig({
    APP_DATA_PATH: dataDir,
    DB_TYPE: options.dbType ?? 'mysql',
    // The socket when MariaDB runs here (a query costs a third of one over TCP); test/faults/mariadb-restart uses TCP.
    DB_HOST: process.env.DB_HOST ?? localMariaDbHost(),
    DB_USER: process.env.DB_USER ?? 'root',
    DB_PASSWD: process.env.DB_PASSWD ?? '',
    DB_NAME: `pullhost_test_${process.pid}_${randomBytes(3).toString('hex')}`,
    HTTP_ADDR: '127.0.0.1',
    HTTP_PORT: String(port),
    APP_URL: `http://127.0.0.1:${port}/`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    TEMPORAL_ADDRESS: temporal?.address ?? '',
    TEMPORAL_NAMESPACE: temporal?.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(4).toString('hex')}`,
    // Worlds of one test file share a namespace and start their ids at 1: their workflows must not meet.
    TEMPORAL_WORKFLOW_ID_PREFIX: `w${randomBytes(4).toString('hex')}/`,
    SECRET_KEY: 'test-secret',
    // Most worlds render nothing: a pool thread loads the renderers (about 0.3 s of CPU) on first use.
    POOL_MIN_THREADS: '0',
    ...options.env,
  });

  // A run of the whole suite has a migrated template to copy (test/schema-template.ts); the
  // migrations still run, and find nothing left to do.
  const template = process.env.PULLHOST_TEST_SCHEMA_DB;
  if (config.DB_TYPE === 'mysql' && template) await copySchemaTemplate(config, template);
  else await ensureDatabaseExists(config);
  const db = openDatabase(config);
  await migrateToLatest(db);
  const pool = createTaskPool(config);

  // The same key the admin command line derives, so secrets sealed by either open in the other.
  const secretKey = loadSecretKey(config.SECRET_KEY, dataDir);
  let worker: RunningWorker | null = null;
  let pullWorkflows: PullWorkflowClient | null = null;
  if (temporal) {
    // Temporal's log lines follow TEST_LOG_LEVEL like the service's own (silent unless asked).
    installTemporalRuntime(pino({ level: config.LOG_LEVEL }));
    const settings = { address: temporal.address, namespace: temporal.namespace, taskQueue: config.TEMPORAL_TASK_QUEUE, historyEventLimit: config.TEMPORAL_HISTORY_EVENT_LIMIT, workflowIdPrefix: config.TEMPORAL_WORKFLOW_ID_PREFIX };
    if (options.worker !== false) worker = await startTemporalWorker(settings, { db, config, secretKey, resolve: options.webhookResolve });
    pullWorkflows = await PullWorkflowClient.connect(settings);
  }
  const app = await buildApp({ config, db, pool, pullWorkflows, secretKey }, { routes: [...allRoutes, ...(options.routes ?? [])], logger: config.LOG_LEVEL !== 'silent' });
  if (options.listen) await app.listen({ host: '127.0.0.1', port });

  t.teardown(async () => {
    await app.close();
    await pullWorkflows?.close();
    await worker?.shutdown();
    await pool.destroy();
    await db.destroy();
    if (config.DB_TYPE === 'mysql') await dropMysqlDatabase(config);
    rmSync(dataDir, { recursive: true, force: true });
  });

  return { config, db, app, pool, pullWorkflows, worker, baseUrl: config.APP_URL, dataDir };
}

// Starts the real parts for one process role and stops them cleanly: database, Temporal (dev
// server when no address is configured), worker, pool and HTTP API.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createLogger, logStream } from './logger.js';
import { startIdleCollection } from './idle-gc.js';
import { startPushCatchUp } from './push-catch-up.js';
import { useDataGitHome } from './git-home.js';
import { temporalConnectionSettings, workerTuning } from './temporal-settings.js';
import { temporalCliPath } from './paths.js';
import { startDevServer, type DevServer } from './temporal-dev-server.js';
import { loadSecretKey } from './secret.js';
import { ensureDatabaseExists, openDatabase, type Db, type DatabaseLog } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { repositoriesRoot } from '../core/repositories.js';
import { checkRepositoryStorage } from '../core/repository-storage.js';
import { createTaskPool, type TaskPool } from '../workers/pool.js';
import { startTemporalWorker, type RunningWorker } from '../workers/temporal-worker.js';
import { installTemporalRuntime } from '../workers/temporal-runtime.js';
import { PullWorkflowClient } from '../workers/pull-workflow-client.js';
import { describeConnectionError, type TemporalConnectionSettings } from '../workers/temporal-connection.js';
import { buildApp } from '../api/app.js';
import { allRoutes } from '../api/routes/index.js';

export type Role = 'serve' | 'api' | 'worker';

export interface Runtime {
  config: Config;
  db: Db;
  app?: FastifyInstance;
  worker?: RunningWorker;
  devServer?: DevServer;
  temporalAddress: string;
  stop(): Promise<void>;
}

export class StartupError extends Error {}

/** knex's own messages (a pool that cannot connect, deprecations) as pino lines. */
function databaseLog(log: Logger): DatabaseLog {
  const db = log.child({ component: 'knex' });
  return { warn: (m) => db.warn(m), error: (m) => db.error(m), debug: (m) => db.debug(m) };
}

async function openAndMigrate(config: Config, log: DatabaseLog): Promise<Db> {
  try {
    await ensureDatabaseExists(config, log);
    const db = openDatabase(config, log);
    await migrateToLatest(db);
    return db;
  } catch (err) {
    const where = config.DB_TYPE === 'mysql' ? `MySQL at ${config.DB_HOST} (database ${config.DB_NAME})` : `SQLite at ${config.DB_PATH}`;
    throw new StartupError(`cannot use the database, ${where}: ${(err as Error).message}`);
  }
}

export async function startRuntime(config: Config, role: Role): Promise<Runtime> {
  const log = createLogger(config.LOG_LEVEL);
  useDataGitHome(config.APP_DATA_PATH);
  installTemporalRuntime(log);
  // Every role: a worker's bursts leave garbage as the API's do (the API also starts it: tests build it alone).
  startIdleCollection(config.IDLE_GC_SECONDS);
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err) => log.error({ err }, 'error while stopping'));
  };
  try {
    const db = await openAndMigrate(config, databaseLog(log));
    stops.push(() => db.destroy());
    if (!(await checkRepositoryStorage(db, config))) {
      throw new StartupError(`the database knows repositories but ${repositoriesRoot(config)} holds none: is the shared repository storage mounted?`);
    }

    // The cluster's TLS and API key; read first, so an unreadable certificate stops start-up at once.
    let connection: TemporalConnectionSettings = config.TEMPORAL_ADDRESS ? temporalConnectionSettings(config, config.TEMPORAL_ADDRESS) : { address: '' };
    let devServer: DevServer | undefined;
    if (!connection.address) {
      if (role !== 'serve') throw new StartupError(`the ${role} role needs TEMPORAL_ADDRESS (only serve starts a dev server)`);
      log.info('starting the Temporal dev server');
      devServer = await startDevServer({
        cliPath: temporalCliPath(config.TEMPORAL_CLI_PATH),
        dbFile: join(config.APP_DATA_PATH, 'temporal.db'),
        port: config.TEMPORAL_DEV_PORT,
        uiPort: config.TEMPORAL_UI_PORT,
      }).catch((err) => { throw new StartupError((err as Error).message); });
      stops.push(() => devServer!.stop());
      connection = { address: devServer.address }; // the dev server speaks plain gRPC on loopback
    }
    const temporal = {
      ...connection, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE,
      historyEventLimit: config.TEMPORAL_HISTORY_EVENT_LIMIT, workflowIdPrefix: config.TEMPORAL_WORKFLOW_ID_PREFIX,
    };

    // Hooks' secrets are sealed by the API and opened by the worker's deliveries: both need it.
    const secretKey = loadSecretKey(config.SECRET_KEY, config.APP_DATA_PATH);
    let worker: RunningWorker | undefined;
    if (role === 'serve' || role === 'worker') {
      worker = await startTemporalWorker({ ...temporal, tuning: workerTuning(config) }, { db, config, secretKey }).catch(async (err) => {
        throw new StartupError(await describeConnectionError(err, temporal, 'start the Temporal worker against'));
      });
      stops.push(() => worker!.shutdown());
    }

    let app: FastifyInstance | undefined;
    if (role === 'serve' || role === 'api') {
      const pool = createTaskPool(config);
      stops.push(() => pool.destroy());
      const pullWorkflows = await PullWorkflowClient.connect(temporal).catch(async (err) => {
        throw new StartupError(await describeConnectionError(err, temporal));
      });
      stops.push(() => pullWorkflows.close());
      const built = await buildApp({ config, db, pool, pullWorkflows, secretKey }, { routes: allRoutes, logStream: logStream() });
      app = built;
      stops.push(() => built.close());
      await built.listen({ host: config.HTTP_ADDR, port: config.HTTP_PORT });
      const catchUp = startPushCatchUp({ db, config, pullWorkflows }, log, config.PUSH_CATCH_UP_SECONDS);
      stops.push(() => catchUp.stop());
    }

    return { config, db, app, worker, devServer, temporalAddress: temporal.address, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

// The Temporal worker: runs the pull request and webhook workflows and the pull requests' activities
// on one task queue, and the webhook activities on their own (`<queue>-webhooks`), so receivers that
// are slow to answer never hold the slots pull request operations need.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode, type ActivityInterceptors, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { noteWork } from '../app/idle-gc.js';
import { createActivities, type ActivityDeps } from './activities.js';
import { createQueueActivities } from './queue-activities.js';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook-activities.js';
import { WebhookWorkflows } from './webhook-client.js';
import { hooksStore } from '../db/hooks.js';
import { openDatabase, type DatabaseSettings } from '../db/connection.js';
import { webhookActivityQueue } from '../workflows/webhook-messages.js';
import { ensureSearchAttributes } from './search-attributes.js';
import { connectionOptions, type TemporalConnectionSettings } from './temporal-connection.js';

/** A worker process's slots and sticky cache; each absent one keeps the SDK's default. */
export interface WorkerTuning {
  maxConcurrentWorkflowTaskExecutions?: number;
  maxConcurrentActivityTaskExecutions?: number;
  maxConcurrentLocalActivityExecutions?: number;
  maxCachedWorkflows?: number;
  stickyQueueScheduleToStartTimeout?: `${number}s`;
}

export interface WorkerSettings extends TemporalConnectionSettings {
  namespace: string;
  taskQueue: string;
  tuning?: WorkerTuning;
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

const WORKFLOWS_DIR = fileURLToPath(new URL('../workflows/', import.meta.url));
const BUNDLE_CACHE_DIR = fileURLToPath(new URL('../.workflow-bundles/', import.meta.url));
const require = createRequire(import.meta.url);

/**
 * What the bundle is made of: the compiled workflow modules and the SDK versions webpack pulls in.
 * A bundle cached under this key can only be the bundle of exactly this code.
 */
function workflowSourceKey(): string {
  const hash = createHash('sha256');
  for (const pkg of ['@temporalio/workflow', '@temporalio/common']) hash.update(`${pkg}@${(require(`${pkg}/package.json`) as { version: string }).version}\n`);
  for (const name of readdirSync(WORKFLOWS_DIR).filter((f) => f.endsWith('.js')).sort()) {
    hash.update(`${name}\n`).update(readFileSync(join(WORKFLOWS_DIR, name))).update('\n');
  }
  return hash.digest('hex').slice(0, 32);
}

async function bundleAndCache(key: string): Promise<WorkflowBundleWithSourceMap> {
  const made = await bundleWorkflowCode({
    workflowsPath: join(WORKFLOWS_DIR, 'index.js'),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
  });
  try {
    mkdirSync(BUNDLE_CACHE_DIR, { recursive: true });
    // Written aside and renamed: a process reading the cache never sees half a bundle.
    const tmp = join(BUNDLE_CACHE_DIR, `.${key}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(made));
    renameSync(tmp, join(BUNDLE_CACHE_DIR, `${key}.json`));
  } catch {
    // A read-only installation bundles in every process instead.
  }
  return made;
}

/**
 * The workflow code bundled by webpack, once per process, and cached on disk beside the compiled
 * code: bundling costs about 2 s of CPU, which every test process and worker restart paid.
 */
function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= (async () => {
    const key = workflowSourceKey();
    try {
      return JSON.parse(readFileSync(join(BUNDLE_CACHE_DIR, `${key}.json`), 'utf8')) as WorkflowBundleWithSourceMap;
    } catch {
      return bundleAndCache(key);
    }
  })();
  return bundle;
}

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

export type WorkerDeps = ActivityDeps & WebhookActivityDeps & { config: DatabaseSettings & { WEBHOOK_MAX_CONCURRENT_DELIVERIES: number } };

/**
 * Connections of the webhook activities' own pool: a burst of deliveries and payloads then waits
 * for these, never for the connections the API's requests and the pull requests' activities use.
 */
const WEBHOOK_DB_CONNECTIONS = 4;

/**
 * An activity is work as a request is: the quiet period after a burst of them gives its garbage back
 * (app/idle-gc.ts). Without this a worker's burst ended with no collection after it.
 */
const noteActivityWork: ActivityInterceptors = {
  inbound: {
    execute(input, next) {
      noteWork();
      return next(input);
    },
  },
};
const interceptors = { activity: [() => noteActivityWork] };

export async function startTemporalWorker(settings: WorkerSettings, deps: WorkerDeps): Promise<RunningWorker> {
  await ensureSearchAttributes(settings, settings.namespace);
  const connection = await NativeConnection.connect(connectionOptions(settings));
  let worker: Worker;
  let webhookWorker: Worker;
  const webhookDb = openDatabase({ ...deps.config, DB_MAX_CONNECTIONS: Math.min(WEBHOOK_DB_CONNECTIONS, deps.config.DB_MAX_CONNECTIONS) });
  try {
    worker = await Worker.create({
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      ...settings.tuning,
      workflowBundle: await workflowBundle(),
      activities: { ...createActivities(deps), ...createQueueActivities(deps) },
      interceptors,
    });
    webhookWorker = await Worker.create({
      connection,
      namespace: settings.namespace,
      taskQueue: webhookActivityQueue(settings.taskQueue),
      activities: createWebhookActivities({ ...deps, db: webhookDb }),
      interceptors,
      // One slot per hook delivering at once, plus the dispatcher's.
      maxConcurrentActivityTaskExecutions: deps.config.WEBHOOK_MAX_CONCURRENT_DELIVERIES + 1,
    });
  } catch (err) {
    await connection.close();
    await webhookDb.destroy();
    throw err;
  }
  const done = Promise.all([worker.run(), webhookWorker.run()]).then(() => undefined).finally(async () => {
    await webhookDb.destroy();
    return connection.close();
  });
  // Events recorded while no worker ran are dispatched now (a hook created since starts it too).
  if (await hooksStore(deps.db).anyExists()) {
    await new WebhookWorkflows(new Client({ connection, namespace: settings.namespace }), { ...deps.config, TEMPORAL_TASK_QUEUE: settings.taskQueue }).startDispatcher();
  }
  return {
    worker,
    done,
    async shutdown() {
      for (const w of [worker, webhookWorker]) if (w.getState() === 'RUNNING') w.shutdown();
      await done;
    },
  };
}

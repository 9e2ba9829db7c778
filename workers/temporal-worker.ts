// The Temporal worker: runs the pull request workflows and their activities on one task queue.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities.js';
import { ensureSearchAttributes } from './search-attributes.js';
import { acceptMergePrefetches } from '../core/pulls/merge-prefetch.js';

export interface WorkerSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundles the workflow code once per process (about a second) and reuses it for every worker. */
function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../workflows/index.js', import.meta.url)),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
  });
  return bundle;
}

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

export async function startTemporalWorker(settings: WorkerSettings, deps: ActivityDeps): Promise<RunningWorker> {
  await ensureSearchAttributes(settings.address, settings.namespace);
  const connection = await NativeConnection.connect({ address: settings.address });
  const worker = await Worker.create({
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities(deps),
  });
  // The API of this process may now read a merge's inputs ahead for this worker's activities.
  const stopPrefetches = acceptMergePrefetches();
  const done = worker.run().finally(() => {
    stopPrefetches();
    return connection.close();
  });
  return {
    worker,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

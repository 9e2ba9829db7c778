// The worker-thread pool (Piscina) for CPU-bound work: markup rendering and diff parsing.
// Created once per process; bounded queue (503 when full) and a per-task timeout.
import { Piscina } from 'piscina';
import { UnavailableError, ServiceError } from '../core/errors.js';
import type { PoolTask } from './pool-tasks.js';

export interface PoolSettings {
  POOL_MIN_THREADS: number;
  POOL_MAX_THREADS: number;
  POOL_MAX_QUEUE: number;
  POOL_TASK_TIMEOUT_MS: number;
  POOL_IDLE_TIMEOUT_MS?: number;
  POOL_THREAD_HEAP_MIB?: number;
}

export interface TaskPool {
  run<T>(task: PoolTask, signal?: AbortSignal): Promise<T>;
  stats(): { threads: number; queueSize: number; completed: number; runTimeP99: number };
  /** Whether every thread the pool may have is running a task (a new one would wait). */
  saturated(): boolean;
  /** Threads running now (stats() also summarises Piscina's histograms: too dear per request). */
  threadCount(): number;
  /** Input bytes of the tasks given and not yet finished, running or waiting: what a new task would wait behind. */
  backlogBytes(): number;
  destroy(): Promise<void>;
}

/** How much input a task brings: its work grows with it (rendering, scanning, parsing). */
function inputBytes(task: PoolTask): number {
  switch (task.kind) {
    case 'render': return task.request.text.length;
    case 'scanReferences': case 'parseDiff': return task.text.length;
    case 'parseJson': return task.body.byteLength;
    case 'wake': return 0;
  }
}

export function createTaskPool(s: PoolSettings): TaskPool {
  const piscina = new Piscina({
    filename: new URL('./pool-tasks.js', import.meta.url).href,
    minThreads: s.POOL_MIN_THREADS,
    maxThreads: s.POOL_MAX_THREADS,
    maxQueue: s.POOL_MAX_QUEUE,
    // A thread's heap grows to what its largest document needed and stays so while the thread
    // lives (a 500 KB document: about 150 MB). Idle threads end soon, and V8 gives their pages back.
    idleTimeout: s.POOL_IDLE_TIMEOUT_MS ?? 10_000,
    // Workers run compiled JavaScript: they need none of the parent's loaders (test hooks, tsx),
    // which would slow every thread's start.
    execArgv: [],
    // Beyond bounding a task, the limit sets how V8 grows the heap: under the default (a share of the
    // machine's memory) a thread rendering 500 KB documents reached 189 MiB of heap, under 1,024 MiB
    // 101 (bench/render-heap.ts, bench/RESULTS.md).
    resourceLimits: { maxOldGenerationSizeMb: s.POOL_THREAD_HEAP_MIB ?? 1024 },
  });
  // A worker that fails to start must not take the process down; the task that needed it fails.
  piscina.on('error', (err: Error) => {
    process.emitWarning(`pool worker error: ${err.message}`);
  });

  // Piscina's balancer may hand a busy thread more tasks instead of queueing them, so the bound
  // on waiting work is kept here: at most one running task per thread plus POOL_MAX_QUEUE waiting.
  const capacity = s.POOL_MAX_THREADS + s.POOL_MAX_QUEUE;
  let inFlight = 0;
  let backlog = 0;

  return {
    async run<T>(task: PoolTask, signal?: AbortSignal): Promise<T> {
      if (inFlight >= capacity) throw new UnavailableError('the rendering pool is busy, try again shortly', 1);
      const bytes = inputBytes(task);
      inFlight++;
      backlog += bytes;
      try {
        return await runWithDeadline<T>(task, signal);
      } finally {
        inFlight--;
        backlog -= bytes;
      }
    },
    saturated() {
      return inFlight >= s.POOL_MAX_THREADS;
    },
    threadCount() {
      return piscina.threads.length;
    },
    backlogBytes() {
      return backlog;
    },
    stats() {
      return {
        threads: piscina.threads.length,
        queueSize: Math.max(0, inFlight - piscina.threads.length),
        completed: piscina.completed,
        runTimeP99: piscina.histogram.runTime.p99,
      };
    },
    async destroy() {
      await piscina.destroy();
    },
  };

  /**
   * A running task that is aborted (its client left, its deadline passed) ends its thread, and
   * Piscina replaces threads only up to POOL_MIN_THREADS: tasks still queued then waited for the
   * next request, or for their own deadline and a 422. A trivial task makes Piscina start a thread.
   */
  function wakeQueuedTasks(): void {
    if (piscina.queueSize > 0 && piscina.threads.length < s.POOL_MAX_THREADS) piscina.run({ kind: 'wake' } satisfies PoolTask).catch(() => {});
  }

  /**
   * The deadline stops runaway work the hard way: Piscina ends the thread. A client that leaves does
   * not: a render is asked to stop through a shared cell it reads between slices of the document, and
   * other tasks (linear scans) finish. Ending a thread per departed client made Piscina start new
   * ones while the old heaps were still resident: 64 clients leaving at once added 90 MiB.
   */
  async function runWithDeadline<T>(task: PoolTask, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw new ServiceError(499, 'client closed request');
    const timeout = AbortSignal.timeout(s.POOL_TASK_TIMEOUT_MS);
    const stop = task.kind === 'render' ? new Int32Array(new SharedArrayBuffer(4)) : null;
    const askToStop = () => { if (stop) Atomics.store(stop, 0, 1); };
    signal?.addEventListener('abort', askToStop, { once: true });
    try {
      const result = (await piscina.run(stop ? { ...task, stop } : task, { signal: timeout })) as T;
      if (signal?.aborted) throw new ServiceError(499, 'client closed request');
      return result;
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      wakeQueuedTasks();
      if (timeout.aborted) {
        throw new ServiceError(422, `rendering took longer than ${s.POOL_TASK_TIMEOUT_MS} ms and was stopped; the input is too large or too complex`);
      }
      if (signal?.aborted) throw new ServiceError(499, 'client closed request');
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new ServiceError(422, 'rendering needed more memory than a pool thread may use and was stopped; the input is too large or too complex');
      }
      if (String((err as Error).message).includes('queue is at limit')) {
        throw new UnavailableError('the rendering pool is busy, try again shortly', 1);
      }
      throw err;
    } finally {
      signal?.removeEventListener('abort', askToStop);
    }
  }
}

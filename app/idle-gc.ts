// Full garbage collections when the process goes quiet after work (a request, or an activity of the
// worker: workers/temporal-worker.ts). V8 collects when it allocates, so the garbage a burst leaves
// stays resident while the process idles. Each is V8's low-memory collection (the inspector's
// HeapProfiler.collectGarbage: rounds until nothing more is freed, compacting, its page pool
// released), sent through this process's own inspector session; no port is opened.
//  - The worker threads' isolates (Temporal's workflow thread, the rendering pool's) after
//    THREAD_QUIET_MS: their collection runs on their own threads and costs the API nothing. After
//    ten bases × 100 auto-merges the workflow thread held 109 MiB of heap, 21 MiB of it live, the
//    completed workflows' garbage; collected, the service went from 337 to 219 MiB resident.
//  - The main thread's after IDLE_GC_SECONDS: it pauses requests (about 130 ms with an 80 MiB heap,
//    most of it the libraries' code and Temporal's protocol definitions), so only after a longer
//    quiet period: measured 20 s after the pull-reads load, 261 → 193 MiB resident.
import { Session } from 'node:inspector/promises';

/** Quiet time after which the worker threads' heaps are collected. */
const THREAD_QUIET_MS = 1000;
/** A thread busy for longer than this (a long render) is left to collect on its own. */
const THREAD_ANSWER_MS = 10_000;

let session: Session | null | undefined;

/** This process's own inspector session; null where the inspector is not built in. */
function inspector(): Session | null {
  if (session === undefined) {
    try {
      session = new Session();
      session.connect();
    } catch {
      session = null;
    }
  }
  return session;
}

/**
 * Collects every worker thread's heap: attaches to each through the inspector's NodeWorker domain
 * (no thread is stopped in a debugger), asks each for a collection, waits for the answers, detaches.
 */
async function collectWorkerThreads(s: Session): Promise<void> {
  const threads: string[] = [];
  const attached = (m: { params: { sessionId: string } }) => threads.push(m.params.sessionId);
  const answers = new Map<string, () => void>();
  const answered = (m: { params: { sessionId: string; message: string } }) => answers.get(m.params.sessionId)?.();
  s.on('NodeWorker.attachedToWorker', attached);
  s.on('NodeWorker.receivedMessageFromWorker', answered);
  try {
    await s.post('NodeWorker.enable', { waitForDebuggerOnStart: false }); // reports the threads running now
    await Promise.all(threads.map((sessionId) => new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, THREAD_ANSWER_MS).unref();
      answers.set(sessionId, () => { clearTimeout(timer); resolve(); });
      s.post('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }) }).catch(() => resolve());
    })));
  } finally {
    await s.post('NodeWorker.disable').catch(() => undefined);
    s.off('NodeWorker.attachedToWorker', attached);
    s.off('NodeWorker.receivedMessageFromWorker', answered);
  }
}

let lastWork = 0;
let mainHasGarbage = false;
let threadsHaveGarbage = false;
let collectingThreads = false;
let collections = 0;
let threadCollections = 0;
let timer: NodeJS.Timeout | null = null;

/** Marks the process busy now (called per request and per activity). */
export function noteWork(): void {
  lastWork = Date.now();
  mainHasGarbage = true;
  threadsHaveGarbage = true;
}

/** How many quiet-period collections of the main thread ran in this process. */
export function idleCollections(): number {
  return collections;
}

/** How many quiet-period collections of the worker threads have ended (answered, timed out or failed) in this process. */
export function idleThreadCollections(): number {
  return threadCollections;
}

/** Starts watching for quiet periods (`quietSeconds` for the main thread; 0: never collect). Idempotent; keeps no process alive. */
export function startIdleCollection(quietSeconds: number): void {
  const s = inspector();
  if (timer || quietSeconds <= 0 || !s) return;
  const quietMs = quietSeconds * 1000;
  const threadQuietMs = Math.min(quietMs, THREAD_QUIET_MS);
  timer = setInterval(() => {
    const quiet = Date.now() - lastWork;
    if (threadsHaveGarbage && !collectingThreads && quiet >= threadQuietMs) {
      threadsHaveGarbage = false;
      collectingThreads = true;
      void collectWorkerThreads(s).catch(() => undefined).finally(() => {
        collectingThreads = false;
        threadCollections++;
      });
    }
    if (mainHasGarbage && quiet >= quietMs) {
      mainHasGarbage = false;
      collections++;
      void s.post('HeapProfiler.collectGarbage').catch(() => undefined);
    }
  }, 250);
  timer.unref();
}

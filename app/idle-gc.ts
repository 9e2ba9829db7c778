// One full garbage collection when the process goes quiet after work (a request, or an activity of
// the worker: workers/temporal-worker.ts). V8 collects when it allocates, so the garbage a burst
// leaves stays resident while the process idles: measured 20 s after the pull-reads load, 261 MiB
// resident; after one collection, 193 MiB (the start was 257). A collection of a ~100 MB heap takes
// tens of milliseconds, spent only after IDLE_GC_SECONDS without work, once per quiet period.
// It is V8's low-memory collection (the inspector's HeapProfiler.collectGarbage: rounds until nothing
// more is freed, compacting, its page pool released), not `--expose-gc`'s single collection: a
// minute after ten bases × 100 auto-merges with every workflow cached, 345–352 MiB against 407.
import { Session } from 'node:inspector';

let collect: (() => void) | null | undefined;

/** A full collection through this process's own inspector session (no port is opened). */
function collector(): (() => void) | null {
  if (collect === undefined) {
    try {
      const session = new Session();
      session.connect();
      collect = () => session.post('HeapProfiler.collectGarbage');
    } catch {
      collect = null;
    }
  }
  return collect;
}

let lastWork = 0;
let workSinceCollection = false;
let collections = 0;
let timer: NodeJS.Timeout | null = null;

/** Marks the process busy now (called per request). */
export function noteWork(): void {
  lastWork = Date.now();
  workSinceCollection = true;
}

/** How many quiet-period collections ran in this process. */
export function idleCollections(): number {
  return collections;
}

/** Starts watching for quiet periods of `quietSeconds` (0: never collect). Idempotent; keeps no process alive. */
export function startIdleCollection(quietSeconds: number): void {
  if (timer || quietSeconds <= 0 || !collector()) return;
  const quietMs = quietSeconds * 1000;
  timer = setInterval(() => {
    if (!workSinceCollection || Date.now() - lastWork < quietMs) return;
    workSinceCollection = false;
    collections++;
    collector()!();
  }, Math.min(5000, Math.max(250, quietMs / 4)));
  timer.unref();
}

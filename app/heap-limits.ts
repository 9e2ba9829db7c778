// Heap settings of the service's V8 isolates: the main thread, Temporal's workflow thread, the
// rendering pool. V8 sizes an isolate's young generation, and how far it lets garbage grow before a
// full collection, from the machine's memory; on a machine of 24 GiB every isolate kept what a burst
// had grown. With 8 MiB semi-spaces 100 auto-merges ended at 343 MiB instead of 570; with a 1,024 MiB
// old-generation limit, ten bases × 100 auto-merges at 333 MiB instead of 431 (peak 376 against 451),
// for the same CPU (bench/auto-merge-scale.ts, README). The limit is far above what the service needs
// (its main thread's heap peaked at 190 MiB in that run).

import { setFlagsFromString } from 'node:v8';

export const SEMI_SPACE_FLAG = '--max-semi-space-size=8';
export const OLD_SPACE_FLAG = '--max-old-space-size=1024';

/** The node flags that set them for the main thread's isolate (`npm start` and the README pass them). */
export const HEAP_FLAGS = [SEMI_SPACE_FLAG, OLD_SPACE_FLAG];

/** Sets them for the isolates this process starts from now on: its worker threads. */
export function limitThreadHeaps(): void {
  for (const flag of HEAP_FLAGS) setFlagsFromString(flag);
}

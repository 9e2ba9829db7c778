// Young-generation size of the service's V8 isolates. V8 sizes each isolate's young generation
// from the machine's memory, and after a burst every isolate (the main thread, Temporal's workflow
// threads, the rendering and diff pool) kept it resident: 570 MiB after 100 auto-merges. With 8 MiB
// semi-spaces the same run ends at 343 MiB for the same CPU (bench/auto-merge-scale.ts, README).
import { setFlagsFromString } from 'node:v8';

export const SEMI_SPACE_MIB = 8;

/** The node flag that sets it for the main thread's isolate (`npm start` and the README pass it). */
export const SEMI_SPACE_FLAG = `--max-semi-space-size=${SEMI_SPACE_MIB}`;

/** Sets it for the isolates this process starts from now on: its worker threads. */
export function limitThreadYoungGenerations(): void {
  setFlagsFromString(SEMI_SPACE_FLAG);
}

// One rendering thread's heap: a worker thread started as the pool starts its threads (the service's
// semi-space flag, POOL_THREAD_HEAP_MIB as its old-generation limit, or no limit) renders one document
// in a loop; renders per second and the thread's peak heap (V8's total heap size after each render).
// Run: npx tsc -p . && node --max-semi-space-size=8 dist/bench/render-heap.js [seconds-per-run]
import { once } from 'node:events';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { loadConfig } from '../app/config.js';
import { SEMI_SPACE_FLAG } from '../app/heap-limits.js';
import { renderDocument } from '../workers/markup/render.js';
import { table } from './load.js';
import { benchRenderRequest, markdownDocument } from './markdown-document.js';

type Run = { bytes: number; seconds: number };
type Figures = { rendersPerSecond: number; peakHeapMiB: number };

function renderInThisThread({ bytes, seconds }: Run): Figures {
  const request = benchRenderRequest(markdownDocument(bytes));
  let peak = 0;
  let renders = 0;
  const started = performance.now();
  while (renders < 5 || performance.now() - started < seconds * 1000) {
    renderDocument(request);
    renders++;
    peak = Math.max(peak, getHeapStatistics().total_heap_size);
  }
  return { rendersPerSecond: renders / ((performance.now() - started) / 1000), peakHeapMiB: peak / 1024 / 1024 };
}

async function inThread(run: Run, heapLimitMib: number | null): Promise<Figures> {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: run, execArgv: [], resourceLimits: heapLimitMib === null ? {} : { maxOldGenerationSizeMb: heapLimitMib },
  });
  const [figures] = (await once(worker, 'message')) as [Figures];
  await worker.terminate();
  return figures;
}

async function main() {
  // The semi-space flag only: the old-generation limit is what the runs compare.
  setFlagsFromString(SEMI_SPACE_FLAG);
  const seconds = Number(process.argv[2] ?? 5);
  const limit = loadConfig({ APP_DATA_PATH: '.' }).POOL_THREAD_HEAP_MIB;
  const rows: Array<Array<string | number>> = [];
  for (const [label, bytes] of [['2 KB', 2048], ['500 KB', 500 * 1024], ['2 MiB', 2 * 1024 * 1024]] as const) {
    for (const heapLimit of [limit, null]) {
      const f = await inThread({ bytes, seconds }, heapLimit);
      rows.push([label, heapLimit === null ? 'none' : `${heapLimit} MiB`, f.rendersPerSecond.toFixed(1), f.peakHeapMiB.toFixed(1)]);
    }
  }
  process.stdout.write(`${table(['document', 'old-generation limit', 'renders/s (one thread)', 'peak heap MiB'], rows)}\n\n${seconds} s per run\n`);
}

if (isMainThread) {
  await main();
} else {
  parentPort!.postMessage(renderInThisThread(workerData as Run));
}

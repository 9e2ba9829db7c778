// Benchmark of POST /api/v1/markdown: 2 KB, 20 KB and 500 KB documents at concurrency 1, 8 and
// 64 against the real server (the pool renders), next to the renderer in a bare loop in as many
// threads as the pool has (the ceiling, in a process of its own); main-thread event-loop delay
// (p99) under 500 KB load, RSS, and the CPU each request cost the event loop, the pool threads, V8's
// helper threads and the load generator; where a small document's time goes (its render through the
// pool without HTTP, and HTTP without a render at the target's rate); then 2 KB documents while
// 500 KB ones keep the pool busy.
// The server runs in this process, with the service's heap settings: run it with the flags
// `npm start` gives node (app/heap-limits.ts).
// Run: npx tsc -p . && node --max-semi-space-size=8 --max-old-space-size=1024 dist/bench/markdown.js [seconds-per-run]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../app/config.js';
import { limitThreadHeaps } from '../app/heap-limits.js';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { createTaskPool, type TaskPool } from '../workers/pool.js';
import { buildApp } from '../api/app.js';
import { allRoutes } from '../api/routes/index.js';
import { once } from 'node:events';
import type { Knex } from 'knex';
import { Worker } from 'node:worker_threads';
import { runLoad, table, trackPeakRss, waitForIdleDatabase } from './load.js';
import { benchRenderRequest, markdownDocument } from './markdown-document.js';
import { extractReferenceCandidates } from '../workers/markup/references.js';
import { resolveReferences } from '../core/reference-resolution.js';
import { cpuBetween, threadCpuOfThisProcess, type ThreadCpu } from './proc-cpu.js';

const SECONDS = Number(process.argv[2] ?? 5);
const SAMPLING_MS = 1;

/** Renders per second of `threads` threads each rendering `text` in a bare loop. */
async function ceilingHere(text: string, seconds: number, threads: number): Promise<number> {
  const rates = await Promise.all(Array.from({ length: threads }, async () => {
    const worker = new Worker(new URL('./markdown-ceiling.js', import.meta.url), { workerData: { text, seconds } });
    const [rate] = (await once(worker, 'message')) as [number];
    await worker.terminate();
    return rate;
  }));
  return rates.reduce((a, b) => a + b, 0);
}

/**
 * The ceiling measured in a process of its own: in this one, the threads' heaps were still resident
 * when the server's load began (888 MiB at its start, 1,058 at its peak).
 */
async function ceiling(bytes: number, seconds: number, threads: number): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), '--ceiling', String(bytes), String(seconds), String(threads)]);
  return Number(stdout.trim());
}

/** CPU milliseconds per request: the event loop, the pool threads, everything else in the process (V8's helpers), the load generator. */
function cpuPerRequest(cpu: ThreadCpu, requests: number): { loop: number; pool: number; helpers: number; load: number; total: number } {
  const ms = (seconds: number) => (seconds * 1000) / Math.max(1, requests);
  let helpers = 0;
  for (const [name, seconds] of cpu.byName) if (name !== 'MainThread' && name !== 'WorkerThread') helpers += seconds;
  const split = { loop: ms(cpu.byName.get('MainThread') ?? 0), pool: ms(cpu.byName.get('WorkerThread') ?? 0), helpers: ms(helpers), load: ms(cpu.children) };
  return { ...split, total: split.loop + split.pool + split.helpers + split.load };
}

const JSON_HEADERS = { 'content-type': 'application/json' };
/** The body every scenario posts: the benchmark document of `bytes`, mode gfm. */
const requestBody = (bytes: number) => JSON.stringify({ Mode: 'gfm', Text: markdownDocument(bytes) });

/**
 * Small documents while large ones fill the pool, the mix a service sees: how long a small one
 * waits. The small load starts a second after the large one, once the pool is busy, and ends before it.
 */
async function mixedLoad(url: string) {
  const [small, large] = await Promise.all([
    new Promise((resolve) => setTimeout(resolve, 1000)).then(() => runLoad({ url, method: 'POST', body: requestBody(2048), headers: JSON_HEADERS, connections: 8, seconds: SECONDS })),
    runLoad({ url, method: 'POST', body: requestBody(500 * 1024), headers: JSON_HEADERS, connections: 16, seconds: SECONDS + 2 }),
  ]);
  return { small, large };
}

/** Issue #22, item 4: 2 KB documents at 8 connections at this share of the bare-loop ceiling. */
const SMALL_DOCUMENT_TARGET = 0.625;

/**
 * The parts of a small document's request measured apart, in this process with the server idle:
 * its render through the service's pool from the event loop (8 in flight, as 8 connections would
 * keep, no HTTP), and HTTP without a render (an empty `Text`, answered before any work) paced at the
 * target's rate, CPU per request by where it ran.
 */
async function smallDocumentParts(url: string, pool: TaskPool, db: Knex, targetRate: number) {
  const request = benchRenderRequest(markdownDocument(2048));
  const cpuBefore = threadCpuOfThisProcess();
  const started = Date.now();
  const end = started + SECONDS * 1000;
  let renders = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (Date.now() < end) {
      await pool.run({ kind: 'render', request });
      renders++;
    }
  }));
  const poolCpu = cpuPerRequest(cpuBetween(cpuBefore, threadCpuOfThisProcess()), renders);
  const poolRate = renders / ((Date.now() - started) / 1000);
  const httpBefore = threadCpuOfThisProcess();
  const http = await runLoad({ url, method: 'POST', body: requestBody(0), headers: JSON_HEADERS, connections: 8, seconds: SECONDS, rate: targetRate });
  const httpCpu = cpuPerRequest(cpuBetween(httpBefore, threadCpuOfThisProcess()), http.total);
  // The route's reference work for the document (its `@nobody` is looked up), on the event loop.
  const refsBefore = threadCpuOfThisProcess();
  const REFERENCE_ROUNDS = 2000;
  for (let i = 0; i < REFERENCE_ROUNDS; i++) await resolveReferences(db, null, extractReferenceCandidates(request.text, '', 1000, request.appUrl));
  const referencesMs = cpuPerRequest(cpuBetween(refsBefore, threadCpuOfThisProcess()), REFERENCE_ROUNDS).loop;
  return { poolRate, poolCpu, http, httpCpu, referencesMs };
}

type SmallDocumentParts = Awaited<ReturnType<typeof smallDocumentParts>>;

/**
 * The least CPU a request needs at `rate` from the parts measured apart, each at its best: HTTP, the
 * reference work, and the render either on the event loop (at the bare loop's cost) or through the
 * pool, for the share of documents rendered on the event loop that keeps it within one core.
 * Interference between the parts only adds. Null when no share keeps the event loop within a core.
 */
function leastCpuPerRequest(parts: SmallDocumentParts, renderMs: number, rate: number): { ms: number; inlineShare: number } | null {
  const loopBudget = 1000 / rate;
  let best: { ms: number; inlineShare: number } | null = null;
  for (let percent = 0; percent <= 100; percent++) {
    const f = percent / 100;
    const loop = parts.httpCpu.loop + parts.referencesMs + f * renderMs + (1 - f) * parts.poolCpu.loop;
    const ms = parts.httpCpu.total + parts.referencesMs + f * renderMs + (1 - f) * (parts.poolCpu.loop + parts.poolCpu.pool + parts.poolCpu.helpers);
    if (loop <= loopBudget && (!best || ms < best.ms)) best = { ms, inlineShare: f };
  }
  return best;
}

/** The parts in one line, with the least CPU they need at the target's rate against what the cores allow. */
function smallDocumentPartsLine(parts: SmallDocumentParts, ceiling2k: number, threads: number): string {
  const rate = SMALL_DOCUMENT_TARGET * ceiling2k;
  const cores = availableParallelism();
  const renderMs = (threads * 1000) / ceiling2k;
  const least = leastCpuPerRequest(parts, renderMs, rate);
  return `where a 2 KB document's time goes: through the pool alone (8 in flight from the event loop, no HTTP) ${parts.poolRate.toFixed(0)} renders/s, ratio ${round2(parts.poolRate / ceiling2k)}, `
    + `${round2(parts.poolCpu.loop)} ms of event-loop CPU and ${round2(parts.poolCpu.pool)} of pool-thread CPU a render; `
    + `HTTP alone (an empty Text at 8 connections, paced at the target's ${Math.round(rate)} req/s: ${parts.http.requestsPerSecond.toFixed(0)} req/s) ${round2(parts.httpCpu.total)} ms of CPU a request `
    + `(event loop / V8 helpers / load generator, its start included: ${round2(parts.httpCpu.loop)} / ${round2(parts.httpCpu.helpers)} / ${round2(parts.httpCpu.load)}); `
    + `the route's reference scan and look-up ${round2(parts.referencesMs)} ms; the target's rate leaves ${cores} cores ${round2((cores * 1000) / rate)} ms a request, `
    + (least ? `and these parts need at least ${round2(least.ms)} (${Math.round(least.inlineShare * 100)} % of documents rendered on the event loop, the share that needs least while keeping it within one core)`
      : 'and no share of documents rendered on the event loop keeps it within one core with these parts')
    + `; ${round2(renderMs + parts.httpCpu.total + parts.referencesMs)} with every render at the bare loop's cost and no hand-over (as any number of event loops rendering their own would at best)\n`;
}

const round2 = (n: number) => n.toFixed(2);
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function main() {
  limitThreadHeaps();
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-bench-'));
  const config = loadConfig({ APP_DATA_PATH: dir, HTTP_PORT: '0', LOG_LEVEL: 'silent', MARKUP_BODY_LIMIT: String(4 * 1024 * 1024), BODY_LIMIT: String(4 * 1024 * 1024), POOL_MAX_QUEUE: '1024', POOL_TASK_TIMEOUT_MS: '60000' });
  const db = openDatabase(config);
  await migrateToLatest(db);
  const pool = createTaskPool(config);
  const app = await buildApp({ config, db, pool, pullWorkflows: null, secretKey: Buffer.alloc(32, 1) }, { routes: allRoutes, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/markdown`;

  const rows: Array<Array<string | number>> = [];
  let failures = 0;
  let loopP99 = 0;
  let smallAt8 = '';
  const ceilings = new Map<number, number>();
  for (const bytes of [2048, 20 * 1024, 500 * 1024]) ceilings.set(bytes, await ceiling(bytes, Math.min(SECONDS, 3), config.POOL_MAX_THREADS));
  const start = mib(process.memoryUsage.rss());
  const rss = trackPeakRss();
  for (const [label, bytes] of [['2 KB', 2048], ['20 KB', 20 * 1024], ['500 KB', 500 * 1024]] as const) {
    const body = requestBody(bytes);
    const inProcess = ceilings.get(bytes)!;
    for (const connections of [1, 8, 64]) {
      // Each sample spans the sampling interval plus the delay; a 1 ms interval, subtracted below,
      // leaves the delay itself (with 10 ms an idle loop already read 13 ms at p99).
      const delay = monitorEventLoopDelay({ resolution: SAMPLING_MS });
      delay.enable();
      const cpuBefore = threadCpuOfThisProcess();
      const f = await runLoad({ url, method: 'POST', body, headers: JSON_HEADERS, connections, seconds: SECONDS });
      delay.disable();
      const cpu = cpuPerRequest(cpuBetween(cpuBefore, threadCpuOfThisProcess()), f.total);
      if (bytes === 2048 && connections === 8) {
        const cores = availableParallelism();
        smallAt8 = `2 KB at 8 connections: ${round2(cpu.total)} ms of CPU per request in all (the table's four parts), so ${cores} cores allow at most ${Math.round((cores * 1000) / cpu.total)} req/s; `
          + `the render itself costs ${round2((config.POOL_MAX_THREADS * 1000) / inProcess)} ms (the bare loop), wherever it runs (small documents render on the event loop while the pool is busy)\n`;
      }
      const p99ms = Math.round((delay.percentile(99) / 1e6 - SAMPLING_MS) * 10) / 10;
      if (bytes === 500 * 1024) loopP99 = Math.max(loopP99, p99ms);
      failures += f.errors + f.non2xx;
      rows.push([label, connections, f.requestsPerSecond.toFixed(1), f.p50, f.p99, f.errors + f.non2xx, inProcess.toFixed(1), (f.requestsPerSecond / inProcess).toFixed(2), p99ms,
        `${round2(cpu.loop)} / ${round2(cpu.pool)} / ${round2(cpu.helpers)} / ${round2(cpu.load)}`, mib(process.memoryUsage.rss())]);
    }
  }
  const ceiling2k = ceilings.get(2048)!;
  const parts = await smallDocumentParts(url, pool, db, SMALL_DOCUMENT_TARGET * ceiling2k);
  const mixed = await mixedLoad(url);
  const peak = rss.stop();
  const stopped = mib(process.memoryUsage.rss());
  await new Promise((r) => setTimeout(r, 60_000));
  const rested = mib(process.memoryUsage.rss());
  process.stdout.write(`${table(['document', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'errors', `ceiling req/s (${config.POOL_MAX_THREADS} threads, bare loop)`, 'ratio', 'event-loop delay p99 ms (beyond the 1 ms sampling)', 'CPU ms per request: event loop / pool threads / V8 helpers / load generator (its start included)', 'RSS after MiB'], rows)}\n`);
  process.stdout.write(`\n${smallAt8}`);
  process.stdout.write(`\n${smallDocumentPartsLine(parts, ceiling2k, config.POOL_MAX_THREADS)}`);
  failures += parts.http.errors + parts.http.non2xx;
  process.stdout.write(`\nmixed: 2 KB documents at 8 connections while 500 KB ones at 16 connections keep the pool busy: 2 KB ${mixed.small.requestsPerSecond.toFixed(1)} req/s, p50 ${mixed.small.p50} ms, p99 ${mixed.small.p99} ms; 500 KB ${mixed.large.requestsPerSecond.toFixed(1)} req/s\n`);
  failures += mixed.small.errors + mixed.small.non2xx + mixed.large.errors + mixed.large.non2xx;
  process.stdout.write(`\nserver RSS: ${start} MiB at the start, peak ${peak} MiB, ${stopped} MiB when the load stopped, ${rested} MiB a minute later (${((rested / start - 1) * 100).toFixed(0)} % over the start); pool threads alive then: ${pool.stats().threads}\n`);
  process.stdout.write(`worst main-thread event-loop delay p99 under 500 KB load: ${loopP99} ms (target < 20 ms)\n`);
  process.stdout.write(`pool threads: ${config.POOL_MAX_THREADS}; ${SECONDS} s per run; ${failures === 0 ? 'no errors' : `FAILURES: ${failures}`}\n`);
  await app.close();
  await pool.destroy();
  await waitForIdleDatabase(db);
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
  process.exit(failures === 0 ? 0 : 1);
}

const run = process.argv[2] === '--ceiling'
  ? async () => process.stdout.write(`${await ceilingHere(markdownDocument(Number(process.argv[3])), Number(process.argv[4]), Number(process.argv[5]))}\n`)
  : main;
run().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

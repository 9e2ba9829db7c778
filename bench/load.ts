// Shared benchmark plumbing: autocannon in a separate process, figures in one shape.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../app/paths.js';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** Requests per second in all, paced (autocannon `-R`); unpaced when absent. */
  rate?: number;
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

/** Runs autocannon as its own process so the load generator does not share the server's event loop. */
export async function runLoad(o: LoadOptions): Promise<LoadFigures> {
  const args = [join(projectRoot, 'node_modules', 'autocannon', 'autocannon.js'), '-j', '-c', String(o.connections), '-d', String(o.seconds), '-m', o.method ?? 'GET'];
  if (o.rate !== undefined) args.push('-R', String(Math.round(o.rate)));
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}=${v}`);
  // Large bodies go through a file: they do not fit on a command line.
  const bodyDir = o.body !== undefined ? mkdtempSync(join(tmpdir(), 'bench-body-')) : null;
  if (bodyDir) {
    writeFileSync(join(bodyDir, 'body'), o.body!);
    args.push('-i', join(bodyDir, 'body'));
  }
  args.push(o.url);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  if (bodyDir) rmSync(bodyDir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`autocannon failed with status ${code}`);
  const r = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    errors: number; timeouts: number; non2xx: number;
  };
  return { requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, total: r.requests.total };
}

/** Samples the process's resident set size; returns a function giving the peak in MiB. */
export function trackPeakRss(intervalMs = 50): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.round((peak / 1024 / 1024) * 10) / 10;
    },
  };
}

export function table(header: string[], rows: Array<Array<string | number>>): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/**
 * Waits until no query is running or waiting for a connection: requests the load generator gave up
 * on at the end of a run may still be in the server, and destroying the pool under them only
 * prints acquire errors.
 */
export async function waitForIdleDatabase(db: { client: { pool?: { numUsed(): number; numPendingAcquires(): number } | null } }, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pool = db.client.pool;
  while (pool && pool.numUsed() + pool.numPendingAcquires() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

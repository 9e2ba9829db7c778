// Operational metrics in the Prometheus text exposition format (version 0.0.4), written by hand: the
// format is a few lines of text, and counters, gauges and one histogram family need no library.
// HTTP figures are per app (each test builds its own); workflow operations are per process because
// the recorder is called from code that has no app at hand.
import { getHeapStatistics } from 'node:v8';
import { baseMoveCount } from '../../core/pulls/landing/index.js';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { gitCommandStats } from '../../git/runner.js';
import { mergeCommitStats } from '../../core/pulls/merge.js';
import { statementCount } from '../../db/connection.js';

/** Prometheus's default latency buckets, in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = Record<string, string>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function number(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

/** A family of counters keyed by their label set. */
class CounterFamily {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, readonly help: string) {}
  inc(labels: Labels, by = 1): void {
    const key = labelText(labels);
    const entry = this.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.values.set(key, entry);
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, { value }] of this.values) lines.push(`${this.name}${key} ${number(value)}`);
    return lines;
  }
}

class HistogramFamily {
  private readonly values = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string) {}
  observe(labels: Labels, seconds: number): void {
    const key = labelText(labels);
    const entry = this.values.get(key) ?? { labels, buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
    BUCKETS.forEach((le, i) => { if (seconds <= le) entry.buckets[i]++; });
    entry.sum += seconds;
    entry.count++;
    this.values.set(key, entry);
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, buckets, sum, count } of this.values.values()) {
      BUCKETS.forEach((le, i) => lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(le) })} ${buckets[i]}`));
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${number(sum)}`);
      lines.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines;
  }
}

function gauge(name: string, help: string, samples: Array<[Labels, number]>, type: 'gauge' | 'counter' = 'gauge'): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples.map(([l, v]) => `${name}${labelText(l)} ${number(v)}`)];
}

/**
 * The process's resident memory and the main thread's V8 heap (prom-client's names): what the
 * resident figure holds beyond that heap is the threads' heaps (the pool's, Temporal's workflow
 * threads') and native memory.
 */
function memoryGauges(): string[] {
  const heap = getHeapStatistics();
  return [
    ...gauge('process_resident_memory_bytes', 'Resident memory of this process.', [[{}, process.memoryUsage.rss()]]),
    ...gauge('nodejs_heap_size_total_bytes', 'Size of the main thread\'s V8 heap.', [[{}, heap.total_heap_size]]),
    ...gauge('nodejs_heap_size_used_bytes', 'Used size of the main thread\'s V8 heap.', [[{}, heap.used_heap_size]]),
    ...gauge('nodejs_external_memory_bytes', 'Memory held outside the main thread\'s V8 heap by its objects (buffers).', [[{}, heap.external_memory]]),
  ];
}

const workflowOperations = new CounterFamily('pullhost_workflow_operations_total', 'Pull request workflow operations by kind (update name) and outcome (HTTP status the operation answered, or error).');

/** Counts one pull request workflow operation; `outcome` is the status it answered or a failure word. */
export function recordWorkflowOperation(kind: string, outcome: number | string): void {
  workflowOperations.inc({ kind, outcome: String(outcome) });
}

/** Knex's pool (tarn) counts, when the client has one; SQLite's single connection still has a pool. */
interface TarnLike {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max?: number;
}

export interface MetricsSource {
  render(): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: MetricsSource;
  }
}

export const metricsPlugin = fp(async (app: FastifyInstance) => {
  const requests = new CounterFamily('pullhost_http_requests_total', 'HTTP requests by route pattern, method and status.');
  const latency = new HistogramFamily('pullhost_http_request_duration_seconds', 'HTTP request latency by route pattern, method and status.');

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: one series per route, whatever the path segments were.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { route, method: request.method, status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });

  app.decorate('metrics', {
    render(): string {
      const { pool, db } = app.services;
      const stats = pool.stats();
      const lines = [
        ...requests.render(),
        ...latency.render(),
        ...gauge('pullhost_pool_threads', 'Worker threads in the rendering and diff pool.', [[{}, stats.threads]]),
        ...gauge('pullhost_pool_queue_depth', 'Tasks waiting for a pool thread.', [[{}, stats.queueSize]]),
        ...gauge('pullhost_pool_tasks_completed_total', 'Pool tasks completed since start.', [[{}, stats.completed]], 'counter'),
        ...gauge('pullhost_pool_task_run_time_p99_seconds', 'The 99th percentile of pool task run time.', [[{}, stats.runTimeP99 / 1000]]),
        ...workflowOperations.render(),
        ...gauge('pullhost_git_commands_total', 'Buffered git commands run, by subcommand.', [...gitCommandStats()].map(([command, v]) => [{ command }, v.count]), 'counter'),
        ...gauge('pullhost_merge_commits_total', 'Merge commits, by how they were written: with the journal written meanwhile, mispredicted or unpredicted.', Object.entries(mergeCommitStats()).map(([written, n]) => [{ written }, n]), 'counter'),
        ...gauge('pullhost_base_moves_total', 'Base branches moved by landing a chain of merges (core/pulls/landing), one compare-and-swap each.', [[{ by: 'landing' }, baseMoveCount()]], 'counter'),
        ...gauge('pullhost_db_statements_total', 'Statements sent to the database by this process (transactions\' begin and commit included).', [[{}, statementCount()]], 'counter'),
        ...gauge('pullhost_git_command_seconds_total', 'Wall time of buffered git commands, by subcommand.', [...gitCommandStats()].map(([command, v]) => [{ command }, v.seconds]), 'counter'),
        ...memoryGauges(),
      ];
      const tarn = (db as unknown as { client?: { pool?: TarnLike } }).client?.pool;
      if (tarn && typeof tarn.numUsed === 'function') {
        lines.push(...gauge('pullhost_db_pool_connections', 'Database pool connections by state.', [[{ state: 'used' }, tarn.numUsed()], [{ state: 'free' }, tarn.numFree()]]));
        lines.push(...gauge('pullhost_db_pool_pending_acquires', 'Queries waiting for a database connection.', [[{}, tarn.numPendingAcquires()]]));
        if (typeof tarn.max === 'number') lines.push(...gauge('pullhost_db_pool_max_connections', 'The database pool size.', [[{}, tarn.max]]));
      }
      return `${lines.join('\n')}\n`;
    },
  });
}, { name: 'pullhost-metrics' });

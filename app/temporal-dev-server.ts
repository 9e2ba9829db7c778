// Runs the Temporal dev server (the Temporal CLI) as a child process when no Temporal address is
// configured, keeping its state in a file so workflows survive restarts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { PULL_SEARCH_ATTRIBUTE_KEYS, QUEUE_SEARCH_ATTRIBUTE_KEYS } from '../workflows/search-attributes.js';
import { WEBHOOK_SEARCH_ATTRIBUTE_KEYS } from '../workflows/webhook-messages.js';
import { portOpen } from './ports.js';

export interface DevServerOptions {
  cliPath: string;
  /** Absent: in-memory (tests). */
  dbFile?: string;
  port: number;
  uiPort: number;
  namespaces?: string[];
  log?: (line: string) => void;
  /** How long it may take to answer gRPC; 60 s unless a test says otherwise. */
  readyTimeoutMs?: number;
}

export interface DevServer {
  address: string;
  uiUrl: string;
  /** The CLI's process id (benchmarks read its resident memory). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Search attributes the pull request and webhook workflows set, so the Temporal UI can find them. */
export const PULL_SEARCH_ATTRIBUTES = [...PULL_SEARCH_ATTRIBUTE_KEYS, ...QUEUE_SEARCH_ATTRIBUTE_KEYS, ...WEBHOOK_SEARCH_ATTRIBUTE_KEYS].map((k) => `${k.name}=${TypedSearchAttributes.toMetadataType(k.type)}`);

/**
 * Whether the frontend answers a gRPC call. Its port opens before it serves (a restart reads its
 * state file first): on a starved core the worker's 5 s connect timeout ran out in between.
 */
async function frontendAnswers(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: '2 seconds' });
    const open = connection;
    await open.withDeadline(Date.now() + 2000, () => open.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => {});
  }
}

export async function startDevServer(o: DevServerOptions): Promise<DevServer> {
  if (await portOpen(o.port)) {
    throw new Error(`port ${o.port} is already in use: set TEMPORAL_DEV_PORT to a free port, or TEMPORAL_ADDRESS to use that server`);
  }
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(o.port), '--ui-port', String(o.uiPort), '--log-level', 'error',
    '--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true',
    '--dynamic-config-value', 'frontend.enableExecuteMultiOperation=true',
    '--dynamic-config-value', 'frontend.workerVersioningWorkflowAPIs=true'];
  for (const attr of PULL_SEARCH_ATTRIBUTES) args.push('--search-attribute', attr);
  if (o.dbFile) {
    mkdirSync(dirname(o.dbFile), { recursive: true });
    args.push('--db-filename', o.dbFile);
  }
  for (const ns of o.namespaces ?? []) args.push('--namespace', ns);

  const child: ChildProcess = spawn(o.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let exited = false;
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    o.log?.(chunk.toString().trimEnd());
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exitPromise = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  const spawnError = new Promise<never>((_, reject) => child.once('error', (err) => reject(new Error(`could not run the Temporal CLI at ${o.cliPath}: ${err.message}`))));
  spawnError.catch(() => {});

  const readyMs = o.readyTimeoutMs ?? 60_000;
  const deadline = Date.now() + readyMs;
  const address = `127.0.0.1:${o.port}`;
  const waitUntil = async (ready: () => Promise<boolean>, what: string) => {
    while (!(await ready())) {
      if (exited) throw new Error(`the Temporal dev server exited during start-up:\n${output}`);
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`the Temporal dev server did not ${what} within ${Math.round(readyMs / 1000)} s`);
      }
      await Promise.race([new Promise((r) => setTimeout(r, 100)), spawnError]);
    }
  };
  await waitUntil(() => portOpen(o.port), 'open its port');
  await waitUntil(() => frontendAnswers(address), 'answer gRPC on its port');

  return {
    address,
    uiUrl: `http://localhost:${o.uiPort}`,
    pid: child.pid,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}

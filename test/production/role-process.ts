// The service's roles as separate processes (`node dist/app/main.js api|worker`), as an installation
// with several machines runs them: each gets the test world's database, repositories and Temporal
// task queue, plus settings of its own (TLS, a fault point).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Config } from '../../app/config.js';
import { projectRoot } from '../../app/paths.js';
import { freePort } from '../../app/ports.js';
import { allocatorEnv } from '../../app/allocator.js';

export interface RoleProcess {
  role: 'api' | 'worker';
  child: ChildProcess;
  /** The API's base URL (api role), e.g. http://127.0.0.1:PORT/ */
  baseUrl: string;
  /** Resolves with the exit status (137 after SIGKILL). */
  exited: Promise<number | null>;
  /** Resolves once the process printed where to go; rejects when it exits first. */
  ready: Promise<void>;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/** The test world's shared settings, as the processes of one installation share them. */
function sharedEnv(config: Config): Record<string, string> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^TEMPORAL_(TLS|API_KEY|WORKER_)/.test(k))) as Record<string, string>;
  return {
    ...inherited,
    APP_DATA_PATH: config.APP_DATA_PATH,
    DB_TYPE: config.DB_TYPE, DB_HOST: config.DB_HOST, DB_NAME: config.DB_NAME, DB_USER: config.DB_USER, DB_PASSWD: config.DB_PASSWD,
    TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
    TEMPORAL_WORKFLOW_ID_PREFIX: config.TEMPORAL_WORKFLOW_ID_PREFIX,
    SECRET_KEY: config.SECRET_KEY, LOG_LEVEL: 'warn', POOL_MIN_THREADS: '0', HTTP_ADDR: '127.0.0.1',
    // On the allocator `npm start` gives the service.
    ...allocatorEnv(inherited),
  };
}

export async function startRole(config: Config, role: 'api' | 'worker', env: Record<string, string> = {}): Promise<RoleProcess> {
  const port = role === 'api' ? await freePort() : 0;
  const baseUrl = role === 'api' ? `http://127.0.0.1:${port}/` : '';
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'app', 'main.js'), role], {
    env: { ...sharedEnv(config), ...(role === 'api' ? { HTTP_PORT: String(port), APP_URL: baseUrl } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal === 'SIGKILL' ? 137 : code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('pullhost is up')) resolve();
    });
    void exited.then((code) => reject(new Error(`the ${role} process exited with ${code} before it was up: ${err.trim() || out.slice(-2000)}`)));
  });
  ready.catch(() => {}); // awaited by the caller when it wants the process up
  child.stderr!.on('data', (chunk) => (err += chunk));
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    role, child, baseUrl, exited, ready,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (running()) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** An HTTP request to a role process's API. */
export async function request(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; json: () => any; text: string; headers: Headers }> {
  const res = await fetch(new URL(path.replace(/^\//, ''), base), {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: () => JSON.parse(text) };
}

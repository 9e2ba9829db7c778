// A Temporal worker in its own process (the `worker` role), so a test can kill it mid-operation.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../app/paths.js';
import type { Config } from '../../app/config.js';
import type { Test as Tap } from 'tap';
import { freePort } from '../helper.js';

export interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
  stop(): Promise<void>;
}

export function startWorkerProcess(config: Config, extraEnv: Record<string, string> = {}): WorkerProcess {
  return startRoleProcess(config, 'worker', extraEnv);
}

/** The service in its own process in `role` (`worker`, or `api` listening on extraEnv.HTTP_PORT), on the test world's database and Temporal. */
export function startRoleProcess(config: Config, role: 'worker' | 'api', extraEnv: Record<string, string> = {}): WorkerProcess {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    APP_DATA_PATH: config.APP_DATA_PATH, APP_URL: config.APP_URL,
    DB_TYPE: config.DB_TYPE, DB_HOST: config.DB_HOST, DB_NAME: config.DB_NAME, DB_USER: config.DB_USER, DB_PASSWD: config.DB_PASSWD,
    TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE, TEMPORAL_WORKFLOW_ID_PREFIX: config.TEMPORAL_WORKFLOW_ID_PREFIX,
    SECRET_KEY: config.SECRET_KEY, LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'app', 'main.js'), role], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal === 'SIGKILL' ? 137 : code)));
  return {
    child,
    exited,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * An `api` process on a free port of its own, once it answers /api/healthz. On a core shared with
 * the rest of the suite a start has taken more than 30 s: it gets two minutes, and a process that
 * exits first is reported at once, with its output.
 */
export async function startApiProcess(t: Tap, config: Config, extraEnv: Record<string, string> = {}): Promise<{ api: WorkerProcess; base: string }> {
  const port = await freePort();
  const api = startRoleProcess(config, 'api', { HTTP_PORT: String(port), HTTP_ADDR: '127.0.0.1', APP_URL: `http://127.0.0.1:${port}/`, ...extraEnv });
  t.teardown(() => api.stop());
  const base = `http://127.0.0.1:${port}`;
  let exited = false;
  void api.exited.then(() => (exited = true));
  const deadline = Date.now() + 120_000;
  let up = false;
  while (!up && !exited && Date.now() < deadline) {
    up = (await fetch(`${base}/api/healthz`).catch(() => null))?.ok === true;
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(up, `the API process answers${up ? '' : ` (${exited ? 'it exited' : 'not within 120 s'}): ${api.output().slice(-500)}`}`);
  return { api, base };
}

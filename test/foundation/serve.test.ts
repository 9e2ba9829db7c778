// The `serve` role end to end, as `npm start` runs it: embedded SQLite, the Temporal dev server as
// a child process, the worker and the API in one process; clean stop; data kept across restarts.
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { projectRoot } from '../../app/paths.js';
import { portOpen } from '../../app/ports.js';
import { freePort } from '../helper.js';

const main = join(projectRoot, 'dist', 'app', 'main.js');

/** The three ports serve listens on, picked free now (an env for the service). */
async function freshPorts(): Promise<Record<string, string>> {
  return { HTTP_PORT: String(await freePort()), TEMPORAL_DEV_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()) };
}

/**
 * `serve` up and ready. A port picked free can be taken by another process before serve binds it
 * (other test files, or another run on the machine): then serve exits saying so, and it is started
 * again on new ports, at most twice; `env` keeps the ports it runs on.
 */
async function startServe(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  for (let attempt = 1; ; attempt++) {
    const child = spawn(process.execPath, [main, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    const deadline = Date.now() + 90_000;
    while (!out.includes('Press Ctrl-C to stop.') && child.exitCode === null) {
      if (Date.now() > deadline) throw new Error(`serve did not come up:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    if (child.exitCode === null) return { child, output: () => out };
    if (attempt === 3 || !/already in use/.test(out)) throw new Error(`serve exited early:\n${out}`);
    Object.assign(env, await freshPorts());
  }
}

async function stop(child: ChildProcess): Promise<number | null> {
  child.kill('SIGINT');
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

t.test('serve starts everything, prints where to go, stops cleanly and keeps its data', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pullhost-serve-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = { APP_DATA_PATH: dataDir, HTTP_ADDR: '127.0.0.1', TEMPORAL_ADDRESS: '', DB_TYPE: 'sqlite3', LOG_LEVEL: 'warn', ...await freshPorts() };

  const created = spawnSync(process.execPath, [main, 'admin', 'user', 'create', '--username', 'root', '--email', 'root@example.com', '--password', 'secret-password-1', '--admin'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  t.equal(created.status, 0, created.stderr);
  t.match(created.stdout, /created user root/);
  t.notMatch(created.stdout + created.stderr, /secret-password-1/, 'the admin command never prints the password');

  const first = await startServe(env);
  const [httpPort, devPort, uiPort] = [env.HTTP_PORT, env.TEMPORAL_DEV_PORT, env.TEMPORAL_UI_PORT].map(Number);
  t.match(first.output(), `API:         http://localhost:${httpPort}/api/v1`);
  t.match(first.output(), `Swagger UI:  http://localhost:${httpPort}/api/swagger`);
  t.match(first.output(), `Temporal UI: http://localhost:${uiPort}`);
  const health = await fetch(`http://127.0.0.1:${httpPort}/api/healthz`);
  t.equal(health.status, 200);
  const doc = await fetch(`http://127.0.0.1:${httpPort}/swagger.v1.json`);
  t.equal(((await doc.json()) as { swagger: string }).swagger, '2.0');
  t.equal((await fetch(`http://127.0.0.1:${uiPort}/`)).status, 200, 'the Temporal UI answers');

  // A workflow started now must still be there after a restart (the dev server keeps a file).
  const connection = await Connection.connect({ address: `127.0.0.1:${devPort}` });
  const client = new Client({ connection });
  await client.workflow.start('pullRequestWorkflow', { taskQueue: 'pullhost', workflowId: 'pull/999/1', args: [{ key: { repoId: 999, index: 1 } }] });
  await connection.close();

  t.equal(await stop(first.child), 0, 'Ctrl-C stops with status 0');
  t.notOk(await portOpen(devPort), 'no orphaned dev server after the stop');
  t.notOk(await portOpen(httpPort), 'the API port is released');
  t.ok(existsSync(join(dataDir, 'pullhost.db')) && existsSync(join(dataDir, 'temporal.db')), 'data files under APP_DATA_PATH');

  const second = await startServe(env);
  t.teardown(() => second.child.exitCode === null && second.child.kill('SIGKILL'));
  const connection2 = await Connection.connect({ address: `127.0.0.1:${env.TEMPORAL_DEV_PORT}` });
  const described = await new Client({ connection: connection2 }).workflow.getHandle('pull/999/1').describe();
  t.equal(described.workflowId, 'pull/999/1', 'the workflow survived the restart');
  await connection2.close();
  const again = spawnSync(process.execPath, [main, 'admin', 'user', 'create', '--username', 'root', '--email', 'other@example.com', '--password', 'secret-password-2'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  t.equal(again.status, 1, 'the user made before the restart still exists');
  t.match(again.stderr, /user already exists/);
  t.equal(await stop(second.child), 0);
});

t.test('bad configuration and unreachable parts give a clear message and a non-zero exit', async (t) => {
  const bad = spawnSync(process.execPath, [main, 'serve'], { env: { ...process.env, HTTP_PORT: 'eighty' }, encoding: 'utf8', timeout: 30_000 });
  t.equal(bad.status, 1);
  t.match(bad.stderr, /^configuration error: HTTP_PORT must be an integer/);

  const dataDir = mkdtempSync(join(tmpdir(), 'pullhost-serve-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const noDb = spawnSync(process.execPath, [main, 'serve'], { env: { ...process.env, APP_DATA_PATH: dataDir, DB_TYPE: 'mysql', DB_HOST: '127.0.0.1:1', TEMPORAL_ADDRESS: '127.0.0.1:1' }, encoding: 'utf8', timeout: 30_000 });
  t.equal(noDb.status, 1);
  t.match(noDb.stderr, /^cannot start: cannot use the database, MySQL at 127.0.0.1:1/);
  t.notMatch(noDb.stderr, /\n\s+at /, 'no stack trace');
  // knex's own warnings go through the service's logger (JSON when piped), not to the console.
  const knexLines = noDb.stdout.split('\n').filter((line) => line.includes('Acquire connection error'));
  t.ok(knexLines.length > 0, 'knex said it could not connect');
  for (const line of knexLines) t.match(JSON.parse(line), { level: 40, component: 'knex', msg: /^Acquire connection error/ }, 'as a pino line');

  const noTemporal = spawnSync(process.execPath, [main, 'worker'], { env: { ...process.env, APP_DATA_PATH: dataDir, DB_TYPE: 'sqlite3', TEMPORAL_ADDRESS: '127.0.0.1:1' }, encoding: 'utf8', timeout: 60_000 });
  t.equal(noTemporal.status, 1);
  t.match(noTemporal.stderr, /^cannot start: cannot start the Temporal worker against 127.0.0.1:1/);
});

// A benchmark world on the real parts: MariaDB (a fresh database), a Temporal dev server of its
// own, the worker and the API in this process listening on a free port, one user and repository.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import knexFactory from 'knex';
import { loadConfig, type Config } from '../app/config.js';
import { temporalCliPath } from '../app/paths.js';
import { startDevServer } from '../app/temporal-dev-server.js';
import { ensureDatabaseExists, mysqlConnection, openDatabase, type Db } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { createTaskPool } from '../workers/pool.js';
import { startTemporalWorker } from '../workers/temporal-worker.js';
import { installTemporalLogging } from '../workers/temporal-logging.js';
import pino from 'pino';
import { PullWorkflowClient } from '../workers/pull-workflow-client.js';
import { buildApp } from '../api/app.js';
import { allRoutes } from '../api/routes/index.js';
import { createUser } from '../core/accounts.js';
import { usersStore } from '../db/users.js';
import { repoDiskPath } from '../core/repositories.js';
import { branchRef, resolveRef, runGit, updateRef, hashBlob, commitTree } from '../git/index.js';
import { freePort } from '../app/ports.js';

export const PASSWORD = 'bench-password-123';

export interface BenchWorld {
  config: Config;
  db: Db;
  app: FastifyInstance;
  base: string;
  auth: string;
  repoPath: string;
  /** Makes branch `name` with one new file on top of main, straight in the bare repository. */
  branch(name: string, file: string, content: string): Promise<string>;
  close(): Promise<void>;
}

export async function startBenchWorld(env: Record<string, string> = {}): Promise<BenchWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-bench-'));
  const [httpPort, devPort, uiPort] = [await freePort(), await freePort(), await freePort()];
  const dev = await startDevServer({ cliPath: temporalCliPath(''), port: devPort, uiPort });
  const config = loadConfig({
    APP_DATA_PATH: dir, DB_TYPE: 'mysql', DB_NAME: `pullhost_bench_${process.pid}`, HTTP_PORT: String(httpPort), HTTP_ADDR: '127.0.0.1',
    APP_URL: `http://127.0.0.1:${httpPort}/`, LOG_LEVEL: 'silent', TEMPORAL_ADDRESS: dev.address, SECRET_KEY: 'bench', ...env,
  });
  await ensureDatabaseExists(config);
  const db = openDatabase(config);
  await migrateToLatest(db);
  const temporal = { address: dev.address, namespace: 'default', taskQueue: config.TEMPORAL_TASK_QUEUE };
  // Temporal's own lines go where the service's go (nowhere at LOG_LEVEL silent), not to the console.
  installTemporalLogging(pino({ level: config.LOG_LEVEL }));
  const worker = await startTemporalWorker(temporal, { db, config });
  const pullWorkflows = await PullWorkflowClient.connect(temporal);
  const pool = createTaskPool(config);
  const app = await buildApp({ config, db, pool, pullWorkflows, secretKey: Buffer.alloc(32, 3) }, { routes: allRoutes, logger: false });
  await app.listen({ host: '127.0.0.1', port: httpPort });

  const user = await createUser(db, { username: 'bench', email: 'bench@example.com', password: PASSWORD });
  await usersStore(db).update(user.id, { is_admin: true });
  const basic = `Basic ${Buffer.from(`bench:${PASSWORD}`).toString('base64')}`;
  // Clients use tokens: a password would add an argon2 check (tens of ms) to every request.
  const tokenReply = await fetch(`${config.APP_URL}api/v1/users/bench/tokens`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: ['all'] }) });
  if (tokenReply.status !== 201) throw new Error(`token: ${tokenReply.status} ${await tokenReply.text()}`);
  const auth = `token ${((await tokenReply.json()) as { sha1: string }).sha1}`;
  const created = await fetch(`${config.APP_URL}api/v1/user/repos`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', auto_init: true }) });
  if (created.status !== 201) throw new Error(`repository: ${created.status} ${await created.text()}`);
  const repoPath = repoDiskPath(config, 'bench', 'bench');

  async function branch(name: string, file: string, content: string): Promise<string> {
    const main = (await resolveRef(repoPath, branchRef('main')))!;
    const index = join(dir, `index-${name}`);
    const env = { GIT_INDEX_FILE: index };
    await runGit(['read-tree', main], { cwd: repoPath, env, okExitCodes: [0] });
    const blob = await hashBlob(repoPath, content);
    await runGit(['update-index', '--add', '--cacheinfo', `100644,${blob},${file}`], { cwd: repoPath, env, okExitCodes: [0] });
    const tree = (await runGit(['write-tree'], { cwd: repoPath, env, okExitCodes: [0] })).stdout.trim();
    rmSync(index, { force: true });
    const who = { name: 'Bench', email: 'bench@example.com' };
    const sha = await commitTree(repoPath, { tree, parents: [main], message: `add ${file}`, author: who, committer: who });
    await updateRef(repoPath, branchRef(name), sha, null);
    return sha;
  }

  return {
    config, db, app, base: config.APP_URL, auth, repoPath, branch,
    async close() {
      await app.close();
      await pullWorkflows.close();
      await worker.shutdown();
      await pool.destroy();
      await db.destroy();
      const admin = knexFactory({ client: 'mysql2', connection: mysqlConnection(config), pool: { min: 0, max: 1 } });
      await admin.raw(`DROP DATABASE IF EXISTS \`${config.DB_NAME}\``);
      await admin.destroy();
      await dev.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

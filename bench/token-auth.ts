// Benchmark of personal access token authentication: the CPU time of the authentication step alone
// (parse, HMAC, one indexed lookup of the token and its owner, scope parse), measured with
// process.cpuUsage() over a loop of direct calls; then requests/second and latency of
// GET /api/v1/version anonymous vs. with a token, with autocannon in its own process.
// SQLite (a file in a temporary directory) always; MariaDB too when it answers on DB_HOST.
// Run: npx tsc -p . && node dist/bench/token-auth.js [seconds-per-load-run]
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../app/config.js';
import { limitThreadHeaps } from '../app/heap-limits.js';
import knexFactory from 'knex';
import { ensureDatabaseExists, mysqlConnection, openDatabase, splitHostPort, type Db } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { createTaskPool } from '../workers/pool.js';
import { buildApp } from '../api/app.js';
import { allRoutes } from '../api/routes/index.js';
import { createUser } from '../core/accounts.js';
import { createAccessToken } from '../core/access-tokens.js';
import { authenticateRequest, type AuthenticationDeps } from '../core/authenticate.js';
import { hashToken } from '../core/auth/tokens.js';
import { tokensStore } from '../db/tokens.js';
import { LoginThrottle } from '../core/auth/throttle.js';
import { loginThrottleStore } from '../db/login-throttle.js';
import { runLoad, table, trackPeakRss, waitForIdleDatabase } from './load.js';

const SECONDS = Number(process.argv[2] ?? 5);
const CPU_CALLS = 20_000;

interface CpuFigures {
  /** user + system µs per call, median round */
  median: number;
  best: number;
  /** user and system µs per call of the median round: system is mostly the database round trip in the kernel */
  user: number;
  system: number;
}

/**
 * CPU µs per call of `fn`: rounds of sequential calls after a warm-up; the median round is
 * reported (the machine may be shared, and one busy moment should not decide) next to the best.
 */
async function cpuPerCall(fn: () => Promise<unknown> | unknown, calls: number, rounds = 10): Promise<CpuFigures> {
  for (let i = 0; i < Math.min(2000, calls); i++) await fn();
  const perRound = Math.ceil(calls / rounds);
  const results: Array<{ user: number; system: number; total: number }> = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < perRound; i++) await fn();
    const used = process.cpuUsage(start);
    results.push({ user: used.user / perRound, system: used.system / perRound, total: (used.user + used.system) / perRound });
  }
  results.sort((a, b) => a.total - b.total);
  const median = results[Math.floor(results.length / 2)]!;
  return { median: median.total, best: results[0]!.total, user: median.user, system: median.system };
}

function mariaDbAnswers(config: Config): Promise<boolean> {
  const { host, port } = splitHostPort(config.DB_HOST);
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false); });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

async function dropMysqlDatabase(config: Config): Promise<void> {
  const admin = knexFactory({ client: 'mysql2', connection: mysqlConnection(config), pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS \`${config.DB_NAME}\``);
  } finally {
    await admin.destroy();
  }
}

interface Figures {
  database: string;
  authCpuUs: CpuFigures;
  lookupCpuUs: CpuFigures;
  hmacCpuUs: CpuFigures;
  rows: Array<Array<string | number>>;
  /** Errors and non-2xx answers under load. */
  failures: number;
}

async function measure(database: 'sqlite3' | 'mysql', dir: string): Promise<Figures | null> {
  const config = loadConfig({
    APP_DATA_PATH: join(dir, database), DB_TYPE: database, HTTP_PORT: '0', LOG_LEVEL: 'silent',
    DB_NAME: `pullhost_bench_${process.pid}_${randomBytes(3).toString('hex')}`,
    DB_HOST: process.env.DB_HOST ?? '127.0.0.1:3306', DB_USER: process.env.DB_USER ?? 'root', DB_PASSWD: process.env.DB_PASSWD ?? '',
  });
  if (database === 'mysql' && !(await mariaDbAnswers(config))) return null;
  await ensureDatabaseExists(config);
  const db: Db = openDatabase(config);
  const secretKey = randomBytes(32);
  let pool: ReturnType<typeof createTaskPool> | null = null;
  try {
    await migrateToLatest(db);
    const user = await createUser(db, { username: 'bench', email: 'bench@example.com', password: 'benchmark password' });
    // A realistic table: other users' tokens around the one we use.
    for (let i = 0; i < 200; i++) await createAccessToken(db, secretKey, user.id, { name: `other-${i}`, scopes: ['read:repository'] });
    const { value: token } = await createAccessToken(db, secretKey, user.id, { name: 'bench', scopes: ['all'] });

    const deps: AuthenticationDeps = { db, secretKey, throttle: new LoginThrottle(loginThrottleStore(db)), oauth2: null };
    const request = { authorization: `token ${token}`, otp: null, ip: '127.0.0.1' };
    const check = await authenticateRequest(deps, request);
    if (check.user?.id !== user.id) throw new Error('the benchmark token does not authenticate');
    const authCpuUs = await cpuPerCall(() => authenticateRequest(deps, request), CPU_CALLS);
    const tokenHash = hashToken(token, secretKey);
    const lookupCpuUs = await cpuPerCall(() => tokensStore(db).byHashWithOwner(tokenHash), CPU_CALLS);
    const hmacCpuUs = await cpuPerCall(() => hashToken(token, secretKey), CPU_CALLS);

    // The pool's worker threads start only now, so they cannot count in the process CPU above.
    pool = createTaskPool(config);
    const app = await buildApp({ config, db, pool, pullWorkflows: null, secretKey }, { routes: allRoutes, logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/version`;
    const rows: Array<Array<string | number>> = [];
    let failures = 0;
    try {
      for (const [label, headers] of [['anonymous', {}], ['token', { authorization: `token ${token}` }]] as const) {
        const rss = trackPeakRss();
        const f = await runLoad({ url, headers, connections: 10, seconds: SECONDS });
        failures += f.errors + f.non2xx;
        rows.push([database === 'mysql' ? 'MariaDB' : 'SQLite', label, f.requestsPerSecond.toFixed(0), f.p50, f.p99, f.errors + f.non2xx, rss.stop()]);
      }
    } finally {
      await app.close();
    }
    return { database: database === 'mysql' ? 'MariaDB' : 'SQLite', authCpuUs, lookupCpuUs, hmacCpuUs, rows, failures };
  } finally {
    await pool?.destroy();
    await waitForIdleDatabase(db);
    await db.destroy();
    if (database === 'mysql') await dropMysqlDatabase(config);
  }
}

async function main(): Promise<void> {
  // The service's heap settings, as `npm start` gives them (run.ts passes the main thread's flags).
  limitThreadHeaps();
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-bench-auth-'));
  try {
    const results = [await measure('sqlite3', dir), await measure('mysql', dir)].filter((r): r is Figures => r !== null);
    process.stdout.write(`Token authentication, CPU per call (${CPU_CALLS} sequential calls of authenticateRequest in 10 rounds, process.cpuUsage):\n\n`);
    process.stdout.write(`${table(
      ['database', 'µs CPU per call (median round)', 'user', 'system', 'best round', 'of which the lookup (driver round trip)', 'of which HMAC-SHA256', 'under 100 µs'],
      results.map((r) => [
        r.database, r.authCpuUs.median.toFixed(1), r.authCpuUs.user.toFixed(1), r.authCpuUs.system.toFixed(1), r.authCpuUs.best.toFixed(1),
        r.lookupCpuUs.median.toFixed(1), r.hmacCpuUs.median.toFixed(1), r.authCpuUs.median < 100 ? 'yes' : 'NO',
      ]),
    )}\n\n`);
    process.stdout.write(`GET /api/v1/version, autocannon -c 10 -d ${SECONDS} in its own process:\n\n`);
    process.stdout.write(`${table(['database', 'credentials', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'peak server RSS MiB'], results.flatMap((r) => r.rows))}\n`);
    const failures = results.reduce((n, r) => n + r.failures, 0);
    const missed = results.filter((r) => r.authCpuUs.median >= 100).map((r) => r.database);
    process.stdout.write(`\ntarget (< 100 µs CPU per authentication): ${missed.length === 0 ? 'met' : `MISSED on ${missed.join(', ')}`}; ${failures === 0 ? 'no errors' : `FAILURES: ${failures}`}\n`);
    if (failures > 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});

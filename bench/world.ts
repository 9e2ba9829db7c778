// A benchmark world on the real parts: MariaDB (a fresh database), a Temporal dev server of its
// own, and the service as `npm start` runs it (`serve`: API and worker in one process) in a child
// process, so that neither this client nor its raw git runs share the service's event loop.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import { loadConfig, type Config } from '../app/config.js';
import { temporalCliPath } from '../app/paths.js';
import { HEAP_FLAGS } from '../app/heap-limits.js';
import { allocatorEnv } from '../app/allocator.js';
import { startDevServer } from '../app/temporal-dev-server.js';
import { localMariaDbHost, mysqlConnection, openDatabase, type Db } from '../db/connection.js';
import { createUser } from '../core/accounts.js';
import { usersStore } from '../db/users.js';
import { repoDiskPath } from '../core/repositories.js';
import { branchRef, resolveRef, runGit, updateRef, hashBlob, commitTree } from '../git/index.js';
import { freePort } from '../app/ports.js';
import { ownCpu, reapedChildrenCpu, statFields } from './proc-cpu.js';

export const PASSWORD = 'bench-password-123';

const MAIN_JS = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'main.js');

export interface BenchWorld {
  config: Config;
  /** The benchmark's own connection to the service's database. */
  db: Db;
  base: string;
  auth: string;
  repoPath: string;
  /** Makes branch `name` with one new file on top of main, straight in the bare repository (`repoPath`: another one). */
  branch(name: string, file: string, content: string, repoPath?: string): Promise<string>;
  /** Creates repository bench/<name> (auto-initialised) and returns its path. */
  createRepo(name: string): Promise<string>;
  /** Buffered git commands the service has run so far (its `/metrics` counter). */
  serviceGitCommands(): Promise<number>;
  /** Database statements the service has sent so far (pullhost_db_statements_total). */
  serviceStatements(): Promise<number>;
  /** A counter of the service's /metrics, by its labels as written there (`written="journalledMeanwhile"`). */
  serviceCounters(metric: string): Promise<Map<string, number>>;
  /** The service process's peak resident memory so far (VmHWM), MiB. */
  servicePeakRssMiB(): number;
  /** Resident memory now (VmRSS), MiB, of the service and of the Temporal dev server. */
  rssMiB(): { service: number; temporal: number };
  /** CPU seconds used so far by each process of the world (subtract two readings for a phase). */
  cpuSeconds(): CpuSeconds;
  close(): Promise<void>;
}

async function waitForService(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode} while starting`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the service did not answer ${url} within ${timeoutMs / 1000} s`);
}

/** `serve`: API and worker in one process (`npm start`); `split`: an `api` and a `worker` process, as production runs them. */
export type Topology = 'serve' | 'split';

export async function startBenchWorld(env: Record<string, string> = {}, topology: Topology = 'serve'): Promise<BenchWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-bench-'));
  const [httpPort, devPort, uiPort] = [await freePort(), await freePort(), await freePort()];
  const dev = await startDevServer({ cliPath: temporalCliPath(''), port: devPort, uiPort });
  const serviceEnv = {
    APP_DATA_PATH: dir, DB_TYPE: 'mysql', DB_HOST: process.env.DB_HOST || localMariaDbHost(), DB_NAME: `pullhost_bench_${process.pid}`, HTTP_PORT: String(httpPort), HTTP_ADDR: '127.0.0.1',
    APP_URL: `http://127.0.0.1:${httpPort}/`, LOG_LEVEL: 'silent', TEMPORAL_ADDRESS: dev.address, SECRET_KEY: 'bench', ENABLE_METRICS: 'true', ...env,
  };
  const config = loadConfig(serviceEnv);
  // BENCH_SERVICE_NODE_ARGS passes node options to the service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  // The service as `npm start` runs it (app/heap-limits.ts, app/allocator.ts), with any flags a benchmark adds.
  const nodeArgs = [...HEAP_FLAGS, ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const start = (role: string) => spawn(process.execPath, [...nodeArgs, MAIN_JS, role], { env: { ...process.env, ...allocatorEnv(), ...serviceEnv }, stdio: ['ignore', 'ignore', 'inherit'] });
  const service = start(topology === 'split' ? 'api' : 'serve');
  // The worker starts once the API has migrated the database.
  let worker: ChildProcess | null = null;
  let db: Db | undefined;
  const stop = async (child: ChildProcess | null) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  const stopService = async () => { await Promise.all([stop(service), stop(worker)]); };
  try {
    await waitForService(`${config.APP_URL}api/v1/version`, service, 120_000);
    if (topology === 'split') worker = start('worker');
    // The service has migrated the database by the time it answers.
    db = openDatabase(config);
    const user = await createUser(db, { username: 'bench', email: 'bench@example.com', password: PASSWORD });
    await usersStore(db).update(user.id, { is_admin: true });
  } catch (err) {
    await stopService();
    await db?.destroy();
    await dev.stop();
    throw err;
  }
  const basic = `Basic ${Buffer.from(`bench:${PASSWORD}`).toString('base64')}`;
  // Clients use tokens: a password would add an argon2 check (tens of ms) to every request.
  const tokenReply = await fetch(`${config.APP_URL}api/v1/users/bench/tokens`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: ['all'] }) });
  if (tokenReply.status !== 201) throw new Error(`token: ${tokenReply.status} ${await tokenReply.text()}`);
  const auth = `token ${((await tokenReply.json()) as { sha1: string }).sha1}`;
  async function createRepo(name: string): Promise<string> {
    const created = await fetch(`${config.APP_URL}api/v1/user/repos`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ name, auto_init: true }) });
    if (created.status !== 201) throw new Error(`repository: ${created.status} ${await created.text()}`);
    return repoDiskPath(config, 'bench', name);
  }
  const repoPath = await createRepo('bench');

  async function branch(name: string, file: string, content: string, inRepo = repoPath): Promise<string> {
    const repoPath = inRepo;
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

  async function serviceCounters(metric: string): Promise<Map<string, number>> {
    const text = await (await fetch(`${config.APP_URL}metrics`)).text();
    const counters = new Map<string, number>();
    for (const m of text.matchAll(new RegExp(`^${metric}(?:\\{([^}]*)\\})? (\\d+)$`, 'gm'))) counters.set(m[1] ?? '', Number(m[2]));
    return counters;
  }

  /** A counter of the service's /metrics summed over its labels. */
  async function serviceTotal(metric: string): Promise<number> {
    let n = 0;
    for (const count of (await serviceCounters(metric)).values()) n += count;
    return n;
  }
  const serviceGitCommands = () => serviceTotal('pullhost_git_commands_total');
  const serviceStatements = () => serviceTotal('pullhost_db_statements_total');

  function servicePeakRssMiB(): number {
    // Split: the larger of the two processes.
    return Math.max(...[service, worker].flatMap((child) => (child?.pid ? [statusMiB(child.pid, 'VmHWM')] : [])));
  }

  const rssMiB = () => ({ service: statusMiB(service.pid, 'VmRSS'), temporal: statusMiB(dev.pid, 'VmRSS') });

  const mariaDbPid = processByName(/^(mariadbd|mysqld)$/);
  const cpuSeconds = (): CpuSeconds => {
    const own = [service, worker].map((child) => processCpu(child?.pid));
    const sum = (f: (c: ProcessCpu) => number) => Math.round(own.reduce((a, c) => a + f(c), 0) * 100) / 100;
    return {
      service: sum((c) => c.self), git: sum((c) => c.children), temporal: processCpu(dev.pid).self,
      mariadb: processCpu(mariaDbPid).self, bench: processCpu(process.pid).self,
    };
  };

  const serviceDb = db;
  return {
    config, db: serviceDb, base: config.APP_URL, auth, repoPath, branch, createRepo, serviceGitCommands, serviceStatements, serviceCounters, servicePeakRssMiB, rssMiB, cpuSeconds,
    async close() {
      await stopService();
      await serviceDb.destroy();
      const admin = knexFactory({ client: 'mysql2', connection: mysqlConnection(config), pool: { min: 0, max: 1 } });
      await admin.raw(`DROP DATABASE IF EXISTS \`${config.DB_NAME}\``);
      await admin.destroy();
      await dev.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A memory figure of /proc/<pid>/status in MiB (0 when the process is gone). */
function statusMiB(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const kib = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kib ? Math.round((Number(kib[1]) / 1024) * 10) / 10 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds by process: the service's own (API and worker), the git processes it ran, the rest. */
export interface CpuSeconds {
  service: number;
  git: number;
  temporal: number;
  mariadb: number;
  bench: number;
}

interface ProcessCpu {
  self: number;
  /** Of its descendants, ended or running (the service's spawn helper and the git processes it ran). */
  children: number;
}

/** utime+stime and cutime+cstime of /proc/<pid>/stat, in seconds (0 when the process is gone). */
function processCpu(pid: number | undefined): ProcessCpu {
  try {
    const f = statFields(`/proc/${pid}/stat`);
    let children = reapedChildrenCpu(f);
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)) {
      const c = processCpu(Number(child));
      children += c.self + c.children;
    }
    return { self: ownCpu(f), children };
  } catch {
    return { self: 0, children: 0 };
  }
}

/** The first process whose command name matches (the machine's MariaDB server). */
function processByName(name: RegExp): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (name.test(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

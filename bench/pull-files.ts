// Benchmark of a large pull request: 2,000 changed files and 200,000 changed lines. The first page of
// GET .../pulls/{index}/files (latency alone and at concurrency 8), the .diff stream (time to first
// byte, total time, size) alone and at concurrency 4, and the server's peak RSS, which stays flat
// because the diff is streamed from git, never buffered.
// MariaDB on DB_HOST (default 127.0.0.1:3306).
// Run: npx tsc -p . && node dist/bench/pull-files.js [seconds-per-run]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../app/config.js';
import { limitThreadHeaps } from '../app/heap-limits.js';
import { ensureDatabaseExists, openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { createTaskPool } from '../workers/pool.js';
import { buildApp } from '../api/app.js';
import { allRoutes } from '../api/routes/index.js';
import { createUser } from '../core/accounts.js';
import { createRepository, repoDiskPath } from '../core/repositories.js';
import { runLoad, table, trackPeakRss } from './load.js';
import { finishBench, runBench } from './finish.js';

const SECONDS = Number(process.argv[2] ?? 5);
const FILES = 2000;
const LINES = 100;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  // The service's heap settings, as `npm start` gives them (run.ts passes the main thread's flags).
  limitThreadHeaps();
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-bench-'));
  const config = loadConfig({
    APP_DATA_PATH: dir, HTTP_PORT: '0', LOG_LEVEL: 'silent', DB_TYPE: 'mysql',
    DB_HOST: process.env.DB_HOST ?? '127.0.0.1:3306', DB_USER: process.env.DB_USER ?? 'root', DB_PASSWD: process.env.DB_PASSWD ?? '',
    DB_NAME: `pullhost_bench_files_${process.pid}`,
  });
  await ensureDatabaseExists(config);
  const db = openDatabase(config);
  await migrateToLatest(db);
  const alice = await createUser(db, { username: 'alice', email: 'alice@example.com', password: 'correct-horse-battery' });
  await createRepository({ db, config }, { owner: alice, doer: alice, name: 'widget', autoInit: true });

  // The head branch: 2,000 new files of 100 lines each, committed in a scratch clone and pushed.
  const work = join(dir, 'work');
  const git = (args: string[]) => execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], { cwd: work, stdio: 'pipe' });
  execFileSync('git', ['clone', '-q', repoDiskPath(config, 'alice', 'widget'), work], { stdio: 'pipe' });
  git(['checkout', '-q', '-b', 'big']);
  for (let f = 0; f < FILES; f++) {
    const sub = join(work, `module-${f % 40}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `file-${f}.txt`), Array.from({ length: LINES }, (_, l) => `file ${f} line ${l}: some changed content here`).join('\n') + '\n');
  }
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'a very large change']);
  git(['push', '-q', 'origin', 'big']);

  const pool = createTaskPool(config);
  const app = await buildApp({ config, db, pool, pullWorkflows: null, secretKey: Buffer.alloc(32, 1) }, { routes: allRoutes, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const root = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/repos/alice/widget/pulls`;
  const auth = { authorization: `Basic ${Buffer.from('alice:correct-horse-battery').toString('base64')}` };
  const created = await fetch(root, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ head: 'big', base: 'main', title: 'Big' }) });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
  const single = (await created.json()) as { number: number; changed_files: number; additions: number };
  process.stdout.write(`pull request #${single.number}: ${single.changed_files} files, +${single.additions} lines\n\n`);
  const pr = `${root}/${single.number}`;

  const rows: Array<Array<string | number>> = [];
  const baseline = Math.round((process.memoryUsage.rss() / 1024 / 1024) * 10) / 10;
  const rss = trackPeakRss(10);

  // First page of files, one request at a time.
  const filesTimes: number[] = [];
  let failures = 0;
  let total = '';
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const r = await fetch(`${pr}/files?limit=50`);
    if (r.status !== 200) failures++;
    await r.json();
    total = r.headers.get('x-total-count') ?? '';
    filesTimes.push(performance.now() - t0);
  }
  filesTimes.sort((a, b) => a - b);
  rows.push(['files, first page (limit 50), alone', 1, (1000 / (filesTimes.reduce((a, b) => a + b) / filesTimes.length)).toFixed(1), percentile(filesTimes, 50).toFixed(0), percentile(filesTimes, 99).toFixed(0), `X-Total-Count ${total}`]);
  const filesLoad = await runLoad({ url: `${pr}/files?limit=50`, connections: 8, seconds: SECONDS });
  failures += filesLoad.errors + filesLoad.non2xx;
  rows.push(['files, first page (limit 50)', 8, filesLoad.requestsPerSecond.toFixed(1), filesLoad.p50, filesLoad.p99, `errors ${filesLoad.errors + filesLoad.non2xx}`]);

  // The .diff, read as a stream: first byte and last byte.
  const firstByte: number[] = [];
  const whole: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = await fetch(`${pr}.diff`);
    if (r.status !== 200) failures++;
    const reader = r.body!.getReader();
    bytes = 0;
    let first = true;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (first) { firstByte.push(performance.now() - t0); first = false; }
      bytes += value.length;
    }
    whole.push(performance.now() - t0);
  }
  firstByte.sort((a, b) => a - b);
  whole.sort((a, b) => a - b);
  rows.push(['.diff, alone', 1, (1000 / (whole.reduce((a, b) => a + b) / whole.length)).toFixed(2), percentile(whole, 50).toFixed(0), percentile(whole, 99).toFixed(0), `first byte p50 ${percentile(firstByte, 50).toFixed(0)} ms; ${(bytes / 1024 / 1024).toFixed(1)} MiB`]);
  const diffLoad = await runLoad({ url: `${pr}.diff`, connections: 4, seconds: SECONDS });
  failures += diffLoad.errors + diffLoad.non2xx;
  rows.push(['.diff', 4, diffLoad.requestsPerSecond.toFixed(2), diffLoad.p50, diffLoad.p99, `errors ${diffLoad.errors + diffLoad.non2xx}`]);
  const peak = rss.stop();

  process.stdout.write(`${table(['request', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'notes'], rows)}\n`);
  process.stdout.write(`\nserver RSS before the runs: ${baseline} MiB; peak during them: ${peak} MiB (the diff is ${(bytes / 1024 / 1024).toFixed(1)} MiB per response)\n`);
  process.stdout.write(`${failures === 0 ? 'no errors' : `FAILURES: ${failures}`}\n`);
  await finishBench({ app, pool, db, config, dir }, failures);
}

runBench(main);

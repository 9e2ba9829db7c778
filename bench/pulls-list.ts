// Benchmark of GET /api/v1/repos/{o}/{r}/pulls on a repository with 10,000 pull requests (inserted in
// bulk) on MariaDB: requests per second, p50 and p99 at concurrency 32 (autocannon in its own
// process), and the EXPLAIN plans of the list queries, so the indexes they use are on record.
// The rows carry no git behind them (every head is the same made-up commit), so a single record,
// whose diff statistics come from git, is measured by pull-reads.ts on a real repository instead.
// Run: npx tsc -p . && node dist/bench/pulls-list.js [seconds-per-run]
import { mkdtempSync } from 'node:fs';
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
import { createRepository } from '../core/repositories.js';
import { filteredPullIssues, pullPageQuery, type PullListFilter } from '../core/pulls/list.js';
import { runLoad, table, trackPeakRss } from './load.js';
import { finishBench, runBench } from './finish.js';

const SECONDS = Number(process.argv[2] ?? 10);
const PULLS = 10_000;

async function main() {
  // The service's heap settings, as `npm start` gives them (run.ts passes the main thread's flags).
  limitThreadHeaps();
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-bench-'));
  const config = loadConfig({
    APP_DATA_PATH: dir, HTTP_PORT: '0', LOG_LEVEL: 'silent', DB_TYPE: 'mysql',
    DB_HOST: process.env.DB_HOST ?? '127.0.0.1:3306', DB_USER: process.env.DB_USER ?? 'root', DB_PASSWD: process.env.DB_PASSWD ?? '',
    DB_NAME: `pullhost_bench_${process.pid}`,
  });
  await ensureDatabaseExists(config);
  const db = openDatabase(config);
  await migrateToLatest(db);
  const alice = await createUser(db, { username: 'alice', email: 'alice@example.com', password: 'correct-horse-battery' });
  const repo = await createRepository({ db, config }, { owner: alice, doer: alice, name: 'widget', autoInit: true });

  const started = Date.now();
  const now = Math.floor(Date.now() / 1000);
  for (let from = 1; from <= PULLS; from += 1000) {
    const issues = [];
    for (let i = from; i < from + 1000; i++) {
      issues.push({
        repo_id: repo.id, index: i, poster_id: alice.id, title: `Pull request ${i}`, content: 'body', is_pull: true,
        is_closed: i % 5 === 0, num_comments: i % 17, priority: i % 3, created_unix: now - PULLS + i, updated_unix: now - (i * 7919) % PULLS,
      });
    }
    await db('issues').insert(issues);
    const rows = await db('issues').where('repo_id', repo.id).whereBetween('index', [from, from + 999]).select('id', 'index');
    await db('pull_requests').insert(rows.map((r: { id: number; index: number }) => ({
      issue_id: r.id, index: r.index, base_repo_id: repo.id, head_repo_id: repo.id, base_branch: 'main', head_branch: `feature-${r.index}`,
      head_commit_id: '0'.repeat(39) + '1', merge_base: '', status: 'mergeable', conflicted_files: '[]',
    })));
  }
  await db('issue_indexes').where({ repo_id: repo.id }).update({ max_index: PULLS });
  process.stdout.write(`inserted ${PULLS} pull requests in ${((Date.now() - started) / 1000).toFixed(1)} s\n\n`);

  // The plans, as MariaDB chooses them for the default list and the other orders.
  const filters: Array<[string, PullListFilter]> = [
    ['open, newest', { repoId: repo.id, state: 'open' }],
    ['open, recentupdate', { repoId: repo.id, state: 'open', sort: 'recentupdate' }],
    ['open, mostcomment', { repoId: repo.id, state: 'open', sort: 'mostcomment' }],
    ['all, oldest', { repoId: repo.id, state: 'all', sort: 'oldest' }],
  ];
  for (const [label, f] of filters) {
    for (const [kind, q] of [['page', pullPageQuery(db, f, { limit: 30, offset: 0 })], ['count', filteredPullIssues(db, f).count({ n: '*' })]] as const) {
      const sql = q.toSQL().toNative();
      const [plan] = (await db.raw(`EXPLAIN ${sql.sql}`, sql.bindings as never)) as [Array<Record<string, unknown>>];
      process.stdout.write(`EXPLAIN ${label} (${kind}): ${plan.map((p) => `table=${p.table} type=${p.type} key=${p.key} rows=${p.rows} extra=${p.Extra ?? ''}`).join(' | ')}\n`);
    }
  }

  const pool = createTaskPool(config);
  const app = await buildApp({ config, db, pool, pullWorkflows: null, secretKey: Buffer.alloc(32, 1) }, { routes: allRoutes, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/repos/alice/widget/pulls`;
  // Warm up, and put the size of one page on record: each record carries two full Repository objects.
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const body = await (await fetch(base)).text();
    if (i === 4) process.stdout.write(`\none request alone: ${(performance.now() - t0).toFixed(1)} ms, ${(body.length / 1024).toFixed(0)} KiB for ${JSON.parse(body).length} records\n`);
  }
  const rss = trackPeakRss();
  const rows: Array<Array<string | number>> = [];
  let failures = 0;
  for (const query of ['', '?sort=recentupdate', '?state=all&sort=mostcomment&page=100', '?state=closed&limit=50']) {
    const f = await runLoad({ url: `${base}${query}`, connections: 32, seconds: SECONDS });
    failures += f.errors + f.non2xx;
    rows.push([`GET .../pulls${query}`, 32, f.requestsPerSecond.toFixed(1), f.p50, f.p99, f.errors + f.non2xx]);
  }
  process.stdout.write(`\n${table(['request', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'errors'], rows)}\n`);
  process.stdout.write(`\npeak server RSS: ${rss.stop()} MiB; ${SECONDS} s per run; ${failures === 0 ? 'no errors' : `FAILURES: ${failures}`}\n`);
  await finishBench({ app, pool, db, config, dir }, failures);
}

runBench(main);

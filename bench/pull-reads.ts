// Reads of one pull request among 300, the big one 2,000 files and 200,000 lines in 20 commits:
// the record, its commits, files and .diff, each next to its ceiling (the bare git commands the
// answer needs, or the HTTP floor of GET /version with the same token), cold (first request) and
// kept (core/read-cache.ts, core/diff-cache.ts). The service runs as production runs it, its `api`
// process apart from the `worker` (bench/world.ts), so the resident memory reported (after and at
// peak per row, and a minute after the load stops) is the API process's alone: the repository is
// built, and the load generated, in other processes. MariaDB on DB_HOST (default 127.0.0.1:3306).
// The .diff has a second ceiling, disk speed: the same bytes from a file, streamed by a bare
// node:http server to the same load generator.
// Run: npx tsc -p . && node dist/bench/pull-reads.js [seconds-per-run] [rows: list,single,commits,files,304,diff]
import { execFile, execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runLoad, table } from './load.js';
import { runBench } from './finish.js';
import { startBenchWorld } from './world.js';

const SECONDS = Number(process.argv[2] ?? 5);
const ROWS = new Set((process.argv[3] ?? 'list,single,commits,files,304,diff').split(','));
const COMMITS = 20;
const FILES_PER_COMMIT = 100;
const LINES = 100;
const OTHER_PULLS = 299;
const run = promisify(execFile);

/** Requests per second of `cmd` run back to back by `parallel` runners for about two seconds. */
async function bareRate(cwd: string, cmds: string[][], parallel: number): Promise<number> {
  const until = performance.now() + 2000;
  let done = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (performance.now() < until) {
      for (const args of cmds) await run('git', args, { cwd, maxBuffer: 256 * 1024 * 1024 });
      done++;
    }
  }));
  return done / ((performance.now() - started) / 1000);
}

/** `path` served whole to every request by a bare node:http server, as a static file server would. */
async function serveFile(path: string): Promise<{ url: string; close(): Promise<void> }> {
  const size = statSync(path).size;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': size });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/pull.diff`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function main() {
  const w = await startBenchWorld({}, 'split');
  const repoPath = await w.createRepo('widget');
  const { db } = w;
  const repo = await db('repositories').where({ lower_name: 'widget' }).first('id');
  const owner = await db('users').where({ lower_name: 'bench' }).first('id');

  const work = mkdtempSync(join(tmpdir(), 'pullhost-bench-work-'));
  const git = (args: string[]) => execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], { cwd: work, stdio: 'pipe' });
  execFileSync('git', ['clone', '-q', repoPath, work], { stdio: 'pipe' });
  git(['checkout', '-q', '-b', 'big']);
  for (let c = 0; c < COMMITS; c++) {
    for (let i = 0; i < FILES_PER_COMMIT; i++) {
      const f = c * FILES_PER_COMMIT + i;
      mkdirSync(join(work, `module-${f % 40}`), { recursive: true });
      writeFileSync(join(work, `module-${f % 40}`, `file-${f}.txt`), Array.from({ length: LINES }, (_, l) => `file ${f} line ${l}: some changed content here`).join('\n') + '\n');
    }
    git(['add', '-A']);
    git(['commit', '-q', '-m', `part ${c + 1} of a very large change`]);
  }
  git(['push', '-q', 'origin', 'big']);
  rmSync(work, { recursive: true, force: true });

  const origin = w.base.replace(/\/$/, '');
  const root = `${origin}/api/v1/repos/bench/widget/pulls`;
  const headers = { authorization: w.auth };
  const created = await fetch(root, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ head: 'big', base: 'main', title: 'Big' }) });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
  const big = (await created.json()) as { number: number; changed_files: number; additions: number; merge_base: string; head: { sha: string }; base: { sha: string } };
  // 299 more records around it (rows only: lists read no git for them).
  const now = Math.floor(Date.now() / 1000);
  await db('issues').insert(Array.from({ length: OTHER_PULLS }, (_, i) => ({
    repo_id: repo.id, index: big.number + 1 + i, poster_id: owner.id, title: `Pull request ${i}`, content: 'body', is_pull: true, created_unix: now - i, updated_unix: now - i,
  })));
  const rows = await db('issues').where('repo_id', repo.id).where('index', '>', big.number).select('id', 'index');
  await db('pull_requests').insert(rows.map((r: { id: number; index: number }) => ({
    issue_id: r.id, index: r.index, base_repo_id: repo.id, head_repo_id: repo.id, base_branch: 'main', head_branch: `feature-${r.index}`,
    head_commit_id: big.head.sha, merge_base: big.merge_base, status: 'mergeable', conflicted_files: '[]',
  })));
  await db('issue_indexes').where({ repo_id: repo.id }).update({ max_index: big.number + OTHER_PULLS });
  process.stdout.write(`pull request #${big.number}: ${big.changed_files} files, +${big.additions} lines in ${COMMITS} commits, among ${OTHER_PULLS + 1}\n\n`);

  const pr = `${root}/${big.number}`;
  const range = [big.merge_base, big.head.sha];
  const ceilings = {
    version: (await runLoad({ url: `${origin}/api/v1/version`, headers, connections: 32, seconds: SECONDS })).requestsPerSecond,
    single: await bareRate(repoPath, [['for-each-ref', 'refs/heads/'], ['rev-parse', 'refs/pull/1/head'], ['merge-base', big.base.sha, big.head.sha], ['diff', '--shortstat', '-M', `${range[0]}..${range[1]}`]], 2),
    commits: await bareRate(repoPath, [['log', '--format=%H%x00%an%x00%ae%x00%B', `${big.base.sha}..${big.head.sha}`]], 2),
    files: await bareRate(repoPath, [['diff', '--raw', '--numstat', '-z', '-M', `${range[0]}..${range[1]}`]], 2),
    diff: await bareRate(repoPath, [['diff', '-M', `${range[0]}..${range[1]}`]], 1),
  };

  const apiRss = () => w.rssMiB().service;
  const baseline = apiRss();
  let peak = baseline;
  const sampler = setInterval(() => { peak = Math.max(peak, apiRss()); }, 20);
  const out: Array<Array<string | number>> = [];
  let failures = 0;
  /** The first request's time (nothing kept yet for it), then the load. */
  const measure = async (row: string, label: string, url: string, connections: number, ceiling: string, extra: Record<string, string> = {}) => {
    if (!ROWS.has(row)) return;
    const t0 = performance.now();
    const first = await fetch(url, { headers: { ...headers, ...extra } });
    await first.arrayBuffer();
    const cold = performance.now() - t0;
    peak = apiRss();
    const statementsBefore = await w.serviceStatements();
    const cpuBefore = w.cpuSeconds();
    const f = await runLoad({ url, headers: { ...headers, ...extra }, connections, seconds: SECONDS });
    const cpu = w.cpuSeconds();
    const statements = ((await w.serviceStatements()) - statementsBefore) / Math.max(1, f.total);
    // CPU per request varies less than the rate on a shared machine whose speed drifts between runs.
    const msPerRequest = (seconds: number) => ((seconds * 1000) / Math.max(1, f.total)).toFixed(2);
    const bad = f.errors + (extra['if-none-match'] ? 0 : f.non2xx);
    failures += bad;
    out.push([label, connections, f.requestsPerSecond.toFixed(0), f.p50, f.p99, cold.toFixed(0), ceiling, statements.toFixed(1),
      msPerRequest(cpu.service + cpu.git - cpuBefore.service - cpuBefore.git), msPerRequest(cpu.mariadb - cpuBefore.mariadb), apiRss(), peak, bad]);
  };
  const floor = `HTTP floor ${ceilings.version.toFixed(0)}/s`;
  const bareDiff = `bare git diff ${ceilings.diff.toFixed(1)}/s`;
  await measure('list', '`GET .../pulls?limit=30` (30 records)', `${root}?limit=30`, 32, floor);
  await measure('single', '`GET .../pulls/{index}` (one record)', pr, 32, `bare git (old path: 4 commands) ${ceilings.single.toFixed(0)}/s; ${floor}`);
  await measure('commits', '`GET .../pulls/{index}/commits`', `${pr}/commits`, 8, `bare git log ${ceilings.commits.toFixed(0)}/s (+2 git per commit uncached)`);
  await measure('files', '`GET .../pulls/{index}/files?limit=50`', `${pr}/files?limit=50`, 8, `bare git numstat ${ceilings.files.toFixed(0)}/s`);
  const filesTag = (await fetch(`${pr}/files?limit=50`, { headers })).headers.get('etag') ?? '';
  await measure('304', 'same, `If-None-Match` → 304', `${pr}/files?limit=50`, 32, floor, { 'if-none-match': filesTag });
  for (const connections of [1, 4]) await measure('diff', '`GET .../pulls/{index}.diff`', `${pr}.diff`, connections, bareDiff);
  clearInterval(sampler);
  // Disk speed for the .diff, measured after its rows so that their first request stays cold: its
  // bytes in a file, served by node:http with nothing else on the path.
  const diffDir = mkdtempSync(join(tmpdir(), 'pullhost-bench-diff-'));
  const diffFile = join(diffDir, 'pull.diff');
  writeFileSync(diffFile, Buffer.from(await (await fetch(`${pr}.diff`, { headers })).arrayBuffer()));
  const fileServer = await serveFile(diffFile);
  for (const row of out.filter((r) => r[0] === '`GET .../pulls/{index}.diff`')) {
    const rate = (await runLoad({ url: fileServer.url, connections: Number(row[1]), seconds: SECONDS })).requestsPerSecond;
    row[6] = `${row[6]}; the file over bare HTTP ${rate.toFixed(0)}/s`;
  }
  await fileServer.close();
  const diffBytes = statSync(diffFile).size;
  rmSync(diffDir, { recursive: true, force: true });

  process.stdout.write(`${table(['request', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'cold first request ms', 'ceiling', 'database statements per request', 'service CPU ms per request (with its git)', 'MariaDB CPU ms per request', 'RSS after MiB', 'peak RSS MiB', 'errors'], out)}\n`);
  process.stdout.write(`\nthe .diff is ${(diffBytes / 1024 / 1024).toFixed(1)} MiB; ${SECONDS} s per run; bare git with 2 runners (1 for the diff)\n`);
  const peakAll = Math.max(...out.map((r) => Number(r[11])));
  const loadEnd = apiRss();
  const rss = `API process RSS: ${baseline} MiB before the load, peak ${peakAll} MiB, ${loadEnd} MiB when it stopped`;
  if (process.argv[3] === undefined) {
    await new Promise((r) => setTimeout(r, 60_000));
    const rested = apiRss();
    process.stdout.write(`${rss}, ${rested} MiB a minute later (${((rested / baseline - 1) * 100).toFixed(0)} % over the start)\n`);
  } else process.stdout.write(`${rss} (some rows only: no reading a minute later)\n`);
  process.stdout.write(`${failures === 0 ? 'no errors' : `FAILURES: ${failures}`}\n`);
  await w.close();
  process.exit(failures === 0 ? 0 : 1);
}

runBench(main);

// Reads of one pull request among 300, the big one 2,000 files and 200,000 lines in 20 commits:
// the record, its commits, files and .diff, each next to its ceiling (the bare git commands the
// answer needs, or the HTTP floor of GET /version with the same token), cold (first request) and
// kept (core/read-cache.ts, core/diff-cache.ts). The service runs as production runs it, its `api`
// process apart from the `worker` (bench/world.ts), so the resident memory reported (after and at
// peak per row, and a minute after the load stops) is the API process's alone: the repository is
// built, and the load generated, in other processes. MariaDB on DB_HOST (default 127.0.0.1:3306).
// Run: npx tsc -p . && node dist/bench/pull-reads.js [seconds-per-run]
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runLoad, table } from './load.js';
import { runBench } from './finish.js';
import { startBenchWorld } from './world.js';

const SECONDS = Number(process.argv[2] ?? 5);
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
  const measure = async (label: string, url: string, connections: number, ceiling: string, extra: Record<string, string> = {}) => {
    const t0 = performance.now();
    const first = await fetch(url, { headers: { ...headers, ...extra } });
    await first.arrayBuffer();
    const cold = performance.now() - t0;
    peak = apiRss();
    const statementsBefore = await w.serviceStatements();
    const f = await runLoad({ url, headers: { ...headers, ...extra }, connections, seconds: SECONDS });
    const statements = ((await w.serviceStatements()) - statementsBefore) / Math.max(1, f.total);
    const bad = f.errors + (extra['if-none-match'] ? 0 : f.non2xx);
    failures += bad;
    out.push([label, connections, f.requestsPerSecond.toFixed(0), f.p50, f.p99, cold.toFixed(0), ceiling, statements.toFixed(1), apiRss(), peak, bad]);
    return first;
  };
  await measure('`GET .../pulls?limit=30` (30 records)', `${root}?limit=30`, 32, `HTTP floor ${ceilings.version.toFixed(0)}/s`);
  await measure('`GET .../pulls/{index}` (one record)', pr, 32, `bare git (old path: 4 commands) ${ceilings.single.toFixed(0)}/s; HTTP floor ${ceilings.version.toFixed(0)}/s`);
  await measure('`GET .../pulls/{index}/commits`', `${pr}/commits`, 8, `bare git log ${ceilings.commits.toFixed(0)}/s (+2 git per commit uncached)`);
  const files = await measure('`GET .../pulls/{index}/files?limit=50`', `${pr}/files?limit=50`, 8, `bare git numstat ${ceilings.files.toFixed(0)}/s`);
  await measure('same, `If-None-Match` → 304', `${pr}/files?limit=50`, 32, `HTTP floor ${ceilings.version.toFixed(0)}/s`, { 'if-none-match': files.headers.get('etag') ?? '' });
  await measure('`GET .../pulls/{index}.diff`', `${pr}.diff`, 1, `bare git diff ${ceilings.diff.toFixed(1)}/s`);
  await measure('`GET .../pulls/{index}.diff`', `${pr}.diff`, 4, `bare git diff ${ceilings.diff.toFixed(1)}/s`);
  clearInterval(sampler);
  const diffBytes = (await (await fetch(`${pr}.diff`, { headers })).arrayBuffer()).byteLength;

  process.stdout.write(`${table(['request', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'cold first request ms', 'ceiling', 'database statements per request', 'RSS after MiB', 'peak RSS MiB', 'errors'], out)}\n`);
  process.stdout.write(`\nthe .diff is ${(diffBytes / 1024 / 1024).toFixed(1)} MiB; ${SECONDS} s per run; bare git with 2 runners (1 for the diff)\n`);
  const peakAll = Math.max(...out.map((r) => Number(r[9])));
  const loadEnd = apiRss();
  await new Promise((r) => setTimeout(r, 60_000));
  const rested = apiRss();
  process.stdout.write(`API process RSS: ${baseline} MiB before the load, peak ${peakAll} MiB, ${loadEnd} MiB when it stopped, ${rested} MiB a minute later (${((rested / baseline - 1) * 100).toFixed(0)} % over the start)\n`);
  process.stdout.write(`${failures === 0 ? 'no errors' : `FAILURES: ${failures}`}\n`);
  await w.close();
  process.exit(failures === 0 ? 0 : 1);
}

runBench(main);

// Auto-merge at repository scale (issue #24): N pull requests per base, each adding its own file,
// into a protected main with one required check; all scheduled with merge_when_checks_succeed
// while the check is pending, then every check posted `success` 16 at a time. Measures creation,
// scheduling and status-post rates under N open workflows, the time until all merged, the delay
// from green to merged, the git processes per base move, resident memory after the run; and the
// plain-git floor of the same merges (merge-tree, commit-tree, update-ref, one process each, one
// merge at a time) on copies of the same repositories, in the same run. Checks exactly once: N merge
// commits and N files per base, every pull request merged, no schedule left.
// Run: npx tsc -p . && node dist/bench/auto-merge-scale.js [N per base] [bases]
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { branchRef, gitOk, resolveRef } from '../git/index.js';
import { percentile, startBenchWorld, type BenchWorld, type CpuSeconds } from './world.js';
import { table } from './load.js';

const N = Number(process.argv[2] ?? 100);
const BASES = Number(process.argv[3] ?? 1);
/** The setting README recommends for a thousand waiting pull requests per worker. */
const MAX_CACHED_WORKFLOWS = 1_000;
const { EventType, TimeoutType } = proto.temporal.api.enums.v1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const who = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com'];

async function api(w: BenchWorld, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${w.base}api/v1/${path}`, { method, headers: { authorization: w.auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Runs `fn` over `items`, `concurrency` at a time; returns the rate per second. */
async function spread<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
  return items.length / ((performance.now() - started) / 1000);
}

interface Pull {
  repo: string;
  path: string;
  branch: string;
  index: number;
  head: string;
  posted: number;
  merged: number;
}

async function expect(r: Response, status: number, what: string): Promise<Response> {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${await r.text()}`);
  return r;
}

/** Database statements and git processes the service has sent and run so far (its /metrics counters). */
async function serviceWork(w: BenchWorld): Promise<{ statements: number; git: number }> {
  return { statements: await w.serviceStatements(), git: await w.serviceGitCommands() };
}

/** History events of every workflow run in the namespace (pull requests' and others'), by event type. */
async function historyEvents(w: BenchWorld): Promise<{ total: number; byType: Map<string, number> }> {
  const connection = await Connection.connect({ address: w.config.TEMPORAL_ADDRESS });
  try {
    const client = new Client({ connection, namespace: w.config.TEMPORAL_NAMESPACE });
    const runs: Array<{ workflowId: string; runId: string }> = [];
    for await (const run of client.workflow.list()) runs.push(run);
    const byType = new Map<string, number>();
    let total = 0;
    // After the measurement: eight histories at a time keep this to seconds for a thousand runs.
    await spread(runs, 8, async (run) => {
      const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      for (const event of history.events ?? []) {
        let type = EventType[event.eventType ?? 0]?.replace(/^EVENT_TYPE_/, '') ?? String(event.eventType);
        // Which timeout: a task that waited too long on the worker's sticky queue, or one that ran too long.
        const timeout = event.workflowTaskTimedOutEventAttributes?.timeoutType;
        if (timeout) type += ` (${TimeoutType[timeout]?.replace(/^TIMEOUT_TYPE_/, '').toLowerCase()})`;
        byType.set(type, (byType.get(type) ?? 0) + 1);
        total++;
      }
    });
    return { total, byType };
  } finally {
    await connection.close();
  }
}

/** The floor: the same merges with plain git, one process per step, one merge at a time. */
async function plainGitFloor(copies: Array<{ path: string; heads: string[] }>): Promise<number> {
  const main = branchRef('main');
  const bases = await Promise.all(copies.map(async ({ path }) => (await resolveRef(path, main))!));
  const started = performance.now();
  for (const [i, { path, heads }] of copies.entries()) {
    let base = bases[i]!;
    for (const head of heads) {
      const tree = (await gitOk(['merge-tree', '--write-tree', base, head], { cwd: path })).trim().split('\n')[0]!;
      const commit = (await gitOk([...who, 'commit-tree', tree, '-p', base, '-p', head, '-m', `merge ${head}`], { cwd: path })).trim();
      await gitOk(['update-ref', main, commit, base], { cwd: path });
      base = commit;
    }
  }
  return (performance.now() - started) / 1000;
}

async function main() {
  // The sticky cache bounds the worker's memory (README, "Auto-merge at repository scale").
  const cached = process.env.BENCH_MAX_CACHED_WORKFLOWS ?? String(MAX_CACHED_WORKFLOWS);
  const w = await startBenchWorld({ TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS: cached });
  let errors = 0;
  const floorDir = mkdtempSync(join(tmpdir(), 'pullhost-floor-'));
  try {
    const repos: Array<{ name: string; path: string }> = [{ name: 'bench', path: w.repoPath }];
    for (let r = 1; r < BASES; r++) repos.push({ name: `bench${r}`, path: await w.createRepo(`bench${r}`) });
    for (const repo of repos) {
      await expect(await api(w, 'POST', `repos/bench/${repo.name}/branch_protections`, { rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'] }), 201, 'protection');
    }
    const pulls: Pull[] = [];
    for (const repo of repos) {
      for (let i = 0; i < N; i++) {
        const branch = `p${i}`;
        const head = await w.branch(branch, `${branch}.txt`, `${repo.name} ${branch}\n`, repo.path);
        pulls.push({ repo: repo.name, path: repo.path, branch, index: 0, head, posted: 0, merged: 0 });
      }
    }
    // Copies for the floor, before anything merges (branches included).
    const copies = repos.map((repo) => {
      const path = join(floorDir, `${repo.name}.git`);
      cpSync(repo.path, path, { recursive: true });
      return { path, heads: pulls.filter((p) => p.repo === repo.name).map((p) => p.head) };
    });

    const beforeCreation = await serviceWork(w);
    const createRate = await spread(pulls, 8, async (p) => {
      const r = await expect(await api(w, 'POST', `repos/bench/${p.repo}/pulls`, { head: p.branch, base: 'main', title: p.branch }), 201, `create ${p.branch}`);
      p.index = ((await r.json()) as { number: number }).number;
    });
    const beforeScheduling = await serviceWork(w);
    const scheduleRate = await spread(pulls, 8, async (p) => {
      await expect(await api(w, 'POST', `repos/bench/${p.repo}/pulls/${p.index}/merge`, { do: 'merge', merge_when_checks_succeed: true }), 201, `schedule ${p.index}`);
    });

    const afterScheduling = await serviceWork(w);
    // Read before the burst (its CPU is not measured): the burst's own events are the difference.
    const eventsBeforeBurst = await historyEvents(w);
    const gitBefore = await w.serviceCounters('pullhost_git_commands_total');
    const movesBefore = await w.serviceCounters('pullhost_base_moves_total');
    const cpuBefore = w.cpuSeconds();
    const burstStart = performance.now();
    let allPosted = 0;
    const posting = spread(pulls, 16, async (p) => {
      await expect(await api(w, 'POST', `repos/bench/${p.repo}/statuses/${p.head}`, { state: 'success', context: 'ci' }), 201, `status ${p.index}`);
      p.posted = performance.now();
    }).then((rate) => { allPosted = performance.now(); return rate; });
    // Merged times, read from the database every 50 ms while the burst runs.
    const byKey = new Map(pulls.map((p) => [`${p.repo}/${p.index}`, p]));
    const repoIds = new Map<number, string>();
    for (const row of await w.db('repositories').whereIn('name', repos.map((r) => r.name)).select('id', 'name')) repoIds.set(Number(row.id), String(row.name));
    let left = pulls.length;
    const deadline = performance.now() + 60_000 + N * BASES * 1_000;
    while (left > 0 && performance.now() < deadline) {
      const rows = await w.db('pull_requests').where({ has_merged: true }).select('base_repo_id', 'index');
      const now = performance.now();
      for (const row of rows) {
        const p = byKey.get(`${repoIds.get(Number(row.base_repo_id))}/${row.index}`);
        if (p && !p.merged) { p.merged = now; left--; }
      }
      if (left > 0) await sleep(50);
    }
    const statusRate = await posting;
    const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
    const allMerged = (performance.now() - burstStart) / 1000;
    const cpuAfter = w.cpuSeconds();
    const cpu = (k: keyof CpuSeconds) => round(cpuAfter[k] - cpuBefore[k], 1);
    const gitByCommand = [...(await w.serviceCounters('pullhost_git_commands_total'))]
      .map(([label, n]) => [label.replace(/^command="(.*)"$/, '$1'), n - (gitBefore.get(label) ?? 0)] as const)
      .filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
    const gitCommands = gitByCommand.reduce((a, [, n]) => a + n, 0);
    const movesAfter = await w.serviceCounters('pullhost_base_moves_total');
    const statements = (await serviceWork(w)).statements - afterScheduling.statements;
    const baseMoves = [...movesAfter.values()].reduce((a, b) => a + b, 0) - [...movesBefore.values()].reduce((a, b) => a + b, 0);
    if (left > 0) { errors += left; process.stdout.write(`NOT MERGED within the deadline: ${left}\n`); }

    // Exactly once: N merge commits and N new files per base, each pull request merged, no schedule left.
    for (const repo of repos) {
      const merges = Number((await gitOk(['rev-list', '--count', '--merges', 'refs/heads/main'], { cwd: repo.path })).trim());
      const files = (await gitOk(['ls-tree', '--name-only', 'refs/heads/main'], { cwd: repo.path })).split('\n').filter((f) => /^p\d+\.txt$/.test(f)).length;
      if (merges !== N || files !== N) { errors++; process.stdout.write(`${repo.name}: ${merges} merge commits, ${files} files (want ${N})\n`); }
    }
    const schedulesLeft = Number((await w.db('pull_auto_merges').count({ n: '*' }))[0]!.n);
    const mergeComments = Number((await w.db('comments').where({ type: 'merge_pull' }).count({ n: '*' }))[0]!.n);
    if (schedulesLeft !== 0 || mergeComments !== N * BASES) { errors++; process.stdout.write(`schedules left ${schedulesLeft}, merge comments ${mergeComments}\n`); }
    await sleep(3_000); // the base-moved checks after the burst settle
    // Every pull request's run has ended by now (merged, lingered): the server's counts are final.
    const events = await historyEvents(w);
    const rss = w.rssMiB();
    const peak = w.servicePeakRssMiB();
    const floor = await plainGitFloor(copies);
    // Whether what stays resident is live or garbage not yet given back: the same reading a minute on.
    await sleep(Math.max(0, 60_000 - floor * 1000));
    const rested = w.rssMiB();
    const restedHeap = await w.serviceCounters('nodejs_heap_size_total_bytes');

    const greenToMerged = pulls.filter((p) => p.merged).map((p) => Math.max(0, p.merged - p.posted) / 1000);
    const lastPostToMerged = (Math.max(...pulls.map((p) => p.merged)) - allPosted) / 1000;
    const merges = N * BASES;
    const perType = (byType: Map<string, number>, top = 8) =>
      [...byType].sort((a, b) => b[1] - a[1]).slice(0, top).map(([type, n]) => `${type.toLowerCase()} ${round(n / merges, 1)}`).join(', ');
    const perPull = (a: { statements: number; git: number }, b: { statements: number; git: number }) =>
      `${round((b.statements - a.statements) / merges, 1)} / ${round((b.git - a.git) / merges, 1)}`;
    process.stdout.write(`${table(['measure', 'value'], [
      ['pull requests (bases × per base)', `${BASES} × ${N} = ${merges}`],
      ['creating pull requests, 8 at a time', `${round(createRate, 1)}/s`],
      ['  each: database statements / git processes', perPull(beforeCreation, beforeScheduling)],
      ['scheduling auto-merge, 8 at a time', `${round(scheduleRate, 1)}/s`],
      ['  each: database statements / git processes', perPull(beforeScheduling, afterScheduling)],
      ['posting the success statuses, 16 at a time (during the merges)', `${round(statusRate, 1)}/s`],
      ['**all merged after** (first status posted → last merged)', `${round(allMerged)} s`],
      ['merges/s', round(merges / allMerged, 1)],
      ['green → merged p50 / p99', `${round(percentile(greenToMerged, 50))} s / ${round(percentile(greenToMerged, 99))} s`],
      ['last status posted → last merged', `${round(lastPostToMerged)} s`],
      ['**plain git floor** (same merges, one process per step, one at a time)', `${round(floor)} s`],
      ['**ratio to the floor**', `${round(allMerged / floor)}×`],
      ['base moves (compare-and-swap of main)', baseMoves || 'not counted (no pullhost_base_moves_total)'],
      ['CPU seconds during the burst: service / its git / Temporal / MariaDB / benchmark', `${cpu('service')} / ${cpu('git')} / ${cpu('temporal')} / ${cpu('mariadb')} / ${cpu('bench')}`],
      ['Temporal history events per pull request, its whole life (creation, scheduling, merge)', round(events.total / merges, 1)],
      ['  of which, per pull request', perType(events.byType)],
      ['  of which in the burst, per pull request', `${round((events.total - eventsBeforeBurst.total) / merges, 1)}: ${perType(new Map([...events.byType].map(([type, n]) => [type, n - (eventsBeforeBurst.byType.get(type) ?? 0)] as const).filter(([, n]) => n > 0)), 20)}`],
      ['service database statements during the burst, per merge', round(statements / merges, 1)],
      ['service git processes during the burst, per merge', round(gitCommands / merges, 1)],
      ['service git processes during the burst, per base move', baseMoves ? round(gitCommands / baseMoves, 1) : '-'],
      ['service git processes during the burst, by command', gitByCommand.map(([c, n]) => `${c} ${n}`).join(', ')],
      ['worker sticky cache (TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS)', cached],
      ['resident memory after the run: service / Temporal dev server', `${rss.service} MiB / ${rss.temporal} MiB`],
      ['peak resident memory of the service', `${peak} MiB`],
      ['resident memory a minute after the burst: service / Temporal dev server', `${rested.service} MiB / ${rested.temporal} MiB`],
      ['  of the service: its main thread\'s V8 heap (the rest: worker threads\' heaps, native memory)', `${round((restedHeap.get('') ?? 0) / 1048576, 1)} MiB`],
      ['exactly once (merge commits, files, comments, schedules)', errors === 0 ? 'yes' : `**NO** (${errors})`],
    ])}\n`);
  } finally {
    rmSync(floorDir, { recursive: true, force: true });
    await w.close();
  }
  process.exit(errors === 0 ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

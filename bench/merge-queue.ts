// The merge queue against today's auto-merge (issue #19), with a simulated CI: a loop in this
// process that polls the bare repository's refs like a CI system, and T after it first sees a
// commit posts the required `ci` status: failure when the commit's tree holds a "bad" pull
// request's file, else success. N pull requests each add their own file to a protected main.
//   queue, depth d: all N join the queue at once; measured until every good one landed.
//   auto-merge, update-then-merge (what a careful team does today without a queue): one pull request
//   at a time is brought up to date with main (POST .../update), its new head checked by CI, then
//   merged by its scheduled auto-merge; a red head is skipped.
// Figures: time until the last landing, pull requests landed per hour of CI time (CI time = T ×
// commits CI built), the target N/d × T, and the base's red commits (first-parent commits whose tree
// holds a bad file): zero in every run is the point.
// Run: npx tsc -p . && node dist/bench/merge-queue.js [N=16] [T seconds=2] [bad every k-th, 0: none] [modes=1,4,8,auto]
// (modes: queue depths, and `auto` for update-then-merge).
import { branchRef, gitOk, resolveRef } from '../git/index.js';
import { startBenchWorld, type BenchWorld } from './world.js';
import { table } from './load.js';

const N = Number(process.argv[2] ?? 16);
const T_MS = Number(process.argv[3] ?? 2) * 1000;
const BAD_EVERY = Number(process.argv[4] ?? 0);
const MODES = (process.argv[5] ?? '1,4,8,auto').split(',');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function api(w: BenchWorld, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${w.base}api/v1/${path}`, { method, headers: { authorization: w.auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function expect(r: Response, status: number, what: string): Promise<Response> {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${await r.text()}`);
  return r;
}

const badFile = (i: number) => BAD_EVERY > 0 && i % BAD_EVERY === BAD_EVERY - 1;

/** Whether a commit's tree holds one of the bad files (what the simulated CI fails on). */
async function isRed(path: string, commit: string, bad: string[]): Promise<boolean> {
  if (bad.length === 0) return false;
  const names = (await gitOk(['ls-tree', '--name-only', commit], { cwd: path })).split('\n');
  return bad.some((f) => names.includes(f));
}

/** The simulated CI: builds every new commit under `refPrefix` once, T after it first sees it. */
function simulatedCi(w: BenchWorld, repo: string, path: string, refPrefix: string, bad: string[]) {
  const seen = new Set<string>();
  let built = 0;
  let stopped = false;
  const pending = new Set<Promise<unknown>>();
  const loop = (async () => {
    while (!stopped) {
      const refs = (await gitOk(['for-each-ref', '--format=%(objectname)', refPrefix], { cwd: path })).split('\n').filter(Boolean);
      for (const commit of refs) {
        if (seen.has(commit)) continue;
        seen.add(commit);
        built++;
        const job = sleep(T_MS).then(async () => {
          if (stopped) return;
          const state = (await isRed(path, commit, bad)) ? 'failure' : 'success';
          await api(w, 'POST', `repos/bench/${repo}/statuses/${commit}`, { state, context: 'ci' });
        });
        pending.add(job);
        void job.finally(() => pending.delete(job));
      }
      await sleep(50);
    }
  })();
  return {
    get built() { return built; },
    async stop() {
      stopped = true;
      await loop;
      await Promise.allSettled([...pending]);
    },
  };
}

interface Setup {
  repo: string;
  path: string;
  start: string;
  pulls: Array<{ index: number; file: string; bad: boolean }>;
  bad: string[];
}

async function setUp(w: BenchWorld, repo: string, protection: Record<string, unknown>): Promise<Setup> {
  const path = await w.createRepo(repo);
  await expect(await api(w, 'POST', `repos/bench/${repo}/branch_protections`, { rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'], ...protection }), 201, 'protection');
  const pulls: Setup['pulls'] = [];
  for (let i = 0; i < N; i++) {
    const file = `p${i}.txt`;
    await w.branch(`p${i}`, file, `${repo} ${i}\n`, path);
    const r = await expect(await api(w, 'POST', `repos/bench/${repo}/pulls`, { head: `p${i}`, base: 'main', title: `p${i}` }), 201, 'create');
    pulls.push({ index: ((await r.json()) as { number: number }).number, file, bad: badFile(i) });
  }
  return { repo, path, start: (await resolveRef(path, branchRef('main')))!, pulls, bad: pulls.filter((p) => p.bad).map((p) => p.file) };
}

async function mergedCount(w: BenchWorld, s: Setup): Promise<number> {
  const repoId = (await w.db('repositories').where({ name: s.repo }).first('id')).id;
  return Number((await w.db('pull_requests').where({ base_repo_id: repoId, has_merged: true }).count({ n: '*' }))[0]!.n);
}

async function redCommits(s: Setup): Promise<{ commits: number; red: number }> {
  const list = (await gitOk(['rev-list', '--first-parent', `${s.start}..refs/heads/main`], { cwd: s.path })).split('\n').filter(Boolean);
  let red = 0;
  for (const c of list) if (await isRed(s.path, c, s.bad)) red++;
  return { commits: list.length, red };
}

interface Outcome {
  mode: string;
  seconds: number;
  /** N/d × T for the pull requests that can land (0 for auto-merge). */
  targetSeconds: number;
  landed: number;
  ciBuilds: number;
  red: number;
  baseCommits: number;
}

async function runQueue(w: BenchWorld, depth: number): Promise<Outcome> {
  const s = await setUp(w, `queue-d${depth}`, { enable_merge_queue: true, merge_queue_depth: depth, merge_queue_check_timeout_seconds: 600 });
  const good = s.pulls.filter((p) => !p.bad).length;
  const ci = simulatedCi(w, s.repo, s.path, 'refs/heads/merge-queue/', s.bad);
  const started = performance.now();
  await Promise.all(s.pulls.map(async (p) => expect(await api(w, 'POST', `repos/bench/${s.repo}/pulls/${p.index}/merge`, { merge_when_checks_succeed: true }), 201, `join ${p.index}`)));
  const deadline = started + 120_000 + N * T_MS * 2;
  while ((await mergedCount(w, s)) < good && performance.now() < deadline) await sleep(100);
  const seconds = (performance.now() - started) / 1000;
  await ci.stop();
  const { commits, red } = await redCommits(s);
  return { mode: `queue, depth ${depth}`, seconds, landed: await mergedCount(w, s), ciBuilds: ci.built, red, baseCommits: commits, targetSeconds: (good / depth) * (T_MS / 1000) };
}

async function runAutoMerge(w: BenchWorld): Promise<Outcome> {
  const s = await setUp(w, 'auto-merge', {});
  const ci = simulatedCi(w, s.repo, s.path, 'refs/pull/', s.bad);
  const started = performance.now();
  for (const p of s.pulls) {
    await expect(await api(w, 'POST', `repos/bench/${s.repo}/pulls/${p.index}/update`), 200, `update ${p.index}`);
    const scheduled = await api(w, 'POST', `repos/bench/${s.repo}/pulls/${p.index}/merge`, { merge_when_checks_succeed: true });
    if (scheduled.status !== 201 && scheduled.status !== 200) throw new Error(`schedule ${p.index}: ${scheduled.status} ${await scheduled.text()}`);
    // Until it merged, or its head went red (then it is skipped, as a person would).
    for (;;) {
      const pr = (await (await api(w, 'GET', `repos/bench/${s.repo}/pulls/${p.index}`)).json()) as { merged: boolean; head: { sha: string } };
      if (pr.merged) break;
      const status = (await (await api(w, 'GET', `repos/bench/${s.repo}/commits/${pr.head.sha}/status`)).json()) as { state: string };
      if (status.state === 'failure') {
        await api(w, 'DELETE', `repos/bench/${s.repo}/pulls/${p.index}/merge`);
        break;
      }
      await sleep(50);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  await ci.stop();
  const { commits, red } = await redCommits(s);
  return { mode: 'auto-merge, update-then-merge', seconds, landed: await mergedCount(w, s), ciBuilds: ci.built, red, baseCommits: commits, targetSeconds: 0 };
}

async function main() {
  const w = await startBenchWorld();
  const outcomes: Outcome[] = [];
  try {
    for (const mode of MODES) outcomes.push(mode === 'auto' ? await runAutoMerge(w) : await runQueue(w, Number(mode)));
  } finally {
    await w.close();
  }
  const ciHours = (o: Outcome) => (o.ciBuilds * T_MS) / 3_600_000;
  process.stdout.write(`N = ${N} pull requests, CI time T = ${T_MS / 1000} s, bad: ${BAD_EVERY > 0 ? `every ${BAD_EVERY}th` : 'none'}\n\n`);
  process.stdout.write(`${table(['mode', 'all landed after', 'target N/d × T', 'over the target', 'landed', 'landed per hour of wall time', 'CI builds', 'landed per CI hour', 'base commits', '**red base commits**'], outcomes.map((o) => [
    o.mode, `${round(o.seconds)} s`, o.targetSeconds ? `${round(o.targetSeconds)} s` : '-', o.targetSeconds ? `${round(o.seconds / o.targetSeconds, 2)}×` : '-', o.landed, round((o.landed / o.seconds) * 3600, 0), o.ciBuilds, round(o.landed / ciHours(o), 0), o.baseCommits, o.red,
  ]))}\n`);
  process.exit(outcomes.every((o) => o.red === 0) ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

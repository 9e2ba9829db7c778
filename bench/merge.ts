// Merge latency (request to 200) for small pull requests, next to the raw git commands the merge
// runs, timed on their own, so the overhead of Temporal and the database shows. Two cases: a pull
// request the workflow has checked against the current base (the usual one: merged a while after
// its last push), and one whose base moved just before the merge. Also: right after creation,
// throughput of independent merges into one base at concurrency 8, auto-merge firing delay after
// the last success status, peak RSS. Real MariaDB, a Temporal dev server, real git; the service runs
// in its own process as `npm start` runs it, this process is only its client (and runs the raw git).
// `split` as the second argument runs the service as production does: an `api` process and a
// `worker` process (the git a merge runs is then the worker's, not counted in the API's /metrics).
// Run: npx tsc -p . && node dist/bench/merge.js [merges] [serve|split]
import {
  branchRef, checkMergeability, commitTree, gitCommandStats, pullHeadRef, resolveRef, resolveRefTips, updateRef,
} from '../git/index.js';
import { percentile, startBenchWorld, type BenchWorld } from './world.js';
import { table } from './load.js';

const MERGES = Number(process.argv[2] ?? 30);
const TOPOLOGY = process.argv[3] === 'split' ? 'split' : 'serve';
const MAIN = branchRef('main');
const who = { name: 'Bench', email: 'bench@example.com' };

async function api(w: BenchWorld, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${w.base}api/v1/${path}`, { method, headers: { authorization: w.auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function openPull(w: BenchWorld, name: string): Promise<number> {
  await w.branch(name, `${name}.txt`, `${name}\n`);
  const r = await api(w, 'POST', 'repos/bench/bench/pulls', { head: name, base: 'main', title: name });
  if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { number: number }).number;
}

/** Waits until the workflow's stored check is of exactly the current base and head (what CI time gives a pull request). */
async function waitUntilChecked(w: BenchWorld, index: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const row = await w.db('pull_requests').where({ index }).first('status', 'checked_base', 'checked_head');
    const [base, head] = [await resolveRef(w.repoPath, MAIN), await resolveRef(w.repoPath, pullHeadRef(index))];
    if (row?.status === 'mergeable' && row.checked_base === base && row.checked_head === head) {
      // The check's activity has written its answer but is still finishing in the workflow, which
      // holds the pull request's lock until it has: people merge a while after the check, not then.
      await new Promise((r) => setTimeout(r, 300));
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`pull request ${index} was not checked within 30 s`);
}

/** Moves main on by one commit straight in the repository (no push, so no workflow hears of it). */
async function moveMain(w: BenchWorld, name: string): Promise<void> {
  const before = (await resolveRef(w.repoPath, MAIN))!;
  const side = await w.branch(name, `${name}.txt`, `${name}\n`);
  if (!(await updateRef(w.repoPath, MAIN, side, before))) throw new Error('main moved under the benchmark');
}

function gitCommandCount(): number {
  let n = 0;
  for (const { count } of gitCommandStats().values()) n += count;
  return n;
}

/**
 * The git commands a merge runs, on their own: one for-each-ref for the refs (and the base's tree),
 * the merge check (merge-base beside merge-tree) unless a stored check of these very commits has
 * the tree, commit-tree, and the compare-and-swap update-ref.
 */
async function rawGitMerge(w: BenchWorld, name: string, checked: boolean): Promise<{ ms: number; commands: number }> {
  const head = await w.branch(name, `${name}.txt`, `${name}\n`);
  const headRef = branchRef(name);
  let stored = checked ? await checkMergeability(w.repoPath, (await resolveRef(w.repoPath, MAIN))!, head) : null;
  const commandsBefore = gitCommandCount();
  const start = performance.now();
  const tips = await resolveRefTips(w.repoPath, [MAIN, headRef]);
  const base = tips.get(MAIN)!;
  stored ??= await checkMergeability(w.repoPath, base.sha, head, { baseTree: base.tree });
  const commit = await commitTree(w.repoPath, { tree: stored.tree!, parents: [base.sha, head], message: `merge ${name}`, author: who, committer: who });
  if (!(await updateRef(w.repoPath, MAIN, commit, base.sha))) throw new Error('raw merge: main moved');
  return { ms: performance.now() - start, commands: gitCommandCount() - commandsBefore };
}

interface Timed {
  ms: number[];
  commands: number[];
  errors: number;
}

async function timedMerge(w: BenchWorld, index: number, into: Timed): Promise<void> {
  const commandsBefore = await w.serviceGitCommands();
  const start = performance.now();
  const r = await api(w, 'POST', `repos/bench/bench/pulls/${index}/merge`, { do: 'merge' });
  into.ms.push(performance.now() - start);
  into.commands.push((await w.serviceGitCommands()) - commandsBefore);
  if (r.status !== 200) into.errors++;
}

const fresh = (): Timed => ({ ms: [], commands: [], errors: 0 });
const median = (values: number[]) => percentile(values, 50);

async function main() {
  const w = await startBenchWorld({}, TOPOLOGY);
  let errors = 0;
  try {
    // Each timed merge is paired with a raw git merge run just before it, so both sample the same
    // moment of a shared machine (measured in two separate phases, load drifting between them
    // moved the overhead by ±5 ms from run to run).
    // Checked: each pull request is opened, checked by its workflow against the current main, then merged.
    const checked = fresh();
    const rawChecked = [];
    const commitsBefore = await w.serviceCounters('pullhost_merge_commits_total');
    for (let i = 0; i < MERGES; i++) {
      rawChecked.push(await rawGitMerge(w, `raw-checked-${i}`, true));
      const index = await openPull(w, `checked-${i}`);
      await waitUntilChecked(w, index);
      await timedMerge(w, index, checked);
    }
    const commitsAfter = await w.serviceCounters('pullhost_merge_commits_total');
    const checkedCommits = [...commitsAfter].map(([label, n]) => `${label.replace(/^written="(.*)"$/, '$1')} ${n - (commitsBefore.get(label) ?? 0)}`).join(', ');
    // Base moved: as above, then main moves on just before the merge, so the merge checks again.
    const moved = fresh();
    const rawMoved = [];
    for (let i = 0; i < MERGES; i++) {
      const index = await openPull(w, `moved-${i}`);
      await waitUntilChecked(w, index);
      rawMoved.push(await rawGitMerge(w, `raw-moved-${i}`, false));
      await moveMain(w, `side-${i}`);
      await timedMerge(w, index, moved);
    }
    // Right after creation, while the workflow may still be checking (Renovate's habit): the merge
    // waits for that check instead of answering 405.
    const created = fresh();
    for (let i = 0; i < Math.ceil(MERGES / 2); i++) await timedMerge(w, await openPull(w, `created-${i}`), created);

    errors += checked.errors + moved.errors + created.errors;

    // Throughput: independent pull requests into one base, 8 at a time.
    const indexes: number[] = [];
    for (let i = 0; i < 40; i++) indexes.push(await openPull(w, `tp-${i}`));
    const started = performance.now();
    let next = 0;
    const statuses: number[] = [];
    const failures: string[] = [];
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < indexes.length) {
        const index = indexes[next++]!;
        const r = await api(w, 'POST', `repos/bench/bench/pulls/${index}/merge`, { do: 'merge' });
        statuses.push(r.status);
        if (r.status !== 200) failures.push(`${r.status} ${(await r.text()).slice(0, 200)}`);
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    const failedThroughput = statuses.filter((s) => s !== 200).length;
    errors += failedThroughput;

    // Auto-merge: schedule, then post the last required success and time until it is merged.
    const rule = await api(w, 'POST', 'repos/bench/bench/branch_protections', { rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'] });
    if (rule.status !== 201) throw new Error(`protection: ${rule.status}`);
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const index = await openPull(w, `auto-${i}`);
      const head = (await resolveRef(w.repoPath, pullHeadRef(index)))!;
      const s = await api(w, 'POST', `repos/bench/bench/pulls/${index}/merge`, { do: 'merge', merge_when_checks_succeed: true });
      if (s.status !== 201) { errors++; continue; }
      const posted = performance.now();
      await api(w, 'POST', `repos/bench/bench/statuses/${head}`, { state: 'success', context: 'ci' });
      while ((await api(w, 'GET', `repos/bench/bench/pulls/${index}/merge`)).status !== 204) {
        if (performance.now() - posted > 30_000) { errors++; break; }
        await new Promise((r) => setTimeout(r, 10));
      }
      delays.push(performance.now() - posted);
    }

    const peak = w.servicePeakRssMiB();
    const overhead = (request: number[], raw: Array<{ ms: number }>) => Math.round((median(request) - median(raw.map((r) => r.ms))) * 10) / 10;
    process.stdout.write(`${table(['measure', 'p50 ms', 'p99 ms', 'n', 'git commands'], [
      ['merge request to 200, checked against the current base', median(checked.ms), percentile(checked.ms, 99), checked.ms.length, median(checked.commands)],
      ['raw git of that merge (for-each-ref, commit-tree of the checked tree, update-ref)', median(rawChecked.map((r) => r.ms)), percentile(rawChecked.map((r) => r.ms), 99), rawChecked.length, median(rawChecked.map((r) => r.commands))],
      ['**overhead** (request p50 minus raw git p50)', overhead(checked.ms, rawChecked), '', '', ''],
      ['merge request to 200, base moved just before', median(moved.ms), percentile(moved.ms, 99), moved.ms.length, median(moved.commands)],
      ['raw git of that merge (for-each-ref, merge-base beside merge-tree, commit-tree, update-ref)', median(rawMoved.map((r) => r.ms)), percentile(rawMoved.map((r) => r.ms), 99), rawMoved.length, median(rawMoved.map((r) => r.commands))],
      ['**overhead** (request p50 minus raw git p50)', overhead(moved.ms, rawMoved), '', '', ''],
      ['merge request to 200 right after creation', median(created.ms), percentile(created.ms, 99), created.ms.length, median(created.commands)],
      ['auto-merge delay after the last success status', median(delays), percentile(delays, 99), delays.length, ''],
    ])}\n`);
    process.stdout.write('\n"git commands": buffered git processes the service ran during the request (its /metrics counter), or that the raw sequence ran.\n');
    process.stdout.write(`the checked merges' commits, by how they were written: ${checkedCommits}\n`);
    process.stdout.write(`\nthroughput: ${indexes.length} merges of independent pull requests into one base at concurrency 8: ${(indexes.length / seconds).toFixed(2)} merges/s, ${failedThroughput} not 200\n`);
    for (const f of failures.slice(0, 5)) process.stdout.write(`  not 200: ${f}\n`);
    const whose = TOPOLOGY === 'split' ? 'the larger of the `api` and `worker` processes' : 'the service process (API + worker)';
    process.stdout.write(`topology: ${TOPOLOGY}; peak RSS of ${whose} (VmHWM): ${peak} MiB; ${errors === 0 ? 'no errors' : `FAILURES: ${errors}`}\n`);
  } finally {
    await w.close();
  }
  process.exit(errors === 0 ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

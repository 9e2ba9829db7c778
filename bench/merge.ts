// Merge latency (request to 200) for small pull requests, next to the raw git work a merge does
// (merge-tree, commit-tree, update-ref), so the overhead of Temporal and the database shows;
// merge throughput of independent pull requests at concurrency 8; auto-merge firing delay after
// the last success status; peak RSS. Real MariaDB, a Temporal dev server, real git.
// Run: npx tsc -p . && node dist/bench/merge.js [merges]
import { branchRef, mergeCommitForStyle, resolveRef, updateRef } from '../git/index.js';
import { percentile, startBenchWorld, type BenchWorld } from './world.js';
import { table, trackPeakRss } from './load.js';

const MERGES = Number(process.argv[2] ?? 30);

async function api(w: BenchWorld, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${w.base}api/v1/${path}`, { method, headers: { authorization: w.auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function openPull(w: BenchWorld, name: string): Promise<number> {
  await w.branch(name, `${name}.txt`, `${name}\n`);
  const r = await api(w, 'POST', 'repos/bench/bench/pulls', { head: name, base: 'main', title: name });
  if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { number: number }).number;
}

async function waitUntilMergeable(w: BenchWorld, index: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const pull = (await (await api(w, 'GET', `repos/bench/bench/pulls/${index}`)).json()) as { mergeable: boolean };
    if (pull.mergeable) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`pull request ${index} did not become mergeable within 30 s`);
}

async function rawGitMerge(w: BenchWorld, name: string): Promise<number> {
  const head = await w.branch(name, `${name}.txt`, `${name}\n`);
  const start = performance.now();
  const base = (await resolveRef(w.repoPath, branchRef('main')))!;
  const who = { name: 'Bench', email: 'bench@example.com' };
  const commit = await mergeCommitForStyle(w.repoPath, 'merge', { base, head, message: `merge ${name}`, author: who, committer: who });
  await updateRef(w.repoPath, branchRef('main'), commit, base);
  return performance.now() - start;
}

async function main() {
  const w = await startBenchWorld();
  const rss = trackPeakRss();
  let errors = 0;
  try {
    // Latency, one merge at a time, of pull requests whose mergeability the workflow has computed
    // (the usual case: a pull request is merged some time after its last push).
    const settled: number[] = [];
    for (let i = 0; i < MERGES; i++) settled.push(await openPull(w, `lat-${i}`));
    for (const index of settled) await waitUntilMergeable(w, index);
    const latencies: number[] = [];
    for (const index of settled) {
      const start = performance.now();
      const r = await api(w, 'POST', `repos/bench/bench/pulls/${index}/merge`, { do: 'merge' });
      latencies.push(performance.now() - start);
      if (r.status !== 200) errors++;
    }
    // And right after creation, while the workflow may still be checking (Renovate's habit): the
    // merge waits for that check instead of answering 405.
    const fresh: number[] = [];
    for (let i = 0; i < Math.ceil(MERGES / 2); i++) {
      const index = await openPull(w, `fresh-${i}`);
      const start = performance.now();
      const r = await api(w, 'POST', `repos/bench/bench/pulls/${index}/merge`, { do: 'merge' });
      fresh.push(performance.now() - start);
      if (r.status !== 200) errors++;
    }
    const raw: number[] = [];
    for (let i = 0; i < MERGES; i++) raw.push(await rawGitMerge(w, `raw-${i}`));

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
      const head = (await resolveRef(w.repoPath, `refs/pull/${index}/head`))!;
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

    const peak = rss.stop();
    process.stdout.write(`${table(['measure', 'p50 ms', 'p99 ms', 'n'], [
      ['merge request to 200 (sequential, mergeability computed)', percentile(latencies, 50), percentile(latencies, 99), latencies.length],
      ['merge request to 200 right after creation', percentile(fresh, 50), percentile(fresh, 99), fresh.length],
      ['raw git work of one merge (merge-tree, commit-tree, update-ref)', percentile(raw, 50), percentile(raw, 99), raw.length],
      ['overhead (request p50 minus git p50)', Math.round((percentile(latencies, 50) - percentile(raw, 50)) * 10) / 10, '', ''],
      ['auto-merge delay after the last success status', percentile(delays, 50), percentile(delays, 99), delays.length],
    ])}\n`);
    process.stdout.write(`\nthroughput: ${indexes.length} merges of independent pull requests into one base at concurrency 8: ${(indexes.length / seconds).toFixed(2)} merges/s, ${failedThroughput} not 200\n`);
    for (const f of failures.slice(0, 5)) process.stdout.write(`  not 200: ${f}\n`);
    process.stdout.write(`peak RSS of the process (API + worker): ${peak} MiB; ${errors === 0 ? 'no errors' : `FAILURES: ${errors}`}\n`);
  } finally {
    await w.close();
  }
  process.exit(errors === 0 ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

// The cost of catching up pushes (core/push-recovery.ts): each API process compares every open
// pull request's recorded head and checked base with the branches when it starts and every
// PUSH_CATCH_UP_SECONDS. Timed at 10, 100 and 1,000 open pull requests into one base, then with
// 1,000 more spread over 100 further repositories (each one more reading of references): when every
// pull request agrees (the usual sweep), and with ten branches moved behind the service's back
// (replayed, their workflows signalled). Next to the floor: git listing the branches of every
// repository with open pull requests, one process each. The comparison is in the benchmark's own process, over the service's database and
// repositories; the service runs as `npm start` runs it (its own catch-up every hour, so it stays out).
// Run: npx tsc -p . && node dist/bench/push-catch-up.js [runs]
import { commitTree, gitOk, resolveRef, updateRef, branchRef } from '../git/index.js';
import { followMissedPushes } from '../core/push-recovery.js';
import { PullWorkflowClient } from '../workers/pull-workflow-client.js';
import { percentile, startBenchWorld, type BenchWorld } from './world.js';
import { table } from './load.js';

const RUNS = Number(process.argv[2] ?? 5);
const SIZES = [10, 100, 1_000];
const MOVED = 10;
const OTHER_REPOS = 100;
const who = { name: 'Bench', email: 'bench@example.com' };

/** Opens pull requests p<from>..p<to - 1> in bench/<repo>, 8 requests at a time. */
async function openPulls(w: BenchWorld, from: number, to: number, repo = 'bench', path = w.repoPath): Promise<void> {
  for (let i = from; i < to; i++) await w.branch(`p${i}`, `p${i}.txt`, `p${i}\n`, path);
  let next = from;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < to) {
      const i = next++;
      const r = await fetch(`${w.base}api/v1/repos/bench/${repo}/pulls`, {
        method: 'POST', headers: { authorization: w.auth, 'content-type': 'application/json' }, body: JSON.stringify({ head: `p${i}`, base: 'main', title: `p${i}` }),
      });
      if (r.status !== 201) throw new Error(`create p${i}: ${r.status} ${await r.text()}`);
    }
  }));
}

/** Moves `count` head branches one commit on, straight in git, as a push whose post-receive work failed leaves them. */
async function moveBehindTheServicesBack(w: BenchWorld, count: number, round: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const ref = branchRef(`p${i}`);
    const old = (await resolveRef(w.repoPath, ref))!;
    const tree = (await gitOk(['rev-parse', `${old}^{tree}`], { cwd: w.repoPath })).trim();
    const sha = await commitTree(w.repoPath, { tree, parents: [old], message: `moved ${round}`, author: who, committer: who });
    await updateRef(w.repoPath, ref, sha, old);
  }
}

/**
 * Waits until the moved pull requests' workflows have checked their new heads. A check still under
 * way would follow a branch moved by the next round itself (a check reads the branch), leaving the
 * catch-up less to replay.
 */
async function settled(w: BenchWorld, count: number): Promise<boolean> {
  const branches = Array.from({ length: count }, (_, i) => `p${i}`);
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const rows = await w.db('pull_requests').whereIn('head_branch', branches).select('head_commit_id', 'checked_head');
    if (rows.every((r: Record<string, unknown>) => r.checked_head === r.head_commit_id)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

const median = (values: number[]) => percentile(values, 50);
const ms = (started: number) => performance.now() - started;

async function main() {
  // The service's own sweeps are left out of the way: an hour apart.
  const w = await startBenchWorld({ PUSH_CATCH_UP_SECONDS: '3600' });
  const signaller = await PullWorkflowClient.connect({
    address: w.config.TEMPORAL_ADDRESS, namespace: w.config.TEMPORAL_NAMESPACE, taskQueue: w.config.TEMPORAL_TASK_QUEUE,
    historyEventLimit: w.config.TEMPORAL_HISTORY_EVENT_LIMIT, workflowIdPrefix: w.config.TEMPORAL_WORKFLOW_ID_PREFIX,
  });
  const services = { db: w.db, config: w.config, pullWorkflows: signaller };
  let errors = 0;
  const rows: Array<Array<string | number>> = [];
  try {
    let open = 0;
    const repoPaths = [w.repoPath];
    for (const size of [...SIZES, 0]) {
      if (size === 0) { // 0: ten more in each of OTHER_REPOS repositories
        for (let r = 0; r < OTHER_REPOS; r++) {
          repoPaths.push(await w.createRepo(`other${r}`));
          await openPulls(w, 0, 10, `other${r}`, repoPaths.at(-1));
        }
        open += OTHER_REPOS * 10;
      } else {
        await openPulls(w, open, size);
        open = size;
      }
      await new Promise((r) => setTimeout(r, 3_000)); // the creation checks settle
      const agree: number[] = [];
      const floor: number[] = [];
      const replay: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        let started = performance.now();
        const quiet = await followMissedPushes(services);
        agree.push(ms(started));
        if (quiet.replayed.length + quiet.problems.length > 0) errors++;
        started = performance.now();
        for (const path of repoPaths) await gitOk(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'], { cwd: path });
        floor.push(ms(started));
        await moveBehindTheServicesBack(w, MOVED, run);
        started = performance.now();
        const caught = await followMissedPushes(services);
        replay.push(ms(started));
        if (caught.replayed.length !== MOVED || caught.problems.length > 0) {
          errors++;
          process.stdout.write(`${open} open: replayed ${caught.replayed.length} of ${MOVED}, ${caught.problems.length} problems ${caught.problems[0]?.message ?? ''}\n`);
        }
        if (!(await settled(w, MOVED))) {
          errors++;
          process.stdout.write(`${open} open: the moved pull requests were not checked within 30 s\n`);
        }
      }
      const round = (x: number) => Math.round(x * 10) / 10;
      rows.push([size ? size : `${open}: also 10 in each of ${OTHER_REPOS} more repositories`, `${round(median(agree))} ms (${round(Math.min(...agree))}–${round(Math.max(...agree))})`, `${round(median(floor))} ms`,
        `${round(median(replay))} ms (${round(Math.min(...replay))}–${round(Math.max(...replay))})`, `${round((median(agree) * 1000) / open)} µs`]);
    }
    process.stdout.write(table(['open pull requests', 'a catch-up, all agree: median (min–max)', 'floor: git lists the branches (a process per repository)', `a catch-up replaying ${MOVED} moved branches`, 'all agree, per open pull request'], rows));
    process.stdout.write(`\n${RUNS} runs per size; a sweep every PUSH_CATCH_UP_SECONDS (default 300 s); ${errors === 0 ? 'no errors' : `FAILURES: ${errors}`}\n`);
  } finally {
    await signaller.close();
    await w.close();
  }
  process.exit(errors === 0 ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

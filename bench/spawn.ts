// Why buffered git runs from a spawn helper (git/spawn-helper-client.ts): the cost of starting
// `git --version` straight from this process while it holds 0, 400 and 1,500 MB of touched memory
// (fork copies the page tables of whatever the caller holds), next to the same call through the
// helper, whose cost does not grow with this process.
// Run: npx tsc -p . && node dist/bench/spawn.js [calls]
import { spawn } from 'node:child_process';
import { runGit } from '../git/runner.js';
import { percentile } from './world.js';
import { table } from './load.js';

const CALLS = Number(process.argv[2] ?? 40);

function direct(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/git', ['--version'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function timed(call: () => Promise<unknown>): Promise<number[]> {
  await call(); // the helper's first call starts it
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  return times;
}

async function main() {
  const held: Buffer[] = [];
  const rows: Array<Array<string | number>> = [];
  for (const mib of [0, 400, 1500]) {
    while (held.length < mib) held.push(Buffer.alloc(1024 * 1024, 1)); // touched, so resident
    const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
    const straight = await timed(direct);
    const helper = await timed(() => runGit(['--version'], { cwd: '/', okExitCodes: [0] }));
    rows.push([rss, percentile(straight, 50), percentile(straight, 99), percentile(helper, 50), percentile(helper, 99)]);
  }
  process.stdout.write(`${table(['this process resident MiB', 'spawn from here p50 ms', 'p99 ms', 'through the helper p50 ms', 'p99 ms'], rows)}\n`);
  process.stdout.write(`\n${CALLS} calls of git --version each, one at a time.\n`);
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

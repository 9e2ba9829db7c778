// Runs every benchmark, one after another, each in its own process against the real parts
// (MariaDB, a Temporal dev server, git, the HTTP server with autocannon in yet another process),
// and writes bench/RESULTS.md: the machine, the date, each scenario's exact command and figures.
// A scenario that reports an error or a non-2xx answer (its exit status) fails the whole run.
// Run: npm run bench            (or: npx tsc -p . && node dist/bench/run.js [--only name,name])
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { HEAP_FLAGS, SEMI_SPACE_FLAG } from '../app/heap-limits.js';
import { allocatorEnv } from '../app/allocator.js';
import { projectRoot, temporalCliPath } from '../app/paths.js';
import { table } from './load.js';
import { mergeResults, parseResults, SUMMARY_HEADING, withSummaryColumns, type ResultsParts } from './results-file.js';

interface Scenario {
  name: string;
  script: string;
  args: string[];
  /** Flags for node itself: a scenario serving in its own process runs with the service's (`npm start`'s). */
  nodeArgs?: string[];
  /** What it measures, for the reader of RESULTS.md. */
  about: string;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'markdown', script: 'markdown', args: ['3'], nodeArgs: HEAP_FLAGS,
    about: '`POST /api/v1/markdown` for 2 KB, 20 KB and 500 KB documents at 1, 8 and 64 connections, next to the renderer in a bare loop in as many threads as the pool has, in a process of its own (the ceiling); main-thread event-loop delay p99 under 500 KB load; where a 2 KB document\'s time goes (its render through the pool without HTTP, HTTP without a render at the target\'s rate, the reference work) and the least CPU those parts need at that rate; RSS after each run, at peak and a minute after.',
  },
  {
    name: 'render-heap', script: 'render-heap', args: ['5'], nodeArgs: [SEMI_SPACE_FLAG],
    about: 'One rendering thread started as the pool starts its threads, with the pool\'s old-generation limit (`POOL_THREAD_HEAP_MIB`) and without one, rendering 2 KB, 500 KB and 2 MiB documents in a loop: renders per second and the thread\'s peak heap.',
  },
  {
    name: 'pulls-list', script: 'pulls-list', args: ['5'], nodeArgs: HEAP_FLAGS,
    about: '`GET .../pulls` on a repository with 10,000 pull requests (several orders and filters) at 32 connections, on MariaDB; the query plans; peak RSS. The rows have no git behind them: a single record is measured by pull-reads.',
  },
  {
    name: 'pull-reads', script: 'pull-reads', args: ['5'],
    about: 'One pull request among 300, of 2,000 files and 200,000 lines in 20 commits: the list page, the record, its commits, files (and a 304) and `.diff`, each next to its ceiling (the bare git commands behind it, or the HTTP floor of `GET /version` with the same token); the first (cold) request of each, the API process\'s RSS (the service runs split, as in production; the repository is built and the load generated in other processes) after each run and at peak, and a minute after the load stops.',
  },
  {
    name: 'pull-files', script: 'pull-files', args: ['5'], nodeArgs: HEAP_FLAGS,
    about: 'A pull request of 2,000 files and 200,000 lines: the first page of `GET .../pulls/{index}/files` and the streamed `.diff`, alone and under load, on MariaDB; RSS before and at peak.',
  },
  {
    name: 'merge', script: 'merge', args: ['40'],
    about: 'Merge latency (request to 200) next to the raw git commands a merge runs, merge throughput of independent pull requests at concurrency 8, auto-merge firing delay after the last success status; MariaDB, a Temporal dev server of its own, the service (API and worker in one process) in a process of its own, as `npm start` runs it; its peak RSS.',
  },
  {
    name: 'auto-merge-100', script: 'auto-merge-scale', args: ['100', '1'],
    about: 'Auto-merge at repository scale (issue #24): N pull requests per base into a protected main with one required check, all scheduled while it is pending, then every check posted `success` 16 at a time; creation, scheduling and status-post rates under N open workflows, time until all merged, green → merged, git processes per base move, resident memory after the run; and the plain-git floor (merge-tree, commit-tree, update-ref per merge, one at a time) on copies of the same repositories in the same run, with the ratio. Exactly once checked (N merge commits and N files per base).',
  },
  {
    name: 'auto-merge-1000', script: 'auto-merge-scale', args: ['1000', '1'],
    about: 'As auto-merge-100, with 1,000 pull requests waiting on one base.',
  },
  {
    name: 'auto-merge-10x100', script: 'auto-merge-scale', args: ['100', '10'],
    about: 'As auto-merge-100, on ten bases (ten repositories) at once, 100 pull requests each; the floor is the ten bases merged one after another.',
  },
  {
    name: 'merge-queue', script: 'merge-queue', args: ['16', '2', '0'],
    about: 'The merge queue (issue #19) at depths 1, 4 and 8 against auto-merge with update-then-merge, 16 pull requests, a simulated CI (polls the refs, posts `ci` T = 2 s after it first sees a commit): time until all landed against the target N/d × T, pull requests landed per hour of CI time, red commits on the base.',
  },
  {
    name: 'merge-queue-failures', script: 'merge-queue', args: ['16', '2', '4'],
    about: 'As merge-queue, with every 4th pull request failing CI: the queue ejects them (zero red commits on the base), update-then-merge skips them.',
  },
  {
    name: 'merge-queue-ci10', script: 'merge-queue', args: ['16', '10', '0', '1,4,8'],
    about: 'As merge-queue with a CI of T = 10 s (the queue only): how close a longer CI brings each depth to N/d × T, the per-round overhead being fixed.',
  },
  {
    name: 'merge-split', script: 'merge', args: ['40', 'split'],
    about: 'The merge scenario with the service as production runs it: an `api` process and a `worker` process (the merge runs in the worker; git commands counted are the API\'s only).',
  },
  {
    name: 'push-catch-up', script: 'push-catch-up', args: ['5'],
    about: 'The catch-up of pushes whose post-receive work did not happen (each API process at start and every `PUSH_CATCH_UP_SECONDS`): one comparison of every open pull request\'s head and checked base with the branches, at 10, 100 and 1,000 open pull requests, when all agree and with ten branches moved behind the service\'s back (replayed, their workflows signalled), next to git listing the same branches.',
  },
  {
    name: 'spawn', script: 'spawn', args: ['40'],
    about: 'Starting `git --version` straight from a process holding 0, 400 and 1,500 MB, next to the same call through the git spawn helper: why the service never forks itself.',
  },
  {
    name: 'password-login', script: 'password-login', args: ['40'],
    about: 'A password login through Basic authentication (argon2 verify included), and the failed-login throttle\'s own steps for a correct login (look up, clear) and a wrong one (look up, count), its counters in MariaDB.',
  },
  {
    name: 'webhooks', script: 'webhooks', args: ['5000'],
    about: 'A burst of 5,000 issue comments heard by 10 hooks (50,000 deliveries to local receivers): delivery latency after the causing request answered, the comment requests\' and a probe\'s latency against the same burst with the hooks inactive, the service\'s peak RSS.',
  },
  {
    name: 'token-auth', script: 'token-auth', args: ['5'], nodeArgs: HEAP_FLAGS,
    about: 'CPU per token authentication, and `GET /api/v1/version` anonymous against with a token (the overhead of authentication), SQLite and MariaDB; peak RSS.',
  },
];

interface Outcome {
  scenario: Scenario;
  status: number;
  seconds: number;
  stdout: string;
  stderr: string;
  rss: RssFigures;
  /** The 1-minute load average when it started and when it ended. */
  load: [string, string];
}

interface RssFigures {
  /** MiB at the first sample, the median of all samples (the steady state), and the peak (VmHWM). */
  start: number;
  median: number;
  peak: number;
}

/** Samples a process's resident memory from /proc every 200 ms until `stop`. */
function sampleRss(pid: number): { stop(): RssFigures } {
  const samples: number[] = [];
  let peak = 0;
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      samples.push(kib('VmRSS'));
      peak = Math.max(peak, kib('VmHWM'));
    } catch {
      // gone already
    }
  };
  read();
  const timer = setInterval(read, 200);
  const mib = (kib: number) => Math.round(kib / 102.4) / 10;
  return {
    stop() {
      clearInterval(timer);
      const sorted = [...samples].sort((a, b) => a - b);
      return { start: mib(samples[0] ?? 0), median: mib(sorted[Math.floor(sorted.length / 2)] ?? 0), peak: mib(Math.max(peak, ...samples)) };
    },
  };
}

function runScenario(s: Scenario): Promise<Outcome> {
  const started = performance.now();
  const loadAtStart = loadavg()[0]!.toFixed(2);
  process.stdout.write(`[bench] ${s.name}: node dist/bench/${s.script}.js ${s.args.join(' ')}\n`);
  // On the service's allocator (app/allocator.ts): some scenarios serve in their own process.
  const child = spawn(process.execPath, [...(s.nodeArgs ?? []), join(projectRoot, 'dist', 'bench', `${s.script}.js`), ...s.args], { cwd: projectRoot, env: { ...process.env, ...allocatorEnv() }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const rss = sampleRss(child.pid ?? 0);
  child.stdout.on('data', (c: Buffer) => { stdout += c; process.stdout.write(c); });
  child.stderr.on('data', (c: Buffer) => { stderr = (stderr + c).slice(-20_000); });
  return new Promise((resolve) => child.once('exit', (code) => resolve({
    scenario: s, status: code ?? 1, seconds: Math.round((performance.now() - started) / 100) / 10, stdout, stderr, rss: rss.stop(), load: [loadAtStart, loadavg()[0]!.toFixed(2)],
  })));
}

/** First line a command prints, or what went wrong. */
function versionOf(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().split('\n')[0]! : `unavailable (${command})`;
}

function machine(): Array<[string, string]> {
  const debian = (() => { try { return `Debian ${readFileSync('/etc/debian_version', 'utf8').trim()}`; } catch { return 'unknown'; } })();
  const maria = (q: string) => versionOf('mariadb', ['-uroot', '-h127.0.0.1', '-N', '-e', q]);
  return [
    ['CPU', `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`],
    ['memory', `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`],
    ['system', `${debian}, Linux ${release()}`],
    ['Node.js', process.version],
    ['git', versionOf('git', ['--version'])],
    ['MariaDB', `${maria('SELECT VERSION()')} (innodb_flush_log_at_trx_commit = ${maria('SELECT @@innodb_flush_log_at_trx_commit')})`],
    ['Temporal', versionOf(temporalCliPath(''), ['--version'])],
    ['load average at start', loadavg().map((l) => l.toFixed(2)).join(', ')],
  ];
}

/** This run's summary row and section per scenario. */
function runParts(outcomes: Outcome[], startedAt: Date): ResultsParts {
  const when = `${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const commit = versionOf('git', ['-C', projectRoot, 'rev-parse', '--short', 'HEAD']);
  // Sections kept from earlier runs may come from another machine kind: each names its CPU.
  const cpu = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`;
  const summaryRows = new Map<string, string>();
  const sections = new Map<string, string>();
  for (const o of outcomes) {
    const result = o.status === 0 ? 'passed' : `**FAILED** (exit ${o.status})`;
    const command = `\`node ${[...(o.scenario.nodeArgs ?? []), `dist/bench/${o.scenario.script}.js`, ...o.scenario.args].join(' ')}\``;
    summaryRows.set(o.scenario.name, `| ${[o.scenario.name, result, o.seconds, `${o.rss.start} / ${o.rss.median} / ${o.rss.peak}`, when, command].join(' | ')} |`);
    const lines = [`## ${o.scenario.name}`, '', o.scenario.about, '',
      `Command: ${command} — ${result}, ${o.seconds} s; ${when}, commit ${commit}, ${cpu}, load average ${o.load[0]} at start, ${o.load[1]} at end.`, '',
      o.stdout.trim()];
    if (o.status !== 0) lines.push('', 'Last lines of its error output:', '', '```', o.stderr.trim().split('\n').slice(-15).join('\n'), '```');
    sections.set(o.scenario.name, lines.join('\n'));
  }
  return { summaryRows, sections };
}

function report(parts: ResultsParts, facts: Array<[string, string]>, startedAt: Date, command: string, seconds: number): string {
  const lines = [
    '# Benchmark results',
    '',
    `Written by \`${command}\` on ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC (${seconds.toFixed(0)} s). `
      + 'Each scenario runs in its own process against the real parts; load comes from autocannon in a further process on the same machine, '
      + 'so server and load generator share the cores: read the figures as relative, not as capacity. A run of some scenarios '
      + '(`--only`) replaces only their rows and sections: each says when, at which commit and at which load it ran. Earlier runs and the '
      + 'analysis behind the changes they prompted are in [HISTORY.md](HISTORY.md).',
    '',
    '## Machine',
    '',
    'Of the latest run; a section kept from an earlier run names the CPU it ran on.',
    '',
    table(['what', 'value'], facts),
    `| load average at end | ${loadavg().map((l) => l.toFixed(2)).join(', ')} |`,
    '',
    SUMMARY_HEADING,
    '',
    '| scenario | result | seconds | RSS start / steady (median) / peak MiB | run at | command |',
    '|---|---|---|---|---|---|',
    ...[...parts.summaryRows.values()].map((row) => withSummaryColumns(row, 6)),
    '',
    'RSS is the scenario process\'s, sampled every 200 ms (peak: its VmHWM): the service itself for the scenarios that serve in-process '
      + '(markdown, pulls-list, pull-files, token-auth); the others run the service in processes of their own (bench/world.ts) and report its figures '
      + 'in their sections, so for them this column is the benchmark driver\'s.',
    '',
  ];
  for (const section of parts.sections.values()) lines.push(section, '');
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const only = process.argv.indexOf('--only');
  const names = only >= 0 ? (process.argv[only + 1] ?? '').split(',') : null;
  const chosen = names ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
  if (chosen.length === 0) throw new Error(`no such scenario; there are: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  const startedAt = new Date();
  const facts = machine();
  const outcomes: Outcome[] = [];
  for (const s of chosen) outcomes.push(await runScenario(s));
  const command = names ? `npm run bench -- --only ${chosen.map((s) => s.name).join(',')}` : 'npm run bench';
  const path = join(projectRoot, 'bench', 'RESULTS.md');
  const order = SCENARIOS.map((s) => s.name);
  const earlier = names && existsSync(path) ? parseResults(readFileSync(path, 'utf8'), order) : { summaryRows: new Map(), sections: new Map() };
  const parts = mergeResults(earlier, runParts(outcomes, startedAt), order);
  writeFileSync(path, report(parts, facts, startedAt, command, outcomes.reduce((n, o) => n + o.seconds, 0)));
  const failed = outcomes.filter((o) => o.status !== 0);
  process.stdout.write(`\n[bench] wrote ${path}; ${failed.length === 0 ? 'every scenario passed' : `FAILED: ${failed.map((o) => o.scenario.name).join(', ')}`}\n`);
  process.exit(failed.length === 0 ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});

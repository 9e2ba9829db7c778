// Webhooks under a burst: EVENTS issue comments posted at concurrency 16 while 10 active hooks hear
// them (EVENTS × 10 deliveries to 10 local receivers), against the same burst with the hooks
// inactive. Figures: delivery latency after the causing request answered (p50, p99, the last one),
// the comment requests' own latency and a probe's (GET of the issue, one at a time) in both runs and
// their ratio, the service's peak RSS. MariaDB, a Temporal dev server of its own, the service (API
// and worker in one process, as `npm start` runs it) in a process of its own.
// Run: npx tsc -p . && node dist/bench/webhooks.js [events]
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { percentile, startBenchWorld, type BenchWorld } from './world.js';
import { table } from './load.js';

const EVENTS = Number(process.argv[2] ?? 5000);
const HOOKS = 10;
const CONCURRENCY = 16;

interface Burst {
  /** Comment id → when its request answered (ms, this process's clock). */
  answered: Map<number, number>;
  requestMs: number[];
  probeMs: number[];
  seconds: number;
}

async function api(w: BenchWorld, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${w.base}api/v1/${path}`, { method, headers: { authorization: w.auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Receivers that note when each comment's delivery arrived. */
async function startReceivers(count: number): Promise<{ servers: Server[]; urls: string[]; arrivals: Array<Map<number, number>> }> {
  const servers: Server[] = [];
  const arrivals: Array<Map<number, number>> = [];
  for (let i = 0; i < count; i++) {
    const got = new Map<number, number>();
    arrivals.push(got);
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const id = (JSON.parse(Buffer.concat(chunks).toString()) as { comment: { id: number } }).comment.id;
        if (!got.has(id)) got.set(id, at);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  return { servers, urls: servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`), arrivals };
}

async function burst(w: BenchWorld, issue: number, until: () => boolean): Promise<Burst> {
  const answered = new Map<number, number>();
  const requestMs: number[] = [];
  const probeMs: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  const poster = async () => {
    while (next < EVENTS) {
      const n = next++;
      const t0 = performance.now();
      const r = await api(w, 'POST', `repos/bench/bench/issues/${issue}/comments`, { body: `comment ${n} ${'x'.repeat(200)}` });
      const t1 = performance.now();
      if (r.status !== 201) {
        failures++;
        if (failures === 1) process.stderr.write(`first failure: ${r.status} ${await r.text()}\n`);
      }
      else answered.set(((await r.json()) as { id: number }).id, t1);
      requestMs.push(t1 - t0);
    }
  };
  let posting = true;
  const probe = async () => {
    while (posting || !until()) {
      const t0 = performance.now();
      const r = await api(w, 'GET', `repos/bench/bench/issues/${issue}`);
      await r.arrayBuffer();
      probeMs.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const probing = probe();
  await Promise.all(Array.from({ length: CONCURRENCY }, poster));
  posting = false;
  await probing;
  if (failures) throw new Error(`${failures} comments were not created`);
  return { answered, requestMs, probeMs, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const receivers = await startReceivers(HOOKS);
  const w = await startBenchWorld({ WEBHOOK_ALLOWED_HOST_LIST: 'loopback', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent' });
  try {
    const hookIds: number[] = [];
    for (const url of receivers.urls) {
      const r = await api(w, 'POST', 'repos/bench/bench/hooks', { type: 'gitea', active: false, events: ['issue_comment'], config: { url, content_type: 'json', secret: 'bench' } });
      if (r.status !== 201) throw new Error(`hook: ${r.status} ${await r.text()}`);
      hookIds.push(((await r.json()) as { id: number }).id);
    }
    const issueOf = async (title: string) => {
      const r = await api(w, 'POST', 'repos/bench/bench/issues', { title });
      return ((await r.json()) as { number: number }).number;
    };

    // The same burst twice: hooks inactive (nothing recorded), then all ten active.
    const quiet = await burst(w, await issueOf('without hooks'), () => true);
    for (const id of hookIds) await api(w, 'PATCH', `repos/bench/bench/hooks/${id}`, { active: true });
    const expected = EVENTS * HOOKS;
    const arrived = () => receivers.arrivals.reduce((n, m) => n + m.size, 0);
    const deadline = performance.now() + 30 * 60_000;
    const loud = await burst(w, await issueOf('with hooks'), () => arrived() >= expected || performance.now() > deadline);
    const latencies: number[] = [];
    for (const got of receivers.arrivals) for (const [id, at] of got) latencies.push(at - (loud.answered.get(id) ?? at));
    const failed = await w.db('webhook_deliveries').whereNot('status', 'delivered').count({ n: '*' }).first();
    const ratio = (a: number[], b: number[], p: number) => (percentile(b, p) / Math.max(percentile(a, p), 0.1)).toFixed(2);

    const lines = [
      `${EVENTS} comment events × ${HOOKS} hooks = ${expected} deliveries; ${arrived()} arrived, ${Number(failed?.n ?? 0)} not delivered; the burst at concurrency ${CONCURRENCY}.`,
      '',
      table(['delivery after the request answered', 'ms'], [
        ['p50', percentile(latencies, 50)], ['p99', percentile(latencies, 99)], ['last', Math.round(Math.max(...latencies))],
      ]),
      '',
      table(['', 'hooks inactive', 'ten hooks active', 'ratio'], [
        ['burst (s) until every delivery arrived', quiet.seconds.toFixed(1), loud.seconds.toFixed(1), (loud.seconds / quiet.seconds).toFixed(2)],
        ['POST comment p50 (ms)', percentile(quiet.requestMs, 50), percentile(loud.requestMs, 50), ratio(quiet.requestMs, loud.requestMs, 50)],
        ['POST comment p99 (ms)', percentile(quiet.requestMs, 99), percentile(loud.requestMs, 99), ratio(quiet.requestMs, loud.requestMs, 99)],
        ['probe GET issue p50 (ms)', percentile(quiet.probeMs, 50), percentile(loud.probeMs, 50), ratio(quiet.probeMs, loud.probeMs, 50)],
        ['probe GET issue p99 (ms)', percentile(quiet.probeMs, 99), percentile(loud.probeMs, 99), ratio(quiet.probeMs, loud.probeMs, 99)],
      ]),
      '',
      `service peak RSS: ${w.servicePeakRssMiB()} MiB`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (arrived() < expected || Number(failed?.n ?? 0) > 0) process.exitCode = 1;
  } finally {
    await w.close();
    for (const s of receivers.servers) s.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});

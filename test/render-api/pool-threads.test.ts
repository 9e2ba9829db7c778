// The rendering pool's threads: lowered priority, results moved as bytes, large JSON bodies parsed
// in the pool. Each test would fail if that part of the event-loop work were undone or broken.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { startTestServices } from '../helper.js';
import { createTaskPool } from '../../workers/pool.js';
import type { ParsedJson, RenderedBody } from '../../workers/pool-tasks.js';
import { renderDocument } from '../../workers/markup/render.js';
import { request } from '../markup/helpers.js';

/** Nice value of each thread of this process (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceness(): Map<number, number> {
  const niceness = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    niceness.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return niceness;
}

/** The main thread's nice value before any pool thread existed. */
const STARTING_NICENESS = process.platform === 'linux' ? threadNiceness().get(process.pid)! : 0;

t.test('pool threads render at a lower priority than the event loop', async (t) => {
  const pool = createTaskPool({ POOL_MIN_THREADS: 2, POOL_MAX_THREADS: 2, POOL_MAX_QUEUE: 4, POOL_TASK_TIMEOUT_MS: 10_000 });
  t.teardown(() => pool.destroy());
  const text = '# Title\n\n- [x] done *é* [l](https://example.com)\n\n<b onclick="x">raw</b>';
  const result = await pool.run<RenderedBody>({ kind: 'render', request: request({ text }) });
  const expected = renderDocument(request({ text }));
  t.ok(result.ok && expected.ok);
  if (result.ok && expected.ok) {
    t.type(result.html, Uint8Array, 'the HTML comes back as bytes');
    t.equal(Buffer.from(result.html).toString('utf8'), expected.html, 'the same HTML as rendered in this thread');
  }
  if (process.platform !== 'linux') return;
  // Relative to the nice value this process started with (the suite may run under `nice`).
  const starting = STARTING_NICENESS;
  const poolNiceness = Math.min(19, starting + 10);
  // The second thread may still be starting: wait for it, within a bound.
  const lowered = () => [...threadNiceness().entries()].filter(([tid, nice]) => tid !== process.pid && nice === poolNiceness).length;
  for (let i = 0; i < 100 && lowered() < 2; i++) await new Promise((r) => setTimeout(r, 50));
  t.equal(threadNiceness().get(process.pid), starting, 'the main thread keeps its priority');
  t.equal(lowered(), 2, `both pool threads run 10 lower, at nice ${poolNiceness}`);
});

t.test('a pool of at least no threads starts one for its first task', async (t) => {
  const pool = createTaskPool({ POOL_MIN_THREADS: 0, POOL_MAX_THREADS: 1, POOL_MAX_QUEUE: 4, POOL_TASK_TIMEOUT_MS: 10_000 });
  t.teardown(() => pool.destroy());
  t.equal(pool.stats().threads, 0, 'no thread before any work');
  t.same(await pool.run<ParsedJson>({ kind: 'parseJson', body: Buffer.from('{"a":1}') }), { ok: true, value: { a: 1 } });
  t.equal(pool.stats().threads, 1, 'one thread once there was work');
});

t.test('tasks queued behind an aborted one still run when it took the last thread', async (t) => {
  const pool = createTaskPool({ POOL_MIN_THREADS: 0, POOL_MAX_THREADS: 1, POOL_MAX_QUEUE: 4, POOL_TASK_TIMEOUT_MS: 5_000 });
  t.teardown(() => pool.destroy());
  const parse = () => pool.run<ParsedJson>({ kind: 'parseJson', body: Buffer.from('{"a":1}') });
  await parse(); // the thread is up and idle
  const client = new AbortController();
  // Many top-level blocks: the render reads the stop between slices of them. (One long list is a
  // single block, parsed whole before the first look: on a starved core that outlasted the deadline.)
  const text = 'A paragraph with **bold** and [a link](https://example.com/x).\n\n'.repeat(40_000);
  const running = pool.run({ kind: 'render', request: request({ text }) }, client.signal);
  const queued = parse();
  await new Promise((r) => setTimeout(r, 100));
  client.abort(); // its client left: the render is asked to stop
  t.equal(await running.then(() => 200, (err: { status?: number }) => err.status), 499, 'the aborted render answers 499');
  const started = Date.now();
  t.same(await queued, { ok: true, value: { a: 1 } }, 'the queued task ran (no 422 at its deadline)');
  t.ok(Date.now() - started < 4_000, `and soon (${Date.now() - started} ms), not at its deadline`);
});

t.test('JSON bodies parse in the pool as Fastify parses them', async (t) => {
  const pool = createTaskPool({ POOL_MIN_THREADS: 1, POOL_MAX_THREADS: 1, POOL_MAX_QUEUE: 4, POOL_TASK_TIMEOUT_MS: 10_000 });
  t.teardown(() => pool.destroy());
  const parse = (json: string) => pool.run<ParsedJson>({ kind: 'parseJson', body: Buffer.from(json) });
  t.same(await parse('\ufeff{"Text":"é","Wiki":true}'), { ok: true, value: { Text: 'é', Wiki: true } }, 'a byte order mark is skipped');
  t.same(await parse('{"Text": '), { ok: false });
  t.same(await parse('{"a":{"__proto__":{"x":1}}}'), { ok: false }, 'a __proto__ key is refused');
  t.same(await parse('{"constructor":{"prototype":{}}}'), { ok: false }, 'a constructor.prototype key is refused');
  t.same(await parse('{"constructor":"fine"}'), { ok: true, value: { constructor: 'fine' } });
});

t.test('large and small JSON bodies get the same answers', async (t) => {
  const { app } = await startTestServices(t, { dbType: 'sqlite3', env: { MARKUP_BODY_LIMIT: String(4 << 20) } });
  const post = (payload: string) => app.inject({ method: 'POST', url: '/api/v1/markdown', headers: { 'content-type': 'application/json' }, payload });
  const padding = ' '.repeat(100_000);
  for (const [name, json] of [
    ['a document', '{"Mode":"gfm","Text":"## Title\\n\\n*it* <b>b</b>"}'],
    ['invalid JSON', '{"Mode":"gfm","Text":'],
    ['a prototype key', '{"__proto__":{"x":1},"Text":"a"}'],
    ['an unknown mode', '{"Mode":"fancy","Text":"x"}'],
  ]) {
    const small = await post(json!);
    const large = await post(json!.replace('{', `{${padding}`));
    t.equal(large.statusCode, small.statusCode, `${name}: status ${small.statusCode}`);
    t.equal(large.body, small.body, `${name}: body`);
  }
  const document = await post(JSON.stringify({ Mode: 'gfm', Text: '*x* '.repeat(50_000) }));
  t.equal(document.statusCode, 200);
  t.equal(document.body, `<p>${'<em>x</em> '.repeat(49_999)}<em>x</em></p>\n`);
});

t.test('a render that outgrows the thread heap limit is a 422 and the pool goes on', async (t) => {
  const { app } = await startTestServices(t, { dbType: 'sqlite3', env: { MARKUP_BODY_LIMIT: String(4 << 20), POOL_THREAD_HEAP_MIB: '24', POOL_MAX_THREADS: '1' } });
  const render = (text: string) => app.inject({ method: 'POST', url: '/api/v1/markdown', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ Mode: 'gfm', Text: text }) });
  // One paragraph of 150,000 emphasised words: its tokens alone need far more than 24 MiB.
  const huge = await render('*x* '.repeat(150_000));
  t.equal(huge.statusCode, 422, huge.body.slice(0, 200));
  t.match(huge.json(), { message: /more memory than a pool thread may use/ });
  const small = await render('*still* here');
  t.equal(small.statusCode, 200);
  t.equal(small.body, '<p><em>still</em> here</p>\n');
});

t.test('a render whose client leaves stops between slices, and its thread lives on', async (t) => {
  const pool = createTaskPool({ POOL_MIN_THREADS: 1, POOL_MAX_THREADS: 1, POOL_MAX_QUEUE: 4, POOL_TASK_TIMEOUT_MS: 60_000 });
  t.teardown(() => pool.destroy());
  const thread = await pool.run<number>({ kind: 'wake' });
  const text = 'A paragraph with *emphasis* and [a link](https://example.com/x).\n\n'.repeat(60_000);
  const startedWhole = Date.now();
  await pool.run({ kind: 'render', request: request({ text }) });
  const whole = Date.now() - startedWhole;

  const client = new AbortController();
  const started = Date.now();
  const running = pool.run({ kind: 'render', request: request({ text }) }, client.signal);
  setTimeout(() => client.abort(), whole / 4);
  t.equal(await running.then(() => 200, (err: { status?: number }) => err.status), 499, 'the render answers 499');
  const stoppedAfter = Date.now() - started;
  t.ok(stoppedAfter < whole * 0.75, `it stopped after ${stoppedAfter} ms of a ${whole} ms render`);
  t.equal(await pool.run<number>({ kind: 'wake' }), thread, 'the same thread serves the next task');
});

// Large markup bodies are read a few at a time (api/body-admission.ts): waiting bodies stay in the
// clients' sockets, a slow sender loses its slot, a client that leaves gives its place up, and small
// documents never wait behind large ones.
import { createConnection, type Socket } from 'node:net';
import t from 'tap';
import { ConcurrencyLimit } from '../../core/concurrency-limit.js';
import { HeldSlot } from '../../api/body-admission.js';
import { startTestServices } from '../helper.js';

t.test('a slot is handed over in order; a waiter that gives up leaves the queue', async (t) => {
  const limit = new ConcurrencyLimit(1);
  const release = await limit.acquire();
  const leaving = new AbortController();
  const gaveUp = limit.acquire(leaving.signal);
  const next = limit.acquire();
  t.same(limit.load, { active: 1, waiting: 2 });
  leaving.abort(new Error('left'));
  await t.rejects(gaveUp, { message: 'left' });
  t.same(limit.load, { active: 1, waiting: 1 }, 'the waiter that left is gone');
  release();
  release(); // a second release gives nothing back twice
  const releaseNext = await next;
  t.same(limit.load, { active: 1, waiting: 0 }, 'the slot went to the next waiter');
  releaseNext();
  t.same(limit.load, { active: 0, waiting: 0 });
  await t.rejects(limit.acquire(AbortSignal.abort(new Error('gone'))), { message: 'gone' }, 'an aborted signal does not queue');
});

t.test('a slot is given back once its response has closed and no work on its body runs', async (t) => {
  const limit = new ConcurrencyLimit(1);
  const slot = new HeldSlot(await limit.acquire());
  let finishParse!: () => void;
  const parse = slot.during(() => new Promise<void>((resolve) => { finishParse = resolve; }));
  slot.close(); // the client left while its body was being parsed
  t.same(limit.load.active, 1, 'the slot is still held while the parse runs');
  finishParse();
  await parse;
  t.same(limit.load.active, 0, 'the slot is given back when the parse ends');

  const idle = new HeldSlot(await limit.acquire());
  await idle.during(async () => {});
  t.same(limit.load.active, 1, 'finished work alone does not give the slot back');
  idle.close();
  t.same(limit.load.active, 0, 'the close of an idle response does');
});

/** Sends the head of a POST and part of its body, then nothing: a sender that stalls. */
function stalledUpload(port: number, declaredBytes: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.write(`POST /api/v1/markdown HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declaredBytes}\r\n\r\n{"Text":"`);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

t.test('slow senders lose their slots; small documents never wait for them', async (t) => {
  // One thread: two large bodies at a time.
  const { baseUrl } = await startTestServices(t, { dbType: 'sqlite3', listen: true, env: { POOL_MAX_THREADS: '1' } });
  const port = Number(new URL(baseUrl).port);
  const render = (text: string) => fetch(`${baseUrl}api/v1/markdown`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Text: text }) });
  // 100 KB declared: the server cuts each after 5 s of grace plus 100 KB at 64 KiB/s, about 6.6 s.
  const stalled = await Promise.all([stalledUpload(port, 100_000), stalledUpload(port, 100_000)]);
  const started = Date.now();

  const small = await render('*small*');
  t.equal(small.status, 200);
  t.equal(await small.text(), '<p><em>small</em></p>\n', 'a small document renders while both slots are held');

  const large = render(`${'word '.repeat(20_000)}*end*`);
  await Promise.all(stalled.map(closed));
  const cut = Date.now() - started;
  t.ok(cut >= 5_000 && cut < 20_000, `the stalled senders were disconnected after ${cut} ms`);
  const answer = await large;
  t.equal(answer.status, 200, 'the large document waiting behind them was rendered');
  t.ok((await answer.text()).endsWith('<em>end</em></p>\n'));
});

t.test('a client that leaves while waiting gives up its place', async (t) => {
  const { app, baseUrl } = await startTestServices(t, { dbType: 'sqlite3', listen: true, env: { POOL_MAX_THREADS: '1' } });
  const port = Number(new URL(baseUrl).port);
  const holders = await Promise.all([stalledUpload(port, 100_000), stalledUpload(port, 100_000)]);
  const waiters = await Promise.all([stalledUpload(port, 100_000), stalledUpload(port, 100_000)]);
  await new Promise((r) => setTimeout(r, 200));
  for (const waiter of waiters) waiter.destroy();
  for (const holder of holders) holder.destroy();
  await new Promise((r) => setTimeout(r, 200));
  // Both slots are free again: two large documents render at once, neither waits for a deadline.
  const started = Date.now();
  const answers = await Promise.all([1, 2].map(() => app.inject({ method: 'POST', url: '/api/v1/markdown', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ Text: 'x '.repeat(50_000) }) })));
  t.same(answers.map((a) => a.statusCode), [200, 200]);
  t.ok(Date.now() - started < 4_000, `rendered in ${Date.now() - started} ms`);
});

t.test('a body whose client left while it waited is read, but neither scanned nor rendered', async (t) => {
  const { baseUrl, pool } = await startTestServices(t, { dbType: 'sqlite3', listen: true, env: { POOL_MAX_THREADS: '1' } });
  const port = Number(new URL(baseUrl).port);
  const holders = await Promise.all([stalledUpload(port, 100_000), stalledUpload(port, 100_000)]);
  const completedBefore = pool.stats().completed;
  // The whole request, then the client closes its side: the server sees that only after the body.
  const body = JSON.stringify({ Text: 'y '.repeat(800_000) });
  const gone = createConnection({ host: '127.0.0.1', port }, () => {
    gone.end(`POST /api/v1/markdown HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  gone.on('error', () => {});
  await new Promise((r) => setTimeout(r, 300));
  for (const holder of holders) holder.destroy();
  await closed(gone);
  await new Promise((r) => setTimeout(r, 500));
  const ran = pool.stats().completed - completedBefore;
  t.ok(ran <= 1, `${ran} pool tasks ran for it: at most its JSON parse, which may start before the close is seen`);
});

t.test('bodies without a declared length: chunked ones are admitted as large and render', async (t) => {
  const { baseUrl } = await startTestServices(t, { dbType: 'sqlite3', listen: true, env: { POOL_MAX_THREADS: '1' } });
  const json = Buffer.from(JSON.stringify({ Text: `${'chunk '.repeat(30_000)}*last*` }));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < json.length; i += 16_384) controller.enqueue(json.subarray(i, i + 16_384));
      controller.close();
    },
  });
  const answer = await fetch(`${baseUrl}api/v1/markdown`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
  t.equal(answer.status, 200);
  t.ok((await answer.text()).endsWith('<em>last</em></p>\n'));
});

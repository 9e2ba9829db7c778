// Delivery that survives its receivers: a receiver that is down and comes back gets every event in
// order; timeouts, 5xx and 429 are retried with the same delivery id, other 4xx are not; a hook
// gives up after its retry window; a slow receiver holds up neither the API nor other hooks; a
// refused address is never tried.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { Receiver } from './receiver.js';

let w: PullWorld;
const lookedUp: string[] = [];
/** The worker's resolver in this world: `*.test` names answered here, as a DNS server would. */
async function resolveTestNames(host: string) {
  lookedUp.push(host);
  return [{ address: host === 'rebound.test' ? '10.20.30.40' : '127.0.0.1', family: 4 }];
}
const down = new Receiver();
const healthy = new Receiver();

t.before(async () => {
  await Promise.all([down.start(), healthy.start()]);
  w = await pullWorld(t, { webhookResolve: resolveTestNames, env: {
    WEBHOOK_ALLOWED_HOST_LIST: 'loopback', WEBHOOK_DELIVER_TIMEOUT: '1',
    WEBHOOK_RETRY_MIN_BACKOFF_MS: '100', WEBHOOK_RETRY_MAX_BACKOFF_MS: '400', WEBHOOK_RETRY_WINDOW: '60',
  } });
});
t.teardown(() => Promise.all([down.stop(), healthy.stop()]));

interface Delivery { id: number; uuid: string; status: string; attempts: number; error: string | null; response: { status: number } | null; redelivery: boolean }

async function makeHook(url: string, events = ['issue_comment']): Promise<number> {
  const res = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/hooks', as: 'alice', body: { type: 'gitea', active: true, config: { url, content_type: 'json' }, events } });
  t.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

async function setActive(id: number, active: boolean): Promise<void> {
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/hooks/${id}`, as: 'alice', body: { active } })).statusCode, 200);
}

async function deliveries(id: number): Promise<Delivery[]> {
  return (await w.api({ url: `/api/v1/repos/alice/widget/hooks/${id}/deliveries?limit=50`, as: 'alice' })).json();
}

/** Polls the hook's deliveries until `done` says so (bounded). */
async function until(id: number, done: (ds: Delivery[]) => boolean, timeoutMs = 20_000): Promise<Delivery[]> {
  const deadline = Date.now() + timeoutMs;
  let last = await deliveries(id);
  while (!done(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await deliveries(id);
  }
  return last;
}

let issueIndex = 0;
async function comment(body: string): Promise<void> {
  if (!issueIndex) issueIndex = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/issues', as: 'alice', body: { title: 'talk' } })).json().number;
  const res = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/issues/${issueIndex}/comments`, as: 'alice', body: { body } });
  t.equal(res.statusCode, 201, res.body);
}

t.test('a receiver that is down and comes back gets every event, in order, each with its one delivery id', async (t) => {
  const url = down.url;
  await down.stop();
  const hook = await makeHook(url);
  for (const n of [1, 2, 3, 4, 5]) await comment(`outage ${n}`);
  const retrying = await until(hook, (ds) => ds.length === 5 && ds.some((d) => d.attempts >= 2));
  t.ok(retrying.some((d) => d.attempts >= 2 && d.status === 'pending' && /Delivery: connect ECONNREFUSED/.test(d.error ?? '')), 'the first delivery is being retried');
  t.ok(retrying.filter((d) => d.attempts === 0).length >= 4, 'later deliveries wait their turn (one hook, in order)');
  await down.start();
  const done = await until(hook, (ds) => ds.length === 5 && ds.every((d) => d.status === 'delivered'));
  t.ok(done.every((d) => d.status === 'delivered'), 'all delivered once the receiver is back');
  const got = await down.waitFor(5);
  t.same(got.map((r) => JSON.parse(r.body).comment.body), ['outage 1', 'outage 2', 'outage 3', 'outage 4', 'outage 5'], 'every event, in the order it happened');
  t.same(got.map((r) => r.headers['X-Gitea-Delivery']).sort(), done.map((d) => d.uuid).sort(), 'the ids the deliveries list shows');
  await setActive(hook, false);
});

t.test('deliveries waiting behind a failing one show no attempt they did not get', async (t) => {
  const hook = await makeHook(healthy.url);
  let released = false;
  // Each attempt of the first delivery is in flight for 400 ms, then refused, until released.
  healthy.answer = () => (released ? { status: 200, body: 'ok' } : { status: 503, delayMs: 400, body: 'busy' });
  for (const n of [1, 2, 3]) await comment(`queued ${n}`);
  await until(hook, (ds) => ds.length === 3);
  // Several retries of the first delivery, read every 50 ms: those behind it were never sent.
  let countedAhead = 0;
  let head: Delivery | undefined;
  const watchUntil = Date.now() + 2_500;
  while (Date.now() < watchUntil || ((head?.attempts ?? 0) < 2 && Date.now() < watchUntil + 10_000)) {
    const ds = (await deliveries(hook)).sort((a, b) => a.id - b.id);
    head = ds[0];
    countedAhead = Math.max(countedAhead, ...ds.slice(1).map((d) => d.attempts));
    await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(head!.attempts >= 2, `the first delivery was retried (${head!.attempts} attempts)`);
  t.equal(countedAhead, 0, 'the deliveries behind it showed no attempt meanwhile');
  released = true;
  const done = await until(hook, (ds) => ds.length === 3 && ds.every((d) => d.status === 'delivered'));
  t.same(done.sort((a, b) => a.id - b.id).slice(1).map((d) => d.attempts), [1, 1], 'each of them was sent once');
  healthy.answer = () => ({ status: 200, body: 'ok' });
  await setActive(hook, false);
});

t.test('5xx and 429 are retried with the same delivery id; another 4xx fails at once', async (t) => {
  const hook = await makeHook(healthy.url);
  const statuses = [503, 429, 200];
  const before = healthy.received.length;
  healthy.answer = () => ({ status: statuses.shift() ?? 200, body: 'later' });
  await comment('flaky');
  const [d] = await until(hook, (ds) => ds[0]?.status === 'delivered');
  t.match(d, { status: 'delivered', attempts: 3, response: { status: 200 } });
  const sent = healthy.received.slice(before);
  t.equal(sent.length, 3, 'three attempts');
  t.equal(new Set(sent.map((r) => r.headers['X-Gitea-Delivery'])).size, 1, 'one delivery id across retries');

  healthy.answer = () => ({ status: 404, body: 'no such hook' });
  await comment('gone');
  const [refused] = await until(hook, (ds) => ds[0]?.status === 'failed');
  t.match(refused, { status: 'failed', attempts: 1, response: { status: 404 } });
  t.equal((refused as unknown as { response: { body: string } }).response.body, 'no such hook', 'the answer is kept');
  healthy.answer = () => ({ status: 200, body: 'ok' });
  await setActive(hook, false);
});

t.test('a timeout is retried; the retry window closes on a receiver that never answers', async (t) => {
  const hook = await makeHook(healthy.url);
  let slow = 1;
  healthy.answer = () => (slow-- > 0 ? { status: 200, delayMs: 1500 } : { status: 200, body: 'fast' });
  await comment('slow');
  const [d] = await until(hook, (ds) => ds[0]?.status === 'delivered');
  t.match(d, { status: 'delivered', attempts: 2 });
  healthy.answer = () => ({ status: 200, body: 'ok' });
  await setActive(hook, false);

  // A delivery older than the retry window is given up at its next failure.
  const closed = await makeHook('http://127.0.0.1:1/never');
  await comment('into the void');
  await until(closed, (ds) => ds[0]?.attempts >= 1);
  await w.db('webhook_deliveries').where({ hook_id: closed }).update({ created_ms: Date.now() - 120_000 });
  const [given] = await until(closed, (ds) => ds[0]?.status === 'failed');
  t.match(given, { status: 'failed' });
  t.match(given!.error, /given up after \d+ attempts/);
  await setActive(closed, false);
});

t.test('a slow receiver slows neither the request that caused the event nor other hooks', async (t) => {
  const slowReceiver = new Receiver();
  await slowReceiver.start();
  t.teardown(() => slowReceiver.stop());
  slowReceiver.answer = () => ({ status: 200, delayMs: 900 });
  const slowHook = await makeHook(slowReceiver.url);
  const fastHook = await makeHook(healthy.url);
  const before = healthy.received.length;
  const started = Date.now();
  for (const n of [1, 2, 3, 4]) await comment(`burst ${n}`);
  const requestMs = Date.now() - started;
  t.ok(requestMs < 3000, `four comments answered in ${requestMs} ms while each delivery to the slow hook takes 900 ms`);
  const fast = await healthy.waitFor(before + 4, () => true, 10_000);
  const fastDoneMs = Math.max(...fast.slice(before).map((r) => r.at)) - started;
  t.ok(fastDoneMs < 3000, `the other hook had all four after ${fastDoneMs} ms`);
  t.ok(slowReceiver.received.length < 4, `the slow hook was still at ${slowReceiver.received.length} of 4 then`);
  await slowReceiver.waitFor(4);
  await setActive(slowHook, false);
  await setActive(fastHook, false);
});

t.test('an address the allow list refuses is not tried, and not retried', async (t) => {
  const hook = await makeHook('http://10.255.255.1:9/hook');
  await comment('private');
  const [d] = await until(hook, (ds) => ds[0]?.status === 'failed');
  t.match(d, { status: 'failed', attempts: 1, response: null });
  t.match(d!.error, /webhook can only call allowed HTTP servers \(check your WEBHOOK_ALLOWED_HOST_LIST setting\), deny '10\.255\.255\.1/);
  await setActive(hook, false);
});

t.test("a name is checked on the address it resolves to, in the worker's deliveries", async (t) => {
  const before = healthy.received.length;
  const refused = await makeHook(`http://rebound.test:${healthy.port}/hook`);
  const allowed = await makeHook(`http://loopback.test:${healthy.port}/hook`);
  await comment('by name');
  const [r] = await until(refused, (ds) => ds[0]?.status === 'failed');
  t.match(r!.error, /deny 'rebound\.test\(10\.20\.30\.40\)'/, 'refused on the address the name resolved to');
  const [a] = await until(allowed, (ds) => ds[0]?.status === 'delivered');
  t.equal(a!.status, 'delivered', 'a name that resolves to an allowed address is delivered to');
  t.equal(healthy.received.length, before + 1, 'only the allowed one reached the receiver');
  t.equal(healthy.received.at(-1)!.headers.Host, `loopback.test:${healthy.port}`);
  t.ok(lookedUp.includes('rebound.test') && lookedUp.includes('loopback.test'), "the worker asked this world's resolver");
  await setActive(refused, false);
  await setActive(allowed, false);
});

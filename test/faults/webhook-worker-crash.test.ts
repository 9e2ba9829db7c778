// The worker is killed in the middle of a delivery (the request sent, its answer not yet recorded)
// and a new worker takes over: the receiver gets that delivery again with the same delivery id,
// and events recorded while no worker ran arrive too. At least once, nothing lost.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { Receiver } from '../hooks/receiver.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

const HOOK_ENV = { WEBHOOK_ALLOWED_HOST_LIST: 'loopback', WEBHOOK_RETRY_MIN_BACKOFF_MS: '100', WEBHOOK_RETRY_MAX_BACKOFF_MS: '500' };
let w: PullWorld;
let faultsDir: string;
let worker: WorkerProcess | null = null;
const receiver = new Receiver();

t.before(async () => {
  await receiver.start();
  w = await pullWorld(t, { worker: false, env: HOOK_ENV });
  faultsDir = mkdtempSync(join(tmpdir(), 'pullhost-faults-'));
});
t.teardown(async () => {
  await worker?.stop();
  await receiver.stop();
  rmSync(faultsDir, { recursive: true, force: true });
});

// After the request went out and before its answer was recorded: the interesting crash (a crash
// before sending is the same, less the first copy). One point keeps the file short.
for (const point of ['webhook:after-send']) {
  t.test(`worker killed at ${point}: the delivery is made (again) with its id, and nothing is lost`, async (t) => {
    await worker?.stop();
    receiver.received.length = 0;
    const hook = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/hooks', as: 'alice', body: {
      type: 'gitea', active: true, config: { url: receiver.url, content_type: 'json' }, events: ['issues'],
    } });
    t.equal(hook.statusCode, 201, hook.body);
    worker = startWorkerProcess(w.config, { ...HOOK_ENV, PULLHOST_FAULTS: point, PULLHOST_FAULTS_DIR: faultsDir });
    const first = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/issues', as: 'alice', body: { title: `first ${point}` } });
    t.equal(first.statusCode, 201, 'the request answers whatever happens to delivery');
    t.equal(await worker.exited, 137, 'the worker died at the fault point');
    // Recorded while no worker runs: delivered once one does.
    t.equal((await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/issues', as: 'alice', body: { title: `second ${point}` } })).statusCode, 201);
    worker = startWorkerProcess(w.config, HOOK_ENV);
    const titles = (rs: typeof receiver.received) => rs.map((r) => JSON.parse(r.body).issue.title as string);
    const got = await receiver.waitFor(1, (r) => JSON.parse(r.body).issue.title === `second ${point}`, 60_000);
    t.equal(got.length, 1, 'the event recorded while no worker ran arrived');
    const firsts = receiver.received.filter((r) => JSON.parse(r.body).issue.title === `first ${point}`);
    if (point === 'webhook:after-send') t.equal(firsts.length, 2, 'the first delivery arrived before the crash and again after it');
    else t.equal(firsts.length, 1, 'the first delivery arrived once, after the crash');
    t.equal(new Set(firsts.map((r) => r.headers['X-Gitea-Delivery'])).size, 1, 'with one delivery id');
    t.same(titles(receiver.received).filter((x, i, all) => all.indexOf(x) === i), [`first ${point}`, `second ${point}`], 'in the order they happened');
    const deliveries = (await w.api({ url: `/api/v1/repos/alice/widget/hooks/${hook.json().id}/deliveries`, as: 'alice' })).json();
    t.equal(deliveries.length, 2);
    t.ok(deliveries.every((d: { status: string }) => d.status === 'delivered'), 'both recorded delivered');
    t.equal(deliveries.find((d: { uuid: string }) => d.uuid === firsts[0]!.headers['X-Gitea-Delivery']).attempts, 2, 'the crashed attempt is counted');
    t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/hooks/${hook.json().id}`, as: 'alice', body: { active: false } })).statusCode, 200);
  });
}

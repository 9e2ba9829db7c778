// Webhooks on the embedded SQLite default: the outbox, dispatch, a retried delivery, the deliveries
// list and a redelivery, as on MariaDB.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { Receiver, signatureOf } from './receiver.js';
import { waitFor } from '../merge/world.js';

let w: PullWorld;
const receiver = new Receiver();

t.before(async () => {
  await receiver.start();
  w = await pullWorld(t, { dbType: 'sqlite3', env: { WEBHOOK_ALLOWED_HOST_LIST: 'loopback', WEBHOOK_RETRY_MIN_BACKOFF_MS: '100' } });
});
t.teardown(() => receiver.stop());

t.test('events are recorded, dispatched, retried and listed on SQLite', async (t) => {
  const hook = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/hooks', as: 'alice', body: {
    type: 'gitea', active: true, config: { url: receiver.url, content_type: 'form', secret: 'lite' }, events: ['push', 'issues', 'issue_comment'],
  } });
  t.equal(hook.statusCode, 201, hook.body);
  let first = true;
  receiver.answer = () => (first ? ((first = false), { status: 502 }) : { status: 200, body: 'ok' });
  const issue = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/issues', as: 'alice', body: { title: 'lite' } });
  t.equal(issue.statusCode, 201);
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/issues/${issue.json().number}/comments`, as: 'bob', body: { body: 'hi' } })).statusCode, 201);
  await w.pushBranch('lite', { 'lite.txt': 'x\n' });
  const got = await receiver.waitFor(4);
  const kinds = got.map((r) => r.headers['X-Gitea-Event-Type']);
  t.same(kinds, ['issues', 'issues', 'issue_comment', 'push'], 'the first issues delivery twice (502, then 200), then the rest in order');
  t.equal(got[0]!.headers['X-Gitea-Delivery'], got[1]!.headers['X-Gitea-Delivery'], 'the retry has the same delivery id');
  const payload = new URLSearchParams(got[2]!.body).get('payload')!;
  t.equal(got[2]!.headers['X-Gitea-Signature'], signatureOf(payload, 'lite'), 'a form delivery is signed over its JSON payload');
  t.match(JSON.parse(payload), { action: 'created', comment: { body: 'hi' } });

  // A batch's outcomes are written once all of it is sent (workers/webhook-deliver.ts): the
  // receiver can see the last request before the list shows the first one delivered.
  const deliveries = async () => (await w.api({ url: `/api/v1/repos/alice/widget/hooks/${hook.json().id}/deliveries`, as: 'alice' })).json();
  let list: Awaited<ReturnType<typeof deliveries>> = [];
  await waitFor(async () => !(list = await deliveries()).some((d: { status: string }) => d.status !== 'delivered'), 5_000, 50);
  t.equal(list.length, 3, 'three deliveries, one of them made twice');
  t.match(list[list.length - 1], { event: 'issues', status: 'delivered', attempts: 2, response: { status: 200 } });
  const again = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/hooks/${hook.json().id}/deliveries/${list[0].id}/redeliver`, as: 'alice' });
  t.equal(again.statusCode, 202, again.body);
  const [re] = (await receiver.waitFor(5)).slice(4);
  t.equal(re!.headers['X-Gitea-Delivery'], again.json().uuid);
});

// The merge queue's events at a real receiver: joining is pull_request `enqueued` and merge_group
// `checks_requested` for the speculative commit; landing is `dequeued` (merged) and `destroyed`
// (merged); an ejection is `dequeued` with the reason its timeline comment gives.
import t, { type Test } from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { openPull, refOf, waitFor } from '../merge/world.js';
import { enableQueue, join, queueComments, simulateCi } from '../merge-queue/world.js';
import { payloadOf, Receiver, signatureOf, type Received } from './receiver.js';
import { checkWithGiteaStructs } from './gitea-structs.js';
import { queueBranchIndex } from '../../workflows/queue-messages.js';

const SECRET = 'queue-hook-secret';
let w: PullWorld;
const receiver = new Receiver();

t.before(async () => {
  await receiver.start();
  w = await pullWorld(t, { env: { WEBHOOK_ALLOWED_HOST_LIST: 'loopback' } });
  const made = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/hooks', as: 'alice', body: {
    type: 'gitea', active: true, config: { url: receiver.url, content_type: 'json', secret: SECRET }, events: ['pull_request', 'merge_group', 'push'],
  } });
  t.equal(made.statusCode, 201, made.body);
  t.ok((made.json().events as string[]).includes('merge_group'), 'merge_group can be chosen');
  t.equal((await enableQueue(w, { depth: 1 })).statusCode, 201);
});
t.teardown(() => receiver.stop());

type Delivery = { r: Received; p: Record<string, any> };

/** Waits for the delivery of `type`/`action` about pull request `index` (merge_group: its queue branch). */
async function delivery(t: Test, type: string, action: string, index: number): Promise<Delivery> {
  const about = (r: Received) => {
    const p = payloadOf(r) as Record<string, any>;
    if (r.headers['X-Gitea-Event-Type'] !== type || p.action !== action) return false;
    return type === 'merge_group' ? queueBranchIndex(p.merge_group.head_ref) === index : p.number === index;
  };
  const [r] = await receiver.waitFor(1, about, 60_000);
  t.ok(r, `${type}/${action} of #${index} arrived`);
  t.equal(r!.headers['X-Gitea-Event'], type);
  t.equal(r!.headers['X-GitHub-Event'], type);
  t.equal(r!.headers['X-Gitea-Signature'], signatureOf(r!.body, SECRET), 'signed with the secret');
  return { r: r!, p: payloadOf(r!) as Record<string, any> };
}

t.test('join → enqueued + checks_requested; land → dequeued (merged) + destroyed (merged)', async (t) => {
  const base = refOf(w, 'refs/heads/main')!;
  const index = await openPull(w, 'q1', { 'q1.txt': 'one\n' });
  t.equal((await join(w, index)).statusCode, 201);
  const enqueued = await delivery(t, 'pull_request', 'enqueued', index);
  t.match(enqueued.p, { number: index, pull_request: { number: index, base: { ref: 'main' } }, sender: { login: 'alice' }, repository: { full_name: 'alice/widget' } });
  t.notOk('reason' in enqueued.p, 'only dequeued says why');
  const requested = await delivery(t, 'merge_group', 'checks_requested', index);
  const group = requested.p.merge_group;
  t.match(group.head_ref, new RegExp(`^refs/heads/merge-queue/main/pr-${index}-[0-9a-f]{8}$`));
  t.equal(group.head_sha, refOf(w, group.head_ref), 'the commit pushed to the queue branch');
  t.same({ base_ref: group.base_ref, base_sha: group.base_sha }, { base_ref: 'refs/heads/main', base_sha: base });
  t.match(group.head_commit, { id: group.head_sha, tree_id: /^[0-9a-f]{40}$/, author: { name: String, email: String }, committer: { name: String, email: String } });
  t.match(requested.p, { sender: { login: 'alice' }, repository: { full_name: 'alice/widget' } });
  t.notOk('reason' in requested.p);

  const ci = simulateCi(w, { delayMs: 100 });
  t.teardown(() => ci.stop());
  const dequeued = await delivery(t, 'pull_request', 'dequeued', index);
  t.match(dequeued.p, { reason: 'merged', number: index, sender: { login: 'alice' } });
  const destroyed = await delivery(t, 'merge_group', 'destroyed', index);
  t.match(destroyed.p, { reason: 'merged', merge_group: { head_sha: group.head_sha, head_ref: group.head_ref, base_ref: 'refs/heads/main' } });
  t.equal(refOf(w, 'refs/heads/main'), group.head_sha, 'the group landed as the base');
  await ci.stop();
});

t.test("a queue branch's push event names who queued the entry as its pusher", async (t) => {
  const index = await openPull(w, 'q-dave', { 'q-dave.txt': 'dave\n' });
  t.equal((await join(w, index, 'dave')).statusCode, 201, 'dave, a writer, queues it');
  const isQueueBranch = (r: Received) => {
    const p = payloadOf(r) as Record<string, any>;
    return r.headers['X-Gitea-Event-Type'] === 'push' && queueBranchIndex(String(p.ref)) === index;
  };
  const [push] = await receiver.waitFor(1, isQueueBranch, 60_000);
  t.ok(push, 'the queue branch was announced as a push');
  t.match(payloadOf(push!), { ref: new RegExp(`^refs/heads/merge-queue/main/pr-${index}-`), pusher: { login: 'dave' }, sender: { login: 'dave' } });
  const ci = simulateCi(w, { delayMs: 100 });
  t.teardown(() => ci.stop());
  await delivery(t, 'pull_request', 'dequeued', index);
  await ci.stop();
});

t.test('an ejection → dequeued with the reason of its timeline comment, destroyed (dequeued)', async (t) => {
  const index = await openPull(w, 'q2', { 'q2.txt': 'two\n' });
  const ci = simulateCi(w, { delayMs: 100, fails: (_commit, branch) => queueBranchIndex(branch) === index });
  t.teardown(() => ci.stop());
  t.equal((await join(w, index)).statusCode, 201);
  await delivery(t, 'pull_request', 'enqueued', index);
  const requested = await delivery(t, 'merge_group', 'checks_requested', index);
  const dequeued = await delivery(t, 'pull_request', 'dequeued', index);
  t.match(dequeued.p.reason, /^the speculative commit [0-9a-f]{10} failed: required check ci is failure: tests failed$/);
  t.ok(await waitFor(async () => (await queueComments(w, index)).some((c) => c === `removed from the merge queue: ${dequeued.p.reason}`)), 'the same reason as its comment');
  t.match(dequeued.p, { sender: { login: 'alice' }, pull_request: { merged: false } });
  const destroyed = await delivery(t, 'merge_group', 'destroyed', index);
  t.match(destroyed.p, { reason: 'dequeued', merge_group: { head_sha: requested.p.merge_group.head_sha } });
  await ci.stop();
});

t.test("Gitea's own structs decode the pull_request payloads (reason aside); merge_group is left out", async (t) => {
  const { status, output } = await checkWithGiteaStructs(receiver.received);
  t.equal(status, 0, output);
  const gitea = receiver.received.filter((r) => r.headers['X-Gitea-Event-Type'] !== 'merge_group').length;
  t.match(output, new RegExp(`checked ${gitea} payloads`), 'merge_group is left out on purpose');
});

// The merge queue end to end on the real parts: settings in the branch protection API, joining and
// leaving, plain merges refused, speculative builds on queue branches checked by a simulated CI,
// landing in queue order with a green required check on every commit of the base.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf, waitFor } from '../merge/world.js';
import { queueViewQuery } from '../../workflows/queue-messages.js';
import { acceptedJoins, ciState, enableQueue, firstParents, join, queueBranches, simulateCi } from './world.js';

const pullJson = async (w: Awaited<ReturnType<typeof pullWorld>>, index: number) => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice' })).json();

t.test('settings, 21 joins at once, refusals, queue view; 20 land in queue order with green checks on every base commit', async (t) => {
  const w = await pullWorld(t);
  const rule = await enableQueue(w, { depth: 4 });
  t.equal(rule.statusCode, 201, rule.body);
  t.match(rule.json(), { enable_merge_queue: true, merge_queue_depth: 4, merge_queue_max_batch: 1, merge_queue_merge_style: 'merge', merge_queue_check_timeout_seconds: 600 });
  const bad = await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget/branch_protections/main', as: 'alice', body: { merge_queue_merge_style: 'fast-forward-only' } });
  t.equal(bad.statusCode, 422, 'an unusable landing style is refused');
  const noSquash = await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { allow_squash_merge: false } });
  t.equal(noSquash.statusCode, 200, noSquash.body);
  const forbidden = await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget/branch_protections/main', as: 'alice', body: { merge_queue_merge_style: 'squash' } });
  t.equal(forbidden.statusCode, 422, 'a style the repository forbids is refused');
  t.match(forbidden.json().message, /merge_queue_merge_style: squash is not allowed/);
  t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { allow_squash_merge: true } })).statusCode, 200);
  t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget/branch_protections/main', as: 'alice', body: { merge_queue_depth: 0 } })).statusCode, 422, 'depth 0 is refused');

  const start = refOf(w, 'refs/heads/main')!;
  const pulls: number[] = [];
  for (let i = 1; i <= 21; i++) pulls.push(await openPull(w, `q${i}`, { [`q${i}.txt`]: `${i}\n` }));

  const plain = await merge(w, pulls[0]!, { do: 'merge' });
  t.equal(plain.statusCode, 405, 'a plain merge is refused');
  t.match(plain.json().message, /merge queue/, 'naming the queue');

  // All at once: the queue's order is the order the workflow accepted the joins in.
  const joins = await Promise.all(pulls.map((p) => join(w, p)));
  t.same(joins.map((r) => r.statusCode), pulls.map(() => 201), 'every pull request joins');
  t.equal((await join(w, pulls[0]!)).statusCode, 409, 'joining twice is refused');
  const queueView = async () => (await w.api({ url: '/api/v1/repos/alice/widget/merge_queue/main', as: 'alice' })).json();
  // Positions are published by the queue's next round.
  t.ok(await waitFor(async () => (await queueView()).entries.every((e: { position: number }, i: number) => e.position === i + 1), 60_000), 'positions are published');
  const view = await queueView();
  t.equal(view.enabled, true);
  t.same([...view.entries.map((e: { number: number }) => e.number)].sort((a, b) => a - b), pulls, 'the queue view lists every entry');
  t.same(view.entries.map((e: { position: number }) => e.position), pulls.map((_, i) => i + 1), 'with its position');
  // The queue's order is the workflow's; the view shows it once the next round has published.
  const workflowOrder = async () => (await w.pullWorkflows!.client.workflow.getHandle(w.pullWorkflows!.queueWorkflowId({ repoId: 1, branch: 'main' })).query(queueViewQuery)).entries.map((e) => e.index);
  const order = await workflowOrder();
  t.same(order, await acceptedJoins(w), 'the queue is in the order its join updates were accepted, not the order admissions finished');
  t.ok(await waitFor(async () => JSON.stringify((await queueView()).entries.map((e: { number: number }) => e.number)) === JSON.stringify(await workflowOrder()), 30_000), 'the view shows the workflow\'s order');
  pulls.splice(0, pulls.length, ...order);
  t.equal(view.entries[0].queued_by.login, 'alice');
  t.ok((await pullJson(w, pulls[2]!)).merge_queue, 'the pull request JSON says it is queued');

  // The last one leaves before CI runs.
  const leaving = pulls.pop()!;
  t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${leaving}/merge`, as: 'carol' })).statusCode, 403, 'a stranger cannot take it out');
  t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${leaving}/merge`, as: 'alice' })).statusCode, 204, 'leaving answers 204');

  const ci = simulateCi(w, { delayMs: 300 });
  t.teardown(() => ci.stop());
  const allMerged = async () => (await Promise.all(pulls.map((p) => pullJson(w, p)))).every((p) => p.merged);
  if (!t.ok(await waitFor(allMerged, Number(process.env.QUEUE_WAIT_MS ?? 240_000), 250), 'every entry lands')) {
    t.comment(JSON.stringify((await w.api({ url: '/api/v1/repos/alice/widget/merge_queue/main', as: 'alice' })).json()));
    t.comment(JSON.stringify([...queueBranches(w)]), JSON.stringify([...ci.verdicts]));
  }
  await ci.stop();

  const landed = firstParents(w, start);
  t.equal(landed.length, pulls.length, 'one commit per entry on the base');
  for (const [i, sha] of landed.entries()) {
    t.equal(await ciState(w, sha), 'success', `base commit ${i + 1} has a green required check on its own tree`);
    t.equal((await pullJson(w, pulls[i]!)).merge_commit_sha, sha, `#${pulls[i]} landed in queue order`);
  }
  t.notOk((await pullJson(w, pulls[0]!)).merge_queue, 'a landed pull request is no longer queued');
  t.notOk((await pullJson(w, leaving)).merged, 'the one that left did not land');
  const comments = await w.db('comments').whereIn('type', ['merge_queue_join', 'merge_queue_leave']).select('type', 'content');
  t.equal(comments.filter((c) => c.type === 'merge_queue_join').length, 21, 'each join is on the timeline');
  t.match(comments.find((c) => c.type === 'merge_queue_leave')?.content, /taken out on request/);
  t.ok(await waitFor(async () => (await w.api({ url: '/api/v1/repos/alice/widget/merge_queue/main', as: 'alice' })).json().entries.length === 0), 'the queue is empty');
});

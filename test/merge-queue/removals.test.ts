// The other ways an entry leaves the queue, each with its timeline comment: a close, a retarget, a
// merge forced past the queue by an administrator, a conflict with the entries ahead, required checks
// that never finish; and a base moved outside the queue, which rebuilds every speculative commit.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf, waitFor } from '../merge/world.js';
import { ciState, contains, enableQueue, firstParents, join, queueComments, simulateCi } from './world.js';

const pullJson = async (w: PullWorld, index: number) => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice' })).json();
const queueView = async (w: PullWorld) => (await w.api({ url: '/api/v1/repos/alice/widget/merge_queue/main', as: 'alice' })).json() as {
  entries: Array<{ number: number; state: string; speculative_commit: string | null }>;
};
const lastComment = async (w: PullWorld, index: number) => (await queueComments(w, index)).pop() ?? '';
const leftWith = (w: PullWorld, index: number, why: RegExp, timeoutMs = 30_000) => waitFor(async () => why.test(await lastComment(w, index)), timeoutMs, 200);

t.test('a close, a retarget and a merge forced by an administrator each take their entry out, with a comment', async (t) => {
  const w = await pullWorld(t);
  t.equal((await enableQueue(w, { depth: 3 })).statusCode, 201);
  await w.pushBranch('dev', {}, { from: 'main' });
  const [closing, retargeting, forced] = [await openPull(w, 'c1', { 'c1.txt': '1\n' }), await openPull(w, 'c2', { 'c2.txt': '2\n' }), await openPull(w, 'c3', { 'c3.txt': '3\n' })];
  for (const p of [closing, retargeting, forced]) t.equal((await join(w, p)).statusCode, 201);

  const closed = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${closing}`, as: 'alice', body: { state: 'closed' } });
  t.equal(closed.statusCode, 201, closed.statusCode === 201 ? 'closed' : closed.body);
  const retargeted = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${retargeting}`, as: 'alice', body: { base: 'dev' } });
  t.equal(retargeted.statusCode, 201, retargeted.statusCode === 201 ? 'retargeted to dev' : retargeted.body);
  t.equal((await merge(w, forced, { do: 'merge', force_merge: true }, 'dave')).statusCode, 405, 'a writer may not force it past the queue');
  const forcedMerge = await merge(w, forced, { do: 'merge', force_merge: true });
  t.equal(forcedMerge.statusCode, 200, `an administrator may force it${forcedMerge.body ? `: ${forcedMerge.body}` : ''}`);

  t.ok(await leftWith(w, closing, /the pull request was closed/), 'the closed one leaves, saying why');
  t.ok(await leftWith(w, retargeting, /now targets dev/), 'the retargeted one leaves, saying why');
  t.ok(await leftWith(w, forced, /merged outside the queue/), 'the forced one leaves, saying why');
  t.ok(await waitFor(async () => (await queueView(w)).entries.length === 0, 15_000), 'the queue is empty');
  for (const p of [closing, retargeting, forced]) t.notOk((await pullJson(w, p)).merge_queue, `#${p} is no longer queued`);
  t.equal(firstParents(w, refOf(w, 'refs/heads/dev')!).length, 1, 'main has the forced merge only');
  t.ok(contains(w, refOf(w, `refs/pull/${forced}/head`)!, refOf(w, 'refs/heads/main')!), 'and it is the forced pull request');
});

t.test('a conflict with the entries ahead ejects an entry; a base moved outside the queue rebuilds the rest', async (t) => {
  const w = await pullWorld(t);
  t.equal((await enableQueue(w, { depth: 3 })).statusCode, 201);
  const start = refOf(w, 'refs/heads/main')!;
  const first = await openPull(w, 'x1', { 'same.txt': 'one\n' });
  const conflicting = await openPull(w, 'x2', { 'same.txt': 'two\n' });
  const third = await openPull(w, 'x3', { 'x3.txt': '3\n' });
  for (const p of [first, conflicting, third]) t.equal((await join(w, p)).statusCode, 201);

  t.ok(await leftWith(w, conflicting, /conflicts with the entries ahead of it in same\.txt/), 'the conflicting entry leaves, naming the file');
  const built = async () => {
    const entries = (await queueView(w)).entries;
    return entries.length === 2 && entries.every((e) => e.state === 'pending' && e.speculative_commit) ? entries.map((e) => e.speculative_commit!) : null;
  };
  t.ok(await waitFor(async () => (await built()) !== null, 30_000), 'the other two are built');
  const before = (await built())!;

  const outside = await w.pushBranch('main', { 'outside.txt': 'pushed past the queue\n' });
  const rebuilt = async () => {
    const now = await built();
    return now !== null && now.every((c, i) => c !== before[i] && contains(w, outside, c));
  };
  t.ok(await waitFor(rebuilt, 30_000), 'both speculative commits are rebuilt on the moved base');

  const ci = simulateCi(w, { delayMs: 100 });
  t.teardown(() => ci.stop());
  t.ok(await waitFor(async () => (await pullJson(w, first)).merged && (await pullJson(w, third)).merged, 120_000, 250), 'both land');
  await ci.stop();
  const landed = firstParents(w, start);
  t.same(landed.slice(0, 1), [outside], 'the push comes first on the base');
  t.equal(landed.length, 3, 'then one commit per entry');
  for (const sha of landed.slice(1)) t.equal(await ciState(w, sha), 'success', 'each landed commit was checked green on its own tree');
  t.notOk((await pullJson(w, conflicting)).merged, 'the conflicting one did not land');
});

t.test('required checks that never finish eject the entry when the check timeout passes', async (t) => {
  const w = await pullWorld(t);
  t.equal((await enableQueue(w, { depth: 1, checkTimeoutSeconds: 2 })).statusCode, 201);
  const p = await openPull(w, 't1', { 't1.txt': '1\n' });
  const joinedAt = Date.now();
  t.equal((await join(w, p)).statusCode, 201);
  t.ok(await leftWith(w, p, /required checks did not finish within 2 s/, 30_000), 'it leaves, saying the checks timed out');
  t.ok(Date.now() - joinedAt >= 2_000, 'not before the timeout');
  t.notOk((await pullJson(w, p)).merged, 'it did not land');
  t.equal((await queueView(w)).entries.length, 0, 'the queue is empty');
});

// Entries leaving the queue: a failing entry in the middle is ejected with its comment and the rest
// land; a push to a queued head removes the entry; a failing batch is bisected to its culprit.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { openPull, refOf, waitFor } from '../merge/world.js';
import { ciState, contains, enableQueue, firstParents, join, queueComments, queueHistoryStates, simulateCi } from './world.js';
import { queueBranchIndex } from '../../workflows/queue-messages.js';

const pullJson = async (w: PullWorld, index: number) => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice' })).json();
const merged = async (w: PullWorld, indexes: number[]) => (await Promise.all(indexes.map((p) => pullJson(w, p)))).every((p) => p.merged);
const queueLength = async (w: PullWorld) => (await w.api({ url: '/api/v1/repos/alice/widget/merge_queue/main', as: 'alice' })).json().entries.length as number;

t.test('a failing entry in the middle is ejected with its comment; the others land on green commits', async (t) => {
  const w = await pullWorld(t);
  t.equal((await enableQueue(w, { depth: 2 })).statusCode, 201);
  const start = refOf(w, 'refs/heads/main')!;
  const pulls: number[] = [];
  for (let i = 1; i <= 4; i++) pulls.push(await openPull(w, `m${i}`, { [`m${i}.txt`]: `${i}\n` }));
  const bad = pulls[1]!;
  for (const p of pulls) t.equal((await join(w, p)).statusCode, 201);
  const ci = simulateCi(w, { delayMs: 200, fails: (_commit, branch) => queueBranchIndex(branch) === bad });
  t.teardown(() => ci.stop());
  const rest = pulls.filter((p) => p !== bad);
  t.ok(await waitFor(() => merged(w, rest), 180_000, 250), 'the others land');
  t.ok(await waitFor(async () => (await queueLength(w)) === 0), 'the queue empties');
  await ci.stop();
  t.notOk((await pullJson(w, bad)).merged, 'the failing one did not land');
  const comments = await queueComments(w, bad);
  t.match(comments[comments.length - 1], /removed from the merge queue: the speculative commit [0-9a-f]{10} failed: required check ci is failure: tests failed/, 'its comment says why');
  const landed = firstParents(w, start);
  t.equal(landed.length, rest.length);
  for (const sha of landed) t.equal(await ciState(w, sha), 'success', 'every base commit is green');
  t.notOk(contains(w, refOf(w, `refs/pull/${bad}/head`)!, refOf(w, 'refs/heads/main')!), 'the base does not contain the ejected change');
  // What operators and the API saw on the way: the failing entry published as failed, with its red check, before it left.
  const { published, memo } = await queueHistoryStates(w);
  t.ok(published.some((e) => e.index === bad && e.state === 'failed' && JSON.stringify(e.checks).includes('"failure"')), 'the failing entry was shown failed with its red check');
  t.notOk(published.some((e) => e.index !== bad && e.state === 'failed'), 'no other entry was shown failed');
  for (const state of ['building', 'pending', 'landing', 'failed']) t.ok(memo.some((line) => line.includes(` ${state}`)), `the memo showed an entry ${state}`);
});

t.test('a push to a queued head removes the entry with a comment', async (t) => {
  const w = await pullWorld(t);
  t.equal((await enableQueue(w, { depth: 2 })).statusCode, 201);
  const first = await openPull(w, 'h1', { 'h1.txt': '1\n' });
  const second = await openPull(w, 'h2', { 'h2.txt': '2\n' });
  for (const p of [first, second]) t.equal((await join(w, p)).statusCode, 201);
  const moved = await w.pushBranch('h2', { 'h2b.txt': 'more\n' });
  t.ok(await waitFor(async () => refOf(w, `refs/pull/${second}/head`) === moved), 'the head moved');
  t.ok(await waitFor(async () => (await queueComments(w, second)).some((c) => /new commits were pushed to the head branch/.test(c)), 15_000), 'the entry is removed, with its comment');
  t.notOk((await pullJson(w, second)).merge_queue, 'it is no longer queued');
  const ci = simulateCi(w, { delayMs: 100 });
  t.teardown(() => ci.stop());
  t.ok(await waitFor(() => merged(w, [first]), 120_000, 250), 'the other entry lands');
  await ci.stop();
  t.notOk((await pullJson(w, second)).merged, 'the pushed one did not land');
});

t.test('a failing batch is bisected: the culprit is ejected and the rest land', async (t) => {
  const w = await pullWorld(t);
  t.equal((await enableQueue(w, { depth: 1, maxBatch: 4, batchWaitSeconds: 3 })).statusCode, 201);
  const pulls: number[] = [];
  for (let i = 1; i <= 4; i++) pulls.push(await openPull(w, `b${i}`, { [`b${i}.txt`]: `${i}\n` }));
  const culprit = pulls[2]!;
  const culpritHead = refOf(w, `refs/pull/${culprit}/head`)!;
  for (const p of pulls) t.equal((await join(w, p)).statusCode, 201);
  // Red whenever the culprit's change is in the commit checked.
  const ci = simulateCi(w, { delayMs: 200, fails: (commit) => contains(w, culpritHead, commit) });
  t.teardown(() => ci.stop());
  const rest = pulls.filter((p) => p !== culprit);
  t.ok(await waitFor(() => merged(w, rest), 180_000, 250), 'the others land');
  t.ok(await waitFor(async () => (await queueLength(w)) === 0), 'the queue empties');
  await ci.stop();
  t.notOk((await pullJson(w, culprit)).merged, 'the culprit did not land');
  t.match((await queueComments(w, culprit)).pop(), /failed/, 'the culprit is told why');
  const tip = refOf(w, 'refs/heads/main')!;
  t.equal(await ciState(w, tip), 'success', 'the base tip is a green checked commit');
  t.notOk(contains(w, culpritHead, tip), 'the base does not contain the culprit');
  const redChecked = [...ci.verdicts].filter(([, v]) => v === 'failure').map(([c]) => c);
  t.ok(redChecked.length >= 2, 'the whole batch, then the culprit alone, were found red');
});

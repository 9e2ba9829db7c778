// The shared landing path (core/pulls/landing): a chain built in one pass, the base moved once by
// compare-and-swap, each pull request then marked merged through its own workflow by a merge
// update named by its journalled operation id — exactly once, as the merge queue uses it.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { baseLog, openPull, refOf, waitFor, widgetRepoId } from './world.js';
import { repoDiskPath } from '../../core/repositories.js';
import { gitIdentity } from '../../core/pulls/git-identity.js';
import {
  announceWhenQuiet, buildChain, flushQuietAnnouncements, landChain, landTogether, noteBranchMoved, QUIET_MS, QUIET_TIMING, type ChainEntry,
} from '../../core/pulls/landing/index.js';
import { withKeyedLock } from '../../core/keyed-lock.js';
import { EmptyMergeError, MergeConflictError, gitTimestamp } from '../../git/index.js';
import { mergeUpdate, type MergeRequest } from '../../workflows/pull-messages.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function entryOf(w: PullWorld, index: number, style: ChainEntry['style'] = 'merge'): Promise<ChainEntry> {
  const pull = await w.db('pull_requests').where({ index }).first('id');
  const who = gitIdentity(w.users.alice, gitTimestamp());
  return { pullId: Number(pull.id), head: refOf(w, `refs/pull/${index}/head`)!, style, message: `land #${index}`, author: who, committer: who };
}

const request = (w: PullWorld): MergeRequest => ({
  doerId: w.users.alice.id, style: 'merge', title: '', message: '', mergeCommitId: '', headCommitId: '', mergeWhenChecksSucceed: false, forceMerge: false, deleteBranchAfterMerge: false,
});

t.test('a chain lands with one compare-and-swap and each pull request is marked merged by its own workflow, once', async (t) => {
  const w = await pullWorld(t);
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const a = await openPull(w, 'land-a', { 'a.txt': 'a\n' });
  const b = await openPull(w, 'land-b', { 'b.txt': 'b\n' });
  const clash = await openPull(w, 'land-clash', { 'a.txt': 'other\n' });
  const c = await openPull(w, 'land-c', { 'c.txt': 'c\n' }, { title: 'squashed' });
  const base = refOf(w, 'refs/heads/main')!;
  const entries = [await entryOf(w, a), await entryOf(w, b), await entryOf(w, clash), await entryOf(w, c, 'squash')];

  const stopped = await buildChain(path, base, entries, { stopAtFirstRejection: true });
  t.equal(stopped.links.length, 2, 'a queue stops at the first conflict');
  t.equal(stopped.rejected.length, 1);
  t.ok(stopped.rejected[0]!.error instanceof MergeConflictError, 'the conflict is reported');
  t.equal(stopped.rejected[0]!.base, stopped.tip, 'on the tip it met');

  const chain = await buildChain(path, base, entries);
  t.same(chain.links.map((l) => l.entry.head), [entries[0]!.head, entries[1]!.head, entries[3]!.head], 'the conflicting entry is left out');
  t.equal(chain.links[1]!.base, chain.links[0]!.commit, 'each link is built on the one before');
  t.equal(refOf(w, 'refs/heads/main'), base, 'building moves nothing');

  const operationIds = new Map(chain.links.map((l) => [l.entry.pullId, `queue-test/${l.entry.pullId}`]));
  t.ok(await landChain(w.db, { repoPath: path, branch: 'main', chain, operationIds }), 'landed');
  t.equal(refOf(w, 'refs/heads/main'), chain.tip, 'the base is at the tip');
  t.ok(await landChain(w.db, { repoPath: path, branch: 'main', chain, operationIds }), 'landing again (a retry) finds it landed');
  const journalled = await w.db('pull_requests').whereIn('id', [...operationIds.keys()]).select('id', 'merge_operation_id', 'pending_merge_commit', 'has_merged');
  t.ok(journalled.every((r) => r.merge_operation_id === operationIds.get(Number(r.id)) && !r.has_merged), 'journalled, not yet marked merged');

  // Marked merged through each pull request's own workflow: the merge finds its journal.
  const repoId = (await w.db('repositories').where({ lower_name: 'widget', owner_id: w.users.alice.id }).first('id')).id as number;
  for (const link of chain.links) {
    const index = (await w.db('pull_requests').where({ id: link.entry.pullId }).first('index')).index as number;
    const id = operationIds.get(link.entry.pullId)!;
    for (let i = 0; i < 2; i++) {
      const outcome = await w.pullWorkflows!.execute({ repoId, index }, mergeUpdate, [request(w)], id);
      t.equal(outcome.status, 200, `#${index} marked merged${i ? ' (asked twice: the same answer)' : ''}`);
    }
    const row = await w.db('pull_requests').where({ id: link.entry.pullId }).first('has_merged', 'merge_commit_sha');
    t.ok(row.has_merged, `#${index} is merged`);
    t.equal(row.merge_commit_sha, link.commit, `#${index} names its own commit in the chain`);
  }
  t.equal(refOf(w, 'refs/heads/main'), chain.tip, 'marking merged moved nothing');
  const comments = await w.db('comments').where({ type: 'merge_pull' }).count({ n: '*' });
  t.equal(Number(comments[0]!.n), 3, 'one merge event per pull request');
  t.equal(baseLog(w, 'refs/heads/main', 1)[0]!.subject, `land #${c}`, 'the squash is the tip');

  // A chain built on a base that moved meanwhile does not land, and its journals are dropped.
  const late = await openPull(w, 'land-late', { 'late.txt': 'l\n' });
  const stale = await buildChain(path, base, [await entryOf(w, late)]);
  t.notOk(await landChain(w.db, { repoPath: path, branch: 'main', chain: stale, operationIds: new Map([[stale.links[0]!.entry.pullId, 'queue-test/late']]) }), 'the base had moved');
  t.equal(refOf(w, 'refs/heads/main'), chain.tip, 'nothing moved');
  t.equal((await w.db('pull_requests').where({ index: late }).first('pending_merge_commit')).pending_merge_commit, null, 'the journal is forgotten');
  const again = await buildChain(path, chain.tip, [await entryOf(w, a)]);
  t.ok(again.rejected[0]?.error instanceof EmptyMergeError, 'a head the base already contains is refused');
});

t.test("a branch's moves are announced once it is quiet, once for a burst, never while a landing is under way", async (t) => {
  const w = await pullWorld(t);
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const repoId = await widgetRepoId(w);
  const told: number[] = [];
  const announce = async () => { told.push(Date.now()); };
  const keepsFailing = () => t.fail('the announcement was given up');

  // Three moves 200 ms apart are told once, QUIET_MS after the last.
  let lastMove = 0;
  for (let i = 0; i < 3; i++) {
    lastMove = Date.now();
    announceWhenQuiet(repoId, 'main', announce, keepsFailing);
    await sleep(200);
  }
  t.equal(told.length, 0, 'nothing told while the branch moves');
  t.ok(await waitFor(async () => told.length > 0, 5000, 20), 'told once quiet');
  t.ok(told[0]! >= lastMove + QUIET_MS - 50, `QUIET_MS after the last move (${told[0]! - lastMove} ms)`);
  await sleep(QUIET_MS + 200);
  t.equal(told.length, 1, 'the burst is told once');

  // A landing queued in this process (here behind a held merge lock) holds the announcement back
  // however long it takes; its own move is then told once quiet.
  const a = await openPull(w, 'quiet-a', { 'a.txt': 'a\n' });
  let release!: () => void;
  const held = withKeyedLock(`merge/${repoId}/main`, () => new Promise<void>((resolve) => (release = resolve)));
  const landing = landTogether(w.db, { repoPath: path, repoId, branch: 'main' }, { entry: await entryOf(w, a), operationId: 'quiet-test/a' });
  announceWhenQuiet(repoId, 'main', announce, keepsFailing);
  await sleep(QUIET_MS * 2.5);
  t.equal(told.length, 1, 'not told while a landing is queued');
  release();
  await held;
  t.ok('landed' in (await landing), 'the landing landed');
  const landedAt = Date.now();
  t.ok(await waitFor(async () => told.length > 1, 5000, 20), 'told after it');
  t.ok(told[1]! >= landedAt + QUIET_MS - 100, `once the branch was quiet after the landing (${told[1]! - landedAt} ms)`);

  // A branch that never goes quiet is still told, atMostMs after the first move put off.
  const timing = { ...QUIET_TIMING, atMostMs: 600 };
  const busyFrom = Date.now();
  const mover = setInterval(() => noteBranchMoved(repoId, 'busy'), 100);
  let busyTold = 0;
  announceWhenQuiet(repoId, 'busy', async () => { busyTold = Date.now(); }, keepsFailing, timing);
  t.ok(await waitFor(async () => busyTold > 0, 5000, 20), 'a busy branch is told');
  clearInterval(mover);
  t.ok(busyTold - busyFrom >= 550 && busyTold - busyFrom < QUIET_MS, `at atMostMs (${busyTold - busyFrom} ms)`);
});

t.test('an announcement that fails is tried again, and given up after its attempts; a stopping worker tells what is put off', async (t) => {
  const timing = { atMostMs: 30_000, attempts: 3, retryMs: 20 };
  let calls = 0;
  let givenUp: unknown = null;
  announceWhenQuiet(900_001, 'main', async () => { calls++; throw new Error('workflow unreachable'); }, (err) => { givenUp = err; }, timing);
  t.ok(await waitFor(async () => givenUp !== null, 5000, 20), 'given up');
  t.equal(calls, 3, 'after its three attempts');
  t.match((givenUp as Error).message, /workflow unreachable/, 'with the last error');

  let attempts = 0;
  announceWhenQuiet(900_002, 'main', async () => { if (++attempts === 1) throw new Error('once'); }, () => t.fail('given up'), timing);
  t.ok(await waitFor(async () => attempts === 2, 5000, 20), 'a second attempt succeeds');

  // Put off for QUIET_MS, told at once by the flush, which waits for it.
  let flushed = false;
  announceWhenQuiet(900_003, 'main', async () => { await sleep(50); flushed = true; }, () => t.fail('given up'));
  const before = Date.now();
  await flushQuietAnnouncements();
  t.ok(flushed, 'the flush told it and waited');
  t.ok(Date.now() - before < QUIET_MS, 'without waiting for quiet');
});

// The shared landing path (core/pulls/landing): a chain built in one pass, the base moved once by
// compare-and-swap, each pull request then marked merged through its own workflow by a merge
// update named by its journalled operation id — exactly once, as the merge queue uses it.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { baseLog, openPull, refOf, waitFor, widgetRepoId } from './world.js';
import { repoDiskPath } from '../../core/repositories.js';
import { gitIdentity } from '../../core/pulls/git-identity.js';
import { announceWhenQuiet, buildChain, landChain, landTogether, noteBranchMoved, QUIET_MS, type ChainEntry } from '../../core/pulls/landing/index.js';
import { withKeyedLock } from '../../core/keyed-lock.js';
import { EmptyMergeError, MergeConflictError, gitTimestamp } from '../../git/index.js';
import { mergeUpdate, type MergeRequest } from '../../workflows/pull-messages.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hold = { hold: true };

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

  // Three moves 200 ms apart are told once, QUIET_MS after the last, by the first call, which held
  // it; the others returned at once, left to it.
  let lastMove = Date.now();
  const holder = announceWhenQuiet(repoId, 'main', announce, hold);
  for (let i = 0; i < 2; i++) {
    await sleep(200);
    lastMove = Date.now();
    await announceWhenQuiet(repoId, 'main', announce, hold);
    t.ok(Date.now() - lastMove < QUIET_MS / 2, 'a move meanwhile is left to the holder (it returned at once)');
  }
  t.equal(told.length, 0, 'nothing told while the branch moves');
  await holder;
  t.equal(told.length, 1, 'the holder told it');
  t.ok(told[0]! >= lastMove + QUIET_MS - 50, `QUIET_MS after the last move (${told[0]! - lastMove} ms)`);
  await sleep(QUIET_MS + 200);
  t.equal(told.length, 1, 'the burst is told once');

  // A landing queued in this process (here behind a held merge lock) holds the announcement back
  // however long it takes; its own move is then told once quiet.
  const a = await openPull(w, 'quiet-a', { 'a.txt': 'a\n' });
  let release!: () => void;
  const held = withKeyedLock(`merge/${repoId}/main`, () => new Promise<void>((resolve) => (release = resolve)));
  const landing = landTogether(w.db, { repoPath: path, repoId, branch: 'main' }, { entry: await entryOf(w, a), operationId: 'quiet-test/a' });
  const afterLanding = announceWhenQuiet(repoId, 'main', announce, hold);
  await sleep(QUIET_MS * 2.5);
  t.equal(told.length, 1, 'not told while a landing is queued');
  release();
  await held;
  t.ok('landed' in (await landing), 'the landing landed');
  const landedAt = Date.now();
  await afterLanding;
  t.equal(told.length, 2, 'told after it');
  t.ok(told[1]! >= landedAt + QUIET_MS - 100, `once the branch was quiet after the landing (${told[1]! - landedAt} ms)`);

  // A branch that never goes quiet is still told, atMostMs after the first move put off.
  const busyFrom = Date.now();
  const mover = setInterval(() => noteBranchMoved(repoId, 'busy'), 100);
  let busyTold = 0;
  await announceWhenQuiet(repoId, 'busy', async () => { busyTold = Date.now(); }, { hold: true, atMostMs: 600 });
  clearInterval(mover);
  t.ok(busyTold - busyFrom >= 550 && busyTold - busyFrom < 3000, `a busy branch is told at atMostMs (${busyTold - busyFrom} ms)`);
});

t.test('a failed announcement fails its holder, so that Temporal retries the activity; the retry holds and tells', async (t) => {
  let calls = 0;
  const flaky = async () => { if (++calls === 1) throw new Error('workflow unreachable'); };
  const first = announceWhenQuiet(900_001, 'main', flaky, hold);
  const leftToIt = announceWhenQuiet(900_001, 'main', flaky, hold);
  await t.resolves(leftToIt, 'a move meanwhile is left to the holder');
  await t.rejects(first, /workflow unreachable/, 'the holder fails with the announcement');
  await t.resolves(announceWhenQuiet(900_001, 'main', flaky, hold), 'the retry holds the branch again and tells');
  t.equal(calls, 2, 'two announcements in all');
});

t.test("a request's move is announced at once, unless an auto-merge's announcement of the branch is held", async (t) => {
  let told = 0;
  const started = Date.now();
  await announceWhenQuiet(900_005, 'main', async () => { told++; }, { hold: false });
  t.equal(told, 1, 'told');
  t.ok(Date.now() - started < QUIET_MS / 2, 'at once');

  const toldBy: string[] = [];
  const holding = announceWhenQuiet(900_006, 'main', async () => { toldBy.push('auto-merge'); }, hold);
  await announceWhenQuiet(900_006, 'main', async () => { toldBy.push('request'); }, { hold: false });
  t.same(toldBy, [], 'left to the held announcement');
  await holding;
  t.same(toldBy, ['request'], 'which told it once, with the newest caller\'s announcement');
});

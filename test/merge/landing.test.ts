// The shared landing path (core/pulls/landing): a chain built in one pass, the base moved once by
// compare-and-swap, each pull request then marked merged through its own workflow by a merge
// update named by its journalled operation id — exactly once, as the merge queue uses it.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { baseLog, openPull, refOf } from './world.js';
import { repoDiskPath } from '../../core/repositories.js';
import { gitIdentity } from '../../core/pulls/git-identity.js';
import { buildChain, landChain, landTogether, leftToNextLanding, type ChainEntry } from '../../core/pulls/landing/index.js';
import { EmptyMergeError, MergeConflictError, gitTimestamp } from '../../git/index.js';
import { mergeUpdate, type MergeRequest } from '../../workflows/pull-messages.js';

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

t.test("a landing's announcement is left to the landing queued behind it when that one moves the branch on", async (t) => {
  const w = await pullWorld(t);
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const repoId = (await w.db('repositories').where({ lower_name: 'widget', owner_id: w.users.alice.id }).first('id')).id as number;
  const target = { repoPath: path, repoId, branch: 'main' };
  const [a, b, c, clash] = [await openPull(w, 'left-a', { 'a.txt': 'a\n' }), await openPull(w, 'left-b', { 'b.txt': 'b\n' }),
    await openPull(w, 'left-c', { 'c.txt': 'c\n' }), await openPull(w, 'left-clash', { 'c.txt': 'other\n' })];
  const [entryA, entryB, entryC, entryClash] = [await entryOf(w, a), await entryOf(w, b), await entryOf(w, c), await entryOf(w, clash)];
  t.equal(await leftToNextLanding(repoId, 'main', refOf(w, 'refs/heads/main')!), false, 'nothing queued: told at once');

  // a lands alone; b, queued meanwhile, lands next and moves the branch on: a's move need not be told.
  const first = landTogether(w.db, target, { entry: entryA, operationId: 'left-test/a' });
  const second = landTogether(w.db, target, { entry: entryB, operationId: 'left-test/b' });
  const landedA = await first;
  if (!('landed' in landedA)) throw new Error('a did not land');
  t.ok(landedA.tip, 'a is the tip of its own chain');
  t.equal(await leftToNextLanding(repoId, 'main', landedA.landed.commit), true, 'left to the landing behind it');
  const landedB = await second;
  if (!('landed' in landedB)) throw new Error('b did not land');
  t.equal(refOf(w, 'refs/heads/main'), landedB.landed.commit, 'which moved the branch on');
  t.equal(await leftToNextLanding(repoId, 'main', landedB.landed.commit), false, 'the last landing is told');

  // c lands; the landing behind it is refused (a conflict) and moves nothing: c's move is told.
  const third = landTogether(w.db, target, { entry: entryC, operationId: 'left-test/c' });
  const refused = landTogether(w.db, target, { entry: entryClash, operationId: 'left-test/clash' });
  const landedC = await third;
  if (!('landed' in landedC)) throw new Error('c did not land');
  t.equal(await leftToNextLanding(repoId, 'main', landedC.landed.commit), false, 'the landing behind it moved nothing');
  t.ok('rejected' in (await refused), 'that landing was refused');
});

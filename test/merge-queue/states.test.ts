// The states the API shows of queued entries between the workflow's publications: a speculative
// build marks its entries building before git runs, and a landing marks its members landing with the
// commit they land at. (The workflow's own publications, failed included, are checked in ejection.)
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { openPull, refOf } from '../merge/world.js';
import { buildSpeculative } from '../../core/merge-queue/speculative.js';
import { landBatch } from '../../core/merge-queue/land.js';
import { publishEntries } from '../../core/merge-queue/entries.js';
import { enableQueue } from './world.js';

t.test('a build shows its entries building, a landing its members landing', async (t) => {
  const w = await pullWorld(t, { temporal: false });
  t.equal((await enableQueue(w, { depth: 2 })).statusCode, 201);
  const pulls = [await openPull(w, 's1', { 's1.txt': '1\n' }), await openPull(w, 's2', { 's2.txt': '2\n' })];
  const repoId = Number((await w.db('repositories').where({ lower_name: 'widget' }).first('id')).id);
  const key = { repoId, branch: 'main' };
  const now = Math.floor(Date.now() / 1000);
  for (const [i, index] of pulls.entries()) {
    const pull = await w.db('pull_requests').where({ base_repo_id: repoId, index }).first('id', 'head_commit_id');
    await w.db('merge_queue_entries').insert({
      repo_id: repoId, base_branch: 'main', pull_id: pull.id, pull_index: index, doer_id: w.users.alice.id, head_sha: pull.head_commit_id,
      position: i + 1, state: 'waiting', queued_unix: now, updated_unix: now,
    });
  }
  const states = async () => (await w.api({ url: '/api/v1/repos/alice/widget/merge_queue/main', as: 'alice' })).json().entries.map((e: { state: string }) => e.state);
  t.same(await states(), ['waiting', 'waiting']);

  const deps = { db: w.db, config: w.config };
  const base = refOf(w, 'refs/heads/main')!;
  const built = await buildSpeculative(deps, key, {
    base, style: 'merge', date: `@${now} +0000`,
    entries: pulls.map((index) => ({ index, headSha: refOf(w, `refs/pull/${index}/head`)!, doerId: w.users.alice.id })),
  });
  t.equal(built.length, 2);
  t.ok(built.every((b) => b.commit), 'both built');
  t.same(await states(), ['building', 'building'], 'building until the workflow publishes the round');

  const entries = built.map((b, i) => ({
    index: b.index, pullId: 0, doerId: w.users.alice.id, headSha: '', queuedAt: '', state: 'pending' as const, batch: i + 1,
    commit: b.commit!, builtOn: b.builtOn, mergeBase: b.mergeBase, branch: '', checksSince: 0, checks: [],
  }));
  await publishEntries(w.db, key, entries);
  t.same(await states(), ['pending', 'pending'], 'the published round shows its checks pending');

  const first = entries[0]!;
  const pullId = Number((await w.db('pull_requests').where({ base_repo_id: repoId, index: first.index }).first('id')).id);
  const landed = await landBatch(deps, key, base, [{ index: first.index, pullId, commit: first.commit, builtOn: first.builtOn, mergeBase: first.mergeBase }]);
  t.same(landed, { landed: true });
  t.same(await states(), ['landing', 'pending'], 'the landing member shows landing');
  t.equal(refOf(w, 'refs/heads/main'), first.commit, 'the base moved to exactly the built commit');
});

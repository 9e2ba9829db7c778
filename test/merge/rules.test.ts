// The merge endpoint's rules: refusals in Gitea's order, conflicts, head checks, branch deletion,
// branch protection and idempotent retries.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { baseLog, merge, openPull, refOf } from './world.js';

// One world for the file (each test uses its own branches): building it costs seconds.
let w: PullWorld;
t.before(async () => {
  w = await pullWorld(t);
});

t.test('refusals', async (t) => {
  const p = await openPull(w, 'feature-1', { 'one.txt': '1\n' });

  const noPermission = await merge(w, p, {}, 'carol');
  t.equal(noPermission.statusCode, 405, 'a reader of a public repository may not merge');
  t.equal(noPermission.json().message, 'User not allowed to merge PR');

  const wip = await openPull(w, 'feature-wip', { 'wip.txt': 'w\n' }, { title: 'WIP: not yet' });
  const refusedWip = await merge(w, wip, {});
  t.equal(refusedWip.statusCode, 405);
  t.equal(refusedWip.json().message, 'Work in progress PRs cannot be merged');

  const stale = await merge(w, p, { head_commit_id: 'a'.repeat(40) });
  t.equal(stale.statusCode, 409);
  t.equal(stale.json().message, 'head out of date');

  const closed = await openPull(w, 'feature-closed', { 'closed.txt': 'c\n' });
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${closed}`, as: 'alice', body: { state: 'closed' } })).statusCode, 201);
  t.equal((await merge(w, closed, {})).statusCode, 404, 'a closed pull request cannot be merged');

  t.equal((await merge(w, 9999, {})).statusCode, 404);
  t.equal((await merge(w, p, {}, null as unknown as string)).statusCode, 401, 'anonymous callers must sign in');

  const ok = await merge(w, p, { head_commit_id: refOf(w, `refs/pull/${p}/head`) });
  t.equal(ok.statusCode, 200, ok.body);
  const again = await merge(w, p, {});
  t.equal(again.statusCode, 405, 'already merged');
});

t.test('conflicts answer 409 naming the conflicted files', async (t) => {
  const a = await openPull(w, 'edit-a', { 'README.md': 'version A\n' });
  const b = await openPull(w, 'edit-b', { 'README.md': 'version B\n' });
  t.equal((await merge(w, a, {})).statusCode, 200);
  const conflict = await merge(w, b, {});
  t.equal(conflict.statusCode, 409);
  const body = conflict.json();
  t.same(body.ConflictedFiles, ['README.md']);
  t.equal(body.Style, 'merge');
  t.notOk('message' in body, 'the raw Go-struct shape, not {message,url}');
});

t.test('retries and concurrent requests merge exactly once', async (t) => {
  const p = await openPull(w, 'feature-race', { 'race.txt': 'r\n' });
  const before = refOf(w, 'refs/heads/main');
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => merge(w, p, {}, 'alice', { 'idempotency-key': `click-${i}` })));
  const statuses = answers.map((r) => r.statusCode);
  t.equal(statuses.filter((s) => s === 200).length, 1, 'exactly one merge');
  t.equal(statuses.filter((s) => s === 405).length, 49, `the rest are told it is already merged: ${JSON.stringify(answers.filter((r) => r.statusCode !== 200 && r.statusCode !== 405).map((r) => [r.statusCode, r.body]).slice(0, 3))}`);
  const added = baseLog(w, `${before}..refs/heads/main`, 100);
  t.equal(added.filter((c) => c.subject.startsWith('Merge pull request')).length, 1, 'one merge commit');
  t.equal(added.find((c) => c.subject.startsWith('Merge pull request'))!.parents[0], before, 'on top of the old base');

  const q = await openPull(w, 'feature-retry', { 'retry.txt': 'r\n' });
  const first = await merge(w, q, {}, 'alice', { 'idempotency-key': 'same-click' });
  const retried = await merge(w, q, {}, 'alice', { 'idempotency-key': 'same-click' });
  t.equal(first.statusCode, 200);
  t.equal(retried.statusCode, 200, 'a retried request gets the first answer back, not a 405');

  // Without an Idempotency-Key, a double click (the same request twice at once) is two requests,
  // each judged against the state it finds: one merges, the other is told it is already merged.
  const d = await openPull(w, 'feature-double-click', { 'double.txt': 'd\n' });
  const beforeDouble = refOf(w, 'refs/heads/main');
  const [one, two] = await Promise.all([merge(w, d, { do: 'merge' }), merge(w, d, { do: 'merge' })]);
  t.same([one.statusCode, two.statusCode].sort(), [200, 405], 'one click merges, the other is told it is already merged');
  t.equal(baseLog(w, `${beforeDouble}..refs/heads/main`, 50).filter((c) => c.subject.startsWith('Merge pull request')).length, 1, 'and there is one merge');
});

t.test('delete_branch_after_merge', async (t) => {
  const p = await openPull(w, 'feature-del', { 'del.txt': 'd\n' });
  const ok = await merge(w, p, { do: 'merge', delete_branch_after_merge: true });
  t.equal(ok.statusCode, 200, ok.body);
  t.equal(refOf(w, 'refs/heads/feature-del'), null, 'the head branch is gone');
  const comments = await w.db('comments').where({ type: 'delete_branch' });
  t.equal(comments.length, 1, 'and a comment records it');

  // Another open pull request uses the same head branch (into another base): the branch stays.
  const shared = await openPull(w, 'shared', { 's.txt': 's\n' });
  await w.pushBranch('other-base', {}, { from: 'main' });
  const second = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'shared', base: 'other-base', title: 'same head, other base' } });
  t.equal(second.statusCode, 201, second.body);
  const kept = await merge(w, shared, { do: 'merge', delete_branch_after_merge: true });
  t.equal(kept.statusCode, 200);
  t.ok(refOf(w, 'refs/heads/shared'), 'the branch another open pull request uses is not deleted');
});

t.test('archived repositories refuse merges', async (t) => {
  const archived = await openPull(w, 'feature-arch', { 'arch.txt': 'a\n' });
  await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { archived: true } });
  t.equal((await merge(w, archived, {})).statusCode, 423);
});

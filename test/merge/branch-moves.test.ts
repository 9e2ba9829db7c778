// Branches the workflow itself moves (a merge moves the base, an update the head, a deleted head
// branch retargets the pull requests based on it) are announced to the other pull requests, as a
// push would be: their `mergeable` and stored checks follow.
import t from 'tap';
import { pullWorld, settledMergeable, type PullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf, waitFor } from './world.js';

async function pullRow(w: PullWorld, index: number) {
  return w.db('pull_requests').where({ index }).first();
}

/** The stored check is of exactly this base commit (the pull request's workflow checked it again). */
function checkedAgainst(w: PullWorld, index: number, ref: string): Promise<boolean> {
  // Generous: checks of a base that keeps moving are put off until it is quiet (core/pulls/landing/base-moved.ts).
  return waitFor(async () => (await pullRow(w, index))?.checked_base === refOf(w, ref), 45_000, 200);
}

t.test('a merge tells the pull requests into its base: a new conflict shows, a clean one is checked again', async (t) => {
  const w = await pullWorld(t);
  const first = await openPull(w, 'readme-a', { 'README.md': 'version a\n' });
  const second = await openPull(w, 'readme-b', { 'README.md': 'version b\n' });
  const apart = await openPull(w, 'apart', { 'apart.txt': 'apart\n' });
  t.equal(await settledMergeable(w, second, true), true, 'both edits of the README merge cleanly into main for now');
  t.equal(await settledMergeable(w, apart, true), true);

  const done = await merge(w, first, { do: 'merge' });
  t.equal(done.statusCode, 200, done.body);
  t.equal(await settledMergeable(w, second, false, 15_000), false, 'the other README edit now conflicts with main');
  t.same((await pullRow(w, second)).conflicted_files, JSON.stringify(['README.md']), 'and names the file');
  t.ok(await checkedAgainst(w, apart, 'refs/heads/main'), 'the unrelated one was checked against the new main');
  t.equal(await settledMergeable(w, apart, true), true, 'and is still mergeable');

  // Its stored check is of the current base and head: the merge commits the stored tree.
  const row = await pullRow(w, apart);
  t.match(row.checked_tree, /^[0-9a-f]{40}$/, 'a clean check keeps its tree');
  t.equal((await merge(w, apart, { do: 'merge' })).statusCode, 200);
  const mergedTree = refOf(w, 'refs/heads/main^{tree}');
  t.equal(mergedTree, row.checked_tree, 'the merge commit has the checked tree');
});

t.test('an update of a head tells the pull requests based on that branch', async (t) => {
  const w = await pullWorld(t);
  const lower = await openPull(w, 'stack-lower', { 'lower.txt': 'lower\n' });
  await w.pushBranch('stack-upper', { 'upper.txt': 'upper\n' }, { from: 'stack-lower' });
  const created = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'stack-upper', base: 'stack-lower', title: 'upper on lower' } });
  t.equal(created.statusCode, 201, created.body);
  const upper = created.json().number as number;
  t.ok(await checkedAgainst(w, upper, 'refs/heads/stack-lower'), 'checked against the lower branch');

  await w.pushBranch('main', { 'moved.txt': 'main moved\n' }, { from: 'main' });
  const updated = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${lower}/update`, as: 'alice' });
  t.equal(updated.statusCode, 200, updated.body);
  t.ok(await checkedAgainst(w, upper, 'refs/heads/stack-lower'), 'the upper pull request was checked against the updated lower branch');
  t.ok(await checkedAgainst(w, lower, 'refs/heads/main'), 'and the lower one against main');
});

t.test('deleting a merged head retargets the pull requests based on it, which are then checked against their new base', async (t) => {
  const w = await pullWorld(t);
  const lower = await openPull(w, 'del-lower', { 'dl.txt': 'lower\n' });
  await w.pushBranch('del-upper', { 'du.txt': 'upper\n' }, { from: 'del-lower' });
  const created = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'del-upper', base: 'del-lower', title: 'upper on lower' } });
  t.equal(created.statusCode, 201, created.body);
  const upper = created.json().number as number;
  t.equal(await settledMergeable(w, upper, true), true);

  const done = await merge(w, lower, { do: 'merge', delete_branch_after_merge: true });
  t.equal(done.statusCode, 200, done.body);
  t.equal(refOf(w, 'refs/heads/del-lower'), null, 'the merged head is gone');
  const after = await w.api({ url: `/api/v1/repos/alice/widget/pulls/${upper}`, as: 'alice' });
  t.equal(after.json().base.ref, 'main', 'the upper pull request now targets main');
  t.ok(await checkedAgainst(w, upper, 'refs/heads/main'), 'and was checked against main, not left checking');
  t.equal(await settledMergeable(w, upper, true), true, 'mergeable into main');
  const comments = await w.db('comments').where({ type: 'change_target_branch' });
  t.equal(comments.length, 1, 'the retarget left the comment a base change leaves');
  t.same(JSON.parse(comments[0].content), { old: 'del-lower', new: 'main' });
});

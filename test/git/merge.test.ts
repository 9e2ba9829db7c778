import t from 'tap';
import { join } from 'node:path';
import {
  checkMergeability, EmptyMergeError, fastForwardOnly, mergeCommitForStyle, MergeConflictError, mergeNoFastForward,
  mergeTree, NotFastForwardError, predictMergeCommit, rebase, rebaseMerge, squash, UnrelatedHistoriesError, updateBranchFromBase,
} from '../../git/merge.js';
import { readCommit } from '../../git/commits.js';
import { gitTimestamp, predictCommitName, treeOf } from '../../git/objects.js';
import { isAncestor, resolveRef, updateRef } from '../../git/refs.js';
import { gitCommandStats, gitOk } from '../../git/runner.js';
import { alice, bareRepo, bob, carol, commit, log, show, tempDir, type Teardown } from './helpers.js';

const merger = { name: 'Mona Merger', email: 'mona@example.com', date: '@1800000000 +0100' };

/** root ─ m1 (main: changes b)  and  root ─ f1 (bob: changes a) ─ f2 (carol: adds c) (feature). */
async function diverged(t: Teardown) {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'a1\na2\na3\n', b: 'b1\nb2\n' }, 'root', { ref: 'refs/heads/main' });
  const m1 = await commit(repo, root, { b: 'b1\nB2\n' }, 'main change', { ref: 'refs/heads/main' });
  const f1 = await commit(repo, root, { a: 'A1\na2\na3\n' }, 'feature one\n\nwith a body\n', { author: bob, committer: bob });
  const f2 = await commit(repo, f1, { c: 'c\n' }, 'feature two', { author: carol, committer: alice, ref: 'refs/heads/feature' });
  return { repo, root, m1, f1, f2 };
}

t.test('merge (--no-ff): two parents, merged tree, given identities; then CAS', async (t) => {
  const { repo, m1, f2 } = await diverged(t);
  const sha = await mergeNoFastForward(repo, m1, f2, "Merge pull request 'x' (#1) from feature into main\n\n\n  body  \n", { author: merger, committer: merger });
  const c = await readCommit(repo, sha);
  t.same(c.parents, [m1, f2]);
  t.equal(c.message, "Merge pull request 'x' (#1) from feature into main\n\n  body\n", 'message cleaned like git commit -m');
  t.equal(c.author.name, 'Mona Merger');
  t.equal(c.author.date, '2027-01-15T09:00:00+01:00');
  t.equal(await show(repo, sha, 'a'), 'A1\na2\na3\n');
  t.equal(await show(repo, sha, 'b'), 'b1\nB2\n');
  t.equal(await show(repo, sha, 'c'), 'c\n');
  t.equal(await resolveRef(repo, 'refs/heads/main'), m1, 'no ref moved');
  t.equal(await updateRef(repo, 'refs/heads/main', sha, m1), true);
  t.same(await log(repo, 'refs/heads/main', '%s'), ["Merge pull request 'x' (#1) from feature into main", 'main change', 'feature two', 'feature one', 'root']);

  // A base that moved between computing and writing is not overwritten.
  const { repo: r2, m1: base2, f2: head2 } = await diverged(t);
  const merge2 = await mergeNoFastForward(r2, base2, head2, 'm', { author: merger, committer: merger });
  const racer = await commit(r2, base2, { z: '1' }, 'pushed meanwhile', { ref: 'refs/heads/main' });
  t.equal(await updateRef(r2, 'refs/heads/main', merge2, base2), false);
  t.equal(await resolveRef(r2, 'refs/heads/main'), racer);
});

t.test('squash: one parent, the merged tree, author and committer as given', async (t) => {
  const { repo, m1, f2 } = await diverged(t);
  const sha = await squash(repo, m1, f2, 'Feature (#1)\n\nCo-authored-by: Bob Builder <bob@example.com>', bob, merger);
  const c = await readCommit(repo, sha);
  t.same(c.parents, [m1]);
  t.equal(c.author.email, 'bob@example.com');
  t.equal(c.committer.email, 'mona@example.com');
  t.equal(c.message, 'Feature (#1)\n\nCo-authored-by: Bob Builder <bob@example.com>\n');
  const merged = await mergeTree(repo, m1, f2);
  t.ok(merged.clean);
  t.equal(c.tree, merged.clean ? merged.tree : '');
  // A head whose changes are all in the base already squashes to nothing.
  const same = await commit(repo, m1, { a: 'A1\na2\na3\n', c: 'c\n' }, 'base got it all');
  await t.rejects(squash(repo, same, f2, 'x', bob, merger), EmptyMergeError);
  const allowed = await squash(repo, same, f2, 'x', bob, merger, { allowEmpty: true });
  t.equal((await readCommit(repo, allowed)).tree, await treeOf(repo, same));
});

t.test('the name of a merge or squash commit is predicted before git writes it, exactly', async (t) => {
  const { repo, m1, f2 } = await diverged(t);
  const check = await checkMergeability(repo, m1, f2);
  t.equal(check.status, 'mergeable');
  const known = { knownMergeBase: check.mergeBase!, knownTree: check.tree!, baseTree: await treeOf(repo, m1) };
  const now = gitTimestamp();
  t.match(now, /^@\d+ [+-]\d{4}$/);
  const unicode = { name: 'Zoë Ünïcödé 山田', email: 'zoe@例え.jp', date: now };
  const messages = ["Merge pull request 'x' (#1) from feature into main\n\n\n  body  \n", 'no newline', '  leading\r\nCRLF\r\n\r\n\r\ntrailing  ', 'emoji 🚀 and \t tab'];
  for (const style of ['merge', 'squash'] as const) {
    for (const message of messages) {
      const req = { base: m1, head: f2, message, author: style === 'squash' ? bob : unicode, committer: unicode, known };
      const predicted = predictMergeCommit(style, req);
      t.ok(predicted, `${style} is predicted for ${JSON.stringify(message)}`);
      t.equal(await mergeCommitForStyle(repo, style, req), predicted, `${style}: git wrote the predicted commit for ${JSON.stringify(message)}`);
    }
  }
  // Not predicted: what git would trim from an identity, identities without a date, styles or
  // merges whose commits are not known before git runs.
  const base = { base: m1, head: f2, message: 'm', author: merger, committer: merger, known };
  t.equal(predictMergeCommit('merge', { ...base, committer: { ...merger, name: 'Trailing Dot Jr.' } }), null);
  t.equal(predictMergeCommit('merge', { ...base, author: { ...merger, email: ' spaced@example.com' } }), null);
  t.equal(predictMergeCommit('merge', { ...base, author: { name: 'Undated', email: 'u@example.com' } }), null);
  t.equal(predictMergeCommit('rebase', base), null);
  t.equal(predictMergeCommit('merge', { ...base, known: { knownMergeBase: check.mergeBase! } }), null);
  t.equal(predictMergeCommit('squash', { ...base, known: { ...known, baseTree: known.knownTree } }), null, 'a squash of nothing is refused, not committed');
  t.equal(predictCommitName({ tree: known.knownTree, parents: [m1], message: 'x', author: merger, committer: merger }), await mergeCommitForStyle(repo, 'squash', { ...base, message: 'x' }));
});

t.test('fast-forward-only', async (t) => {
  const { repo, root, m1, f2 } = await diverged(t);
  t.equal(await fastForwardOnly(repo, root, f2), f2, 'base behind: the head itself');
  t.equal(await fastForwardOnly(repo, f2, f2), f2);
  await t.rejects(fastForwardOnly(repo, m1, f2), NotFastForwardError);
  await t.rejects(fastForwardOnly(repo, f2, root), EmptyMergeError, 'head already in base');
  const lonely = await commit(repo, null, { z: '1' }, 'unrelated');
  await t.rejects(fastForwardOnly(repo, m1, lonely), UnrelatedHistoriesError);
});

t.test('rebase: replays commits keeping authors and messages, committer given', async (t) => {
  const { repo, m1, f1, f2 } = await diverged(t);
  const tip = await rebase(repo, m1, f2, { committer: merger });
  const commits = await log(repo, `${m1}..${tip}`, '%an|%ae|%aI|%cn|%ce|%B');
  t.same(commits, [
    'Carol Committer|carol@example.com|2023-11-15T00:13:20+00:00|Mona Merger|mona@example.com|feature two',
    'Bob Builder|bob@example.com|2023-11-14T18:13:20-05:00|Mona Merger|mona@example.com|feature one',
    'with a body',
  ]);
  const top = await readCommit(repo, tip);
  const first = await readCommit(repo, top.parents[0]!);
  t.same(first.parents, [m1], 'linear on the base');
  t.equal(first.message, (await readCommit(repo, f1)).message, 'message kept byte for byte');
  t.equal(await show(repo, tip, 'b'), 'b1\nB2\n');
  t.equal(await show(repo, tip, 'a'), 'A1\na2\na3\n');
  t.ok(await isAncestor(repo, m1, tip), 'base can fast-forward');

  // Base already an ancestor of a linear head: nothing is rewritten, as git rebase says "up to date".
  const { repo: r2, root, f2: head2 } = await diverged(t);
  t.equal(await rebase(r2, root, head2, { committer: merger }), head2);
});

t.test('rebase agrees with git rebase (renames, skipped merges, cherry-picks, empty commits)', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { 'old.txt': 'l1\nl2\nl3\nl4\nl5\n', keep: 'k\n' }, 'root', { ref: 'refs/heads/main' });
  // main edits the file the feature renames, and cherry-picks one feature change.
  const m1 = await commit(repo, root, { 'old.txt': 'l1\nl2\nl3\nl4\nL5\n' }, 'main edits old.txt');
  const m2 = await commit(repo, m1, { shared: 'same change\n' }, 'main has shared', { ref: 'refs/heads/main' });
  const f1 = await commit(repo, root, { 'old.txt': null, 'new.txt': 'L1\nl2\nl3\nl4\nl5\n' }, 'rename and edit', { author: bob });
  const f2 = await commit(repo, f1, { shared: 'same change\n' }, 'feature has shared', { author: carol });
  const side = await commit(repo, root, { side: 's\n' }, 'side branch', { author: bob });
  const f3 = await commit(repo, [f2, side], {}, 'merge side into feature');
  const f4 = await commit(repo, f3, {}, 'an empty commit', { author: carol });
  const f5 = await commit(repo, f4, { extra: 'e\n' }, 'last', { author: bob, ref: 'refs/heads/feature' });

  const ours = await rebase(repo, m2, f5, { committer: merger });

  const work = join(await tempDir(t), 'work');
  await gitOk(['clone', '--quiet', repo, work], { cwd: repo });
  const env = { GIT_COMMITTER_NAME: merger.name, GIT_COMMITTER_EMAIL: merger.email };
  await gitOk(['checkout', '--quiet', '-b', 'feature', 'origin/feature'], { cwd: work });
  await gitOk(['rebase', '--quiet', 'origin/main'], { cwd: work, env });
  const fmt = '%T|%an|%ae|%ad|%s';
  const theirs = await log(work, `origin/main..HEAD`, fmt);
  t.same(await log(repo, `${m2}..${ours}`, fmt), theirs, 'same trees, authors and messages as git rebase');
  t.same(theirs.map((l) => l.split('|')[4]).sort(), ['an empty commit', 'last', 'rename and edit', 'side branch'],
    'git dropped the merge and the cherry-picked change, kept the empty commit');
  t.equal(await show(repo, ours, 'new.txt'), 'L1\nl2\nl3\nl4\nL5\n', 'the edit followed the rename');
});

t.test('rebase-merge: rebased commits plus a merge commit', async (t) => {
  const { repo, m1, f2 } = await diverged(t);
  const sha = await rebaseMerge(repo, m1, f2, 'Merge pull request (#1)', { author: merger, committer: merger });
  const c = await readCommit(repo, sha);
  t.equal(c.parents[0], m1);
  const rebasedTip = c.parents[1]!;
  t.not(rebasedTip, f2, 'the head was rewritten');
  t.equal(c.tree, await treeOf(repo, rebasedTip), 'merge of a descendant: its tree');
  t.same(await log(repo, `${m1}..${rebasedTip}`, '%an'), ['Carol Committer', 'Bob Builder']);
  t.equal(c.message, 'Merge pull request (#1)\n');
});

t.test('conflicts name the files (and the commit, for rebases)', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'x\n', b: 'y\n', same: 's\n' }, 'root');
  const base = await commit(repo, root, { a: 'base\n', b: 'base\n' }, 'base edits');
  const h1 = await commit(repo, root, { same: 'S\n' }, 'clean one');
  const h2 = await commit(repo, h1, { a: 'head\n', b: 'head\n' }, 'conflicting one');
  const ids = { author: merger, committer: merger };

  const m = await mergeNoFastForward(repo, base, h2, 'm', ids).catch((e: unknown) => e);
  t.ok(m instanceof MergeConflictError);
  t.equal((m as MergeConflictError).style, 'merge');
  t.same((m as MergeConflictError).conflictedFiles, ['a', 'b']);
  const s = await squash(repo, base, h2, 'm', merger, merger).catch((e: unknown) => e);
  t.equal((s as MergeConflictError).style, 'squash');
  const r = await rebase(repo, base, h2, ids).catch((e: unknown) => e);
  t.ok(r instanceof MergeConflictError);
  t.equal((r as MergeConflictError).style, 'rebase');
  t.equal((r as MergeConflictError).commitSha, h2, 'the commit that failed to apply');
  t.same((r as MergeConflictError).conflictedFiles, ['a', 'b']);
  const rm = await rebaseMerge(repo, base, h2, 'm', ids).catch((e: unknown) => e);
  t.equal((rm as MergeConflictError).style, 'rebase-merge');

  const lonely = await commit(repo, null, { z: '1' }, 'unrelated');
  await t.rejects(mergeNoFastForward(repo, base, lonely, 'm', ids), UnrelatedHistoriesError);
  await t.rejects(rebase(repo, base, lonely, ids), UnrelatedHistoriesError);
  await t.rejects(mergeNoFastForward(repo, h2, h1, 'm', ids), EmptyMergeError, 'head already merged');
  await t.rejects(mergeNoFastForward(repo, 'refs/heads/main', h1, 'm', ids), TypeError, 'full shas only');
});

t.test('mergeability: mergeable, conflict, empty, ancestor', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'x\n' }, 'root');
  const base = await commit(repo, root, { a: 'base\n' }, 'base');
  const clean = await commit(repo, root, { b: 'new\n' }, 'clean');
  const conflicting = await commit(repo, root, { a: 'head\n' }, 'conflict');
  const added = await commit(repo, root, { tmp: '1\n' }, 'add tmp');
  const netZero = await commit(repo, added, { tmp: null }, 'remove tmp');
  const lonely = await commit(repo, null, { z: '1' }, 'unrelated');

  const cleanCheck = await checkMergeability(repo, base, clean);
  t.same(cleanCheck, { status: 'mergeable', mergeBase: root, conflictedFiles: [], tree: (await mergeTree(repo, base, clean)).tree });
  t.same(await checkMergeability(repo, base, conflicting), { status: 'conflict', mergeBase: root, conflictedFiles: ['a'], tree: null });
  t.same(await checkMergeability(repo, base, netZero), { status: 'empty', mergeBase: root, conflictedFiles: [], tree: await treeOf(repo, base) });
  t.same(await checkMergeability(repo, base, root), { status: 'ancestor', mergeBase: root, conflictedFiles: [], tree: null });
  t.same(await checkMergeability(repo, base, base), { status: 'ancestor', mergeBase: base, conflictedFiles: [], tree: null });
  t.same(await checkMergeability(repo, base, lonely), { status: 'empty', mergeBase: null, conflictedFiles: [], tree: null });
  // The base tree the caller read decides "empty": a wrong one says so.
  t.equal((await checkMergeability(repo, base, netZero, { baseTree: cleanCheck.tree })).status, 'mergeable');
  t.equal((await checkMergeability(repo, base, netZero, { baseTree: await treeOf(repo, base) })).status, 'empty');
});

t.test('a merge that knows its tree commits it without merging again; a tree git no longer has is merged again', async (t) => {
  const { repo, root, m1, f2 } = await diverged(t);
  const check = await checkMergeability(repo, m1, f2);
  const ids = { author: merger, committer: merger };
  const before = gitCommandStats().get('merge-tree')?.count ?? 0;
  const known = await mergeNoFastForward(repo, m1, f2, 'm', ids, { knownMergeBase: root, knownTree: check.tree!, baseTree: await treeOf(repo, m1) });
  t.equal(gitCommandStats().get('merge-tree')?.count ?? 0, before, 'no merge-tree when the tree is known');
  t.equal(known, await mergeNoFastForward(repo, m1, f2, 'm', ids), 'the same commit as a merge from scratch');

  // A tree that is not in the object store (pruned since the check): commit-tree refuses it and the merge is computed.
  const missing = 'f'.repeat(40);
  t.equal(await mergeNoFastForward(repo, m1, f2, 'm', ids, { knownTree: missing }), known);
  t.equal(await squash(repo, m1, f2, 's', merger, merger, { knownTree: missing }), await squash(repo, m1, f2, 's', merger, merger));
  // An empty squash is still refused when the known tree is the base's own.
  const same = await commit(repo, m1, { a: 'A1\na2\na3\n', c: 'c\n' }, 'base got it all');
  const sameCheck = await checkMergeability(repo, same, f2);
  t.equal(sameCheck.status, 'empty');
  const error = await squash(repo, same, f2, 's', merger, merger, { knownMergeBase: sameCheck.mergeBase!, knownTree: sameCheck.tree!, baseTree: await treeOf(repo, same) }).catch((e: unknown) => e);
  t.ok(error instanceof EmptyMergeError && error.reason === 'nothing-to-commit', 'nothing to commit');
});

t.test('update the PR head from its base', async (t) => {
  const { repo, root, m1, f2 } = await diverged(t);
  const ids = { author: merger, committer: merger };
  const merged = await updateBranchFromBase(repo, { base: m1, head: f2, style: 'merge', message: "Merge branch 'main' into feature", ...ids });
  const c = await readCommit(repo, merged);
  t.same(c.parents, [f2, m1], 'the head first');
  t.equal(c.message, "Merge branch 'main' into feature\n");
  t.equal(await show(repo, merged, 'b'), 'b1\nB2\n');

  const rebased = await updateBranchFromBase(repo, { base: m1, head: f2, style: 'rebase', message: '', ...ids });
  t.same(await log(repo, `${m1}..${rebased}`, '%an|%cn'), ['Carol Committer|Mona Merger', 'Bob Builder|Mona Merger']);

  await t.rejects(updateBranchFromBase(repo, { base: root, head: f2, style: 'merge', message: 'm', ...ids }), EmptyMergeError, 'head already has the base');
  const behind = await updateBranchFromBase(repo, { base: m1, head: root, style: 'rebase', message: '', ...ids });
  t.equal(behind, m1, 'a head with nothing of its own fast-forwards to the base');

  const conflict = await commit(repo, root, { b: 'other\n' }, 'conflicting head');
  const e1 = await updateBranchFromBase(repo, { base: m1, head: conflict, style: 'merge', message: 'm', ...ids }).catch((e: unknown) => e);
  t.equal((e1 as MergeConflictError).style, 'update-merge');
  const e2 = await updateBranchFromBase(repo, { base: m1, head: conflict, style: 'rebase', message: 'm', ...ids }).catch((e: unknown) => e);
  t.equal((e2 as MergeConflictError).style, 'update-rebase');
  t.equal((e2 as MergeConflictError).commitSha, conflict);
});

t.test('mergeCommitForStyle dispatches', async (t) => {
  const { repo, root, m1, f2 } = await diverged(t);
  const req = { base: m1, head: f2, message: 'title', author: merger, committer: merger };
  t.equal((await readCommit(repo, await mergeCommitForStyle(repo, 'merge', req))).parents.length, 2);
  t.equal((await readCommit(repo, await mergeCommitForStyle(repo, 'squash', req))).parents.length, 1);
  t.equal(await mergeCommitForStyle(repo, 'fast-forward-only', { ...req, base: root }), f2);
  t.ok(await isAncestor(repo, m1, await mergeCommitForStyle(repo, 'rebase', req)));
  t.equal((await readCommit(repo, await mergeCommitForStyle(repo, 'rebase-merge', req))).parents.length, 2);
  await t.rejects(mergeCommitForStyle(repo, 'octopus' as never, req), TypeError);
});

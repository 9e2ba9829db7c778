// Commits written without git (commitTreeInStore, writeLooseObject) are byte for byte the objects
// `git commit-tree` writes, pass `git fsck --strict`, and fall back to git whenever their bytes or
// the store are not certain. The chain of an auto-merge burst writes its merge commits this way.
import t from 'tap';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { writeLooseObject } from '../../git/loose-objects.js';
import { mergeNoFastForward, mergeTree, squash } from '../../git/merge.js';
import { commitTree, commitTreeInStore, treeOf } from '../../git/objects.js';
import { gitCommandStats, gitOk } from '../../git/runner.js';
import { alice, bareRepo, bob, commit, tempDir } from './helpers.js';

const commitTreeRuns = () => gitCommandStats().get('commit-tree')?.count ?? 0;

t.test('a commit written in-process is the object commit-tree writes', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'a\n' }, 'root', { ref: 'refs/heads/main' });
  const side = await commit(repo, root, { b: 'b\n' }, 'side');
  const opts = { tree: await treeOf(repo, side), parents: [root, side], message: 'Merge  \n\n\nbody ü\n', author: alice, committer: bob };

  const before = commitTreeRuns();
  const name = await commitTreeInStore(repo, opts);
  t.equal(commitTreeRuns(), before, 'no git process');
  const file = join(repo, 'objects', name.slice(0, 2), name.slice(2));
  t.equal(statSync(file).mode & 0o777, 0o444, 'a read-only loose object, as git writes it');
  t.equal(await commitTree(repo, opts), name, 'git gives the same bytes the same name');
  t.equal(await gitOk(['cat-file', '-t', name], { cwd: repo }), 'commit\n');
  t.match(await gitOk(['cat-file', 'commit', name], { cwd: repo }), /^tree [0-9a-f]{40}\nparent [0-9a-f]{40}\nparent [0-9a-f]{40}\nauthor Alice Author <alice@example.com> 1700000000 \+0200\ncommitter Bob Builder <bob@example.com> 1700003600 -0500\n\nMerge\n\nbody ü\n$/);
  await gitOk(['update-ref', 'refs/heads/main', name, root], { cwd: repo });
  t.equal(await gitOk(['fsck', '--strict', '--no-dangling'], { cwd: repo }), '', 'git fsck finds nothing wrong');

  // Written again (a retried merge): the object is there, nothing changes.
  t.equal(await commitTreeInStore(repo, opts), name);
});

t.test('anything uncertain goes to git', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'a\n' }, 'root', { ref: 'refs/heads/main' });
  const tree = await treeOf(repo, root);

  let before = commitTreeRuns();
  const undated = await commitTreeInStore(repo, { tree, parents: [root], message: 'm', author: { name: 'A', email: 'a@example.com' }, committer: alice });
  t.equal(commitTreeRuns(), before + 1, 'an identity without a date: git writes it');
  t.match(undated, /^[0-9a-f]{40}$/);

  before = commitTreeRuns();
  await commitTreeInStore(repo, { tree, parents: [root], message: 'm', author: { ...alice, name: 'Trailing.' }, committer: alice });
  t.equal(commitTreeRuns(), before + 1, 'a name git would trim: git writes it');

  const sha256 = await tempDir(t);
  await gitOk(['init', '--bare', '--object-format=sha256', sha256], { cwd: sha256 });
  const emptyTree = (await gitOk(['hash-object', '-t', 'tree', '-w', '--stdin'], { cwd: sha256, input: '' })).trim();
  before = commitTreeRuns();
  const long = await commitTreeInStore(sha256, { tree: emptyTree, parents: [], message: 'm', author: alice, committer: alice });
  t.equal(commitTreeRuns(), before + 1, 'a SHA-256 repository: git writes it');
  t.match(long, /^[0-9a-f]{64}$/);

  t.equal(await writeLooseObject(join(repo, 'objects'), 'blob', Buffer.from('x')), null, 'no objects folder there: not a bare repository');
});

t.test('merges write their commit without git only when merge-tree has just written the tree', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'a\n' }, 'root', { ref: 'refs/heads/main' });
  const main = await commit(repo, root, { b: 'b\n' }, 'main', { ref: 'refs/heads/main' });
  const feature = await commit(repo, root, { c: 'c\n' }, 'feature');
  const ids = { author: alice, committer: alice };
  const merged = await mergeTree(repo, main, feature);

  let before = commitTreeRuns();
  const fresh = await mergeNoFastForward(repo, main, feature, 'm', ids, { knownMergeBase: root, knownTree: merged.tree, treeJustWritten: true });
  t.equal(commitTreeRuns(), before, 'a tree written in this pass: no commit-tree');
  before = commitTreeRuns();
  t.equal(await mergeNoFastForward(repo, main, feature, 'm', ids, { knownMergeBase: root, knownTree: merged.tree }), fresh, 'the same commit');
  t.equal(commitTreeRuns(), before + 1, 'a tree from an earlier check: commit-tree, which refuses a tree git no longer has');

  // A stored tree that is gone is still refused by git and the merge computed again, without git's commit-tree.
  before = commitTreeRuns();
  t.equal(await mergeNoFastForward(repo, main, feature, 'm', ids, { knownMergeBase: root, knownTree: 'f'.repeat(40) }), fresh);
  t.equal(commitTreeRuns(), before + 1, 'only the refused attempt ran commit-tree');
  t.equal(await squash(repo, main, feature, 's', alice, alice, { knownTree: 'f'.repeat(40) }), await squash(repo, main, feature, 's', alice, alice));
  await gitOk(['update-ref', 'refs/heads/main', fresh, main], { cwd: repo });
  t.equal(await gitOk(['fsck', '--strict', '--no-dangling'], { cwd: repo }), '');
});

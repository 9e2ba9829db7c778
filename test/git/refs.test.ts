import t from 'tap';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  branchNameOf, branchRef, commitExists, deleteRef, isAncestor, isValidBranchName, isValidRefName, isValidSha,
  listBranches, mergeBase, pullHeadRef, readAllRefs, resolveRef, resolveRefTips, updateRef, zeroSha,
} from '../../git/refs.js';
import { gitCommandStats, gitOk, runGit } from '../../git/runner.js';
import { readRefs, reflogRecords } from '../../git/ref-files.js';
import { treeOf } from '../../git/objects.js';
import { bareRepo, commit, tempDir } from './helpers.js';

const VALID = [
  'main', 'feature/x', 'a./b', 'a@b', '@a', 'x@', 'a{b}', '{', 'é', 'release-1.0', 'a/-b', 'refs/heads/x',
  'refs/heads/HEAD', 'UPPER_case.1', 'a'.repeat(255),
];
const INVALID = [
  '', 'HEAD', '@', '-x', '-', 'a..b', '..', '.', 'a/.b', '.a', 'a.lock', 'a.lock/b', 'a/b.lock', 'a.', 'a//b',
  'a/', '/a', 'a@{b', '@{-1}', 'a b', 'a\tb', 'a\nb', 'a\x7fb', 'a\x01b', 'a~1', 'a^', 'a:b', 'a?', 'a*b', 'a[b',
  'a\\b', 'a/./b', 'a'.repeat(256),
];

t.test('branch names: the table', async (t) => {
  for (const name of VALID) t.ok(isValidBranchName(name), `valid: ${JSON.stringify(name)}`);
  for (const name of INVALID) t.notOk(isValidBranchName(name), `invalid: ${JSON.stringify(name)}`);
});

async function gitAccepts(cwd: string, name: string): Promise<boolean> {
  const r = await runGit(['check-ref-format', '--branch', name], { cwd });
  return r.exitCode === 0;
}

t.test('branch names agree with git check-ref-format --branch', async (t) => {
  const dir = await tempDir(t); // not a repository, so git does not expand @{-1} and the like
  const table = [...VALID, ...INVALID].filter((n) => !n.includes('\0') && n !== '@' && n.length > 0 && [...n].length <= 255);
  for (const name of table) {
    t.equal(isValidBranchName(name), await gitAccepts(dir, name), `agrees on ${JSON.stringify(name)}`);
  }
  // Random names built from the characters that matter.
  const alphabet = fc.constantFrom('a', 'b', '.', '/', '-', '@', '{', '}', '~', '^', ':', '?', '*', '[', '\\', ' ', '\t', 'l', 'o', 'c', 'k', 'é', '\x7f', '\x01');
  const samples = fc.sample(fc.array(alphabet, { minLength: 1, maxLength: 10 }).map((a) => a.join('')), { numRuns: 250, seed: 42 });
  let checked = 0;
  for (const name of samples) {
    if (name === '@') continue; // refused by us on purpose: git reads it as HEAD
    const ours = isValidBranchName(name);
    const theirs = await gitAccepts(dir, name);
    if (ours !== theirs) t.fail(`disagree on ${JSON.stringify(name)}: ours=${ours} git=${theirs}`);
    checked++;
  }
  t.ok(checked > 200, `${checked} random names agree with git`);
});

t.test('ref names and helpers', async (t) => {
  t.equal(branchRef('main'), 'refs/heads/main');
  t.throws(() => branchRef('a..b'), TypeError);
  t.throws(() => branchRef('-x'), TypeError);
  t.equal(pullHeadRef(7), 'refs/pull/7/head');
  t.throws(() => pullHeadRef(0));
  t.throws(() => pullHeadRef(1.5));
  t.equal(branchNameOf('refs/heads/a/b'), 'a/b');
  t.equal(branchNameOf('refs/tags/v1'), null);
  t.ok(isValidRefName('refs/pull/1/head'));
  t.notOk(isValidRefName('main'));
  t.notOk(isValidRefName('refs/heads/a..b'));
  t.notOk(isValidRefName('refs/heads/'));
  t.ok(isValidSha('a'.repeat(40)));
  t.ok(isValidSha('0123456789abcdef'.repeat(4)));
  t.notOk(isValidSha('A'.repeat(40)), 'uppercase refused');
  t.notOk(isValidSha('a'.repeat(39)));
  t.notOk(isValidSha('-'.repeat(40)));
  t.equal(zeroSha(), '0'.repeat(40));
  t.equal(zeroSha('f'.repeat(64)), '0'.repeat(64));
});

t.test('resolve, compare-and-swap update, delete', async (t) => {
  const repo = await bareRepo(t);
  const c1 = await commit(repo, null, { a: '1' }, 'one');
  const c2 = await commit(repo, c1, { a: '2' }, 'two');
  const c3 = await commit(repo, c1, { a: '3' }, 'three');
  const main = 'refs/heads/main';

  t.equal(await resolveRef(repo, main), null, 'absent');
  t.equal(await updateRef(repo, main, c1, null), true, 'created when absent');
  t.equal(await updateRef(repo, main, c2, null), false, 'create refused: it exists now');
  t.equal(await resolveRef(repo, main), c1);
  t.equal(await updateRef(repo, main, c2, c1), true, 'moved from the expected value');
  t.equal(await updateRef(repo, main, c3, c1), false, 'moved meanwhile: CAS fails');
  t.equal(await resolveRef(repo, main), c2, 'unchanged after a failed CAS');
  t.equal(await resolveRef(repo, 'HEAD'), c2, 'HEAD follows main');
  await t.rejects(updateRef(repo, main, 'f'.repeat(40), c2), 'a missing object throws');
  await t.rejects(updateRef(repo, 'refs/heads/a..b', c2, null), TypeError);
  await t.rejects(updateRef(repo, main, '--help', c2), TypeError);
  await t.rejects(resolveRef(repo, '-x'), TypeError);

  t.equal(await deleteRef(repo, main, c1), false, 'delete with a stale expectation fails');
  t.equal(await resolveRef(repo, main), c2);
  t.equal(await deleteRef(repo, main, c2), true);
  t.equal(await resolveRef(repo, main), null);
  t.equal(await deleteRef(repo, main), false, 'deleting an absent ref reports false');

  // A reference under refs/ is read from its files, as git reads it: no rev-parse.
  const revParses = () => gitCommandStats().get('rev-parse')?.count ?? 0;
  await updateRef(repo, main, c3, null);
  await gitOk(['pack-refs', '--all'], { cwd: repo });
  const before = revParses();
  t.equal(await resolveRef(repo, main), c3, 'a packed reference');
  await updateRef(repo, main, c2, c3);
  t.equal(await resolveRef(repo, main), c2, 'its loose file over the packed line');
  t.equal(await resolveRef(repo, 'refs/heads/none'), null, 'a missing one');
  t.equal(revParses(), before, 'without starting git');
  await t.rejects(resolveRef(join(repo, 'gone'), main), 'a repository that is not there is an error, as from git');
});

t.test('references read from their files: loose, packed, missing; git asked for anything else', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: '1' }, 'root', { ref: 'refs/heads/main' });
  t.same(await readRefs(repo, ['refs/heads/main', 'refs/heads/missing']), new Map([['refs/heads/main', root]]), 'a loose reference; a missing one is absent');
  await gitOk(['pack-refs', '--all'], { cwd: repo });
  t.same(await readRefs(repo, ['refs/heads/main']), new Map([['refs/heads/main', root]]), 'a packed reference');
  const next = await commit(repo, root, { a: '2' }, 'next', { ref: 'refs/heads/main' });
  t.same(await readRefs(repo, ['refs/heads/main']), new Map([['refs/heads/main', next]]), 'a loose file over its packed line');
  await gitOk(['symbolic-ref', 'refs/heads/alias', 'refs/heads/main'], { cwd: repo });
  t.same(await readRefs(repo, ['refs/heads/alias']), new Map([['refs/heads/alias', next]]), 'a symbolic reference is asked of git');
  for (const hostile of ['refs/heads/../../config', '../HEAD', 'refs/heads/a..b', 'HEAD', 'refs/heads/x\0']) {
    await t.rejects(readRefs(repo, [hostile]), `no file read for ${JSON.stringify(hostile)}`);
  }
});

t.test('reflogs: a hosted repository records each branch move, and it is read without git', async (t) => {
  const repo = await bareRepo(t); // initBareRepository: the service's own settings
  const root = await commit(repo, null, { a: '1' }, 'root', { ref: 'refs/heads/main' });
  const next = await commit(repo, root, { a: '2' }, 'next');
  const other = await commit(repo, root, { a: '3' }, 'other');
  await updateRef(repo, 'refs/heads/main', next, root);
  await updateRef(repo, 'refs/heads/main', other, next); // a force-push
  t.ok(reflogRecords(repo, 'refs/heads/main', zeroSha(root), root), 'the creation');
  t.ok(reflogRecords(repo, 'refs/heads/main', root, next), 'a move');
  t.ok(reflogRecords(repo, 'refs/heads/main', next, other), 'a forced move');
  t.notOk(reflogRecords(repo, 'refs/heads/main', root, other), 'a move that never happened');
  t.notOk(reflogRecords(repo, 'refs/heads/absent', root, next), 'a branch that does not exist');
  const now = Math.floor(Date.now() / 1000);
  t.ok(reflogRecords(repo, 'refs/heads/main', root, next, now - 60), 'a move since a minute ago');
  t.notOk(reflogRecords(repo, 'refs/heads/main', root, next, now + 3600), 'no move since an hour from now');
  // Files outside logs/refs that say the move happened: a name that reaches them is refused unread.
  writeFileSync(join(repo, 'logs', 'planted'), `${root} ${next} x\n`);
  writeFileSync(join(repo, 'planted'), `${root} ${next} x\n`);
  writeFileSync(join(repo, 'logs', 'HEAD'), `${root} ${next} x\n`);
  for (const hostile of ['refs/heads/../../planted', '../planted', 'HEAD', 'refs/../HEAD']) {
    t.notOk(reflogRecords(repo, hostile, root, next), `no file read for ${JSON.stringify(hostile)}`);
  }
});

t.test('reference tips with their trees, in one git process', async (t) => {
  const repo = await bareRepo(t);
  const c1 = await commit(repo, null, { a: '1' }, 'one', { ref: 'refs/heads/main' });
  const blob = (await gitOk(['hash-object', '-w', '--stdin'], { cwd: repo, input: 'x' })).trim();
  await updateRef(repo, 'refs/heads/main-and-more', c1, null);
  await gitOk(['update-ref', 'refs/tags/blob', blob], { cwd: repo });
  const tips = await resolveRefTips(repo, ['refs/heads/main', 'refs/tags/blob', 'refs/heads/absent']);
  t.same([...tips.keys()].sort(), ['refs/heads/main', 'refs/tags/blob'], 'exact names only: a prefix match is not kept, an absent ref is missing');
  t.same(tips.get('refs/heads/main'), { sha: c1, tree: await treeOf(repo, c1) });
  t.same(tips.get('refs/tags/blob'), { sha: blob, tree: null }, 'no tree for something other than a commit');
  await t.rejects(resolveRefTips(repo, ['--all']), TypeError);
});

t.test('listing refs and reading history', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: '1' }, 'root', { ref: 'refs/heads/main' });
  const left = await commit(repo, root, { b: '1' }, 'left', { ref: 'refs/heads/feature/left' });
  const right = await commit(repo, root, { c: '1' }, 'right', { ref: 'refs/pull/1/head' });
  const lonely = await commit(repo, null, { z: '1' }, 'unrelated', { ref: 'refs/heads/orphan' });

  t.same(await listBranches(repo), [
    { name: 'feature/left', sha: left },
    { name: 'main', sha: root },
    { name: 'orphan', sha: lonely },
  ]);
  const all = await readAllRefs(repo);
  t.equal(all.get('refs/pull/1/head'), right);
  t.equal(all.get('refs/heads/main'), root);
  t.equal(all.size, 4);

  t.equal(await isAncestor(repo, root, left), true);
  t.equal(await isAncestor(repo, left, root), false);
  t.equal(await isAncestor(repo, root, root), true);
  t.equal(await mergeBase(repo, left, right), root);
  t.equal(await mergeBase(repo, left, lonely), null, 'unrelated histories');
  t.equal(await commitExists(repo, left), true);
  t.equal(await commitExists(repo, 'f'.repeat(40)), false);
  t.equal(await commitExists(repo, 'main'), false, 'only full names');
  const tree = (await runGit(['rev-parse', `${left}^{tree}`], { cwd: repo })).stdout.trim();
  t.equal(await commitExists(repo, tree), false, 'a tree is not a commit');
  await t.rejects(isAncestor(repo, '--all', left), TypeError);
});

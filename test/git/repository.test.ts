import t from 'tap';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listBranches, pullHeadRef, resolveRef } from '../../git/refs.js';
import {
  createInitialCommit, deleteRepositoryDirectory, fetchIntoRepository, forkRepository, getDefaultBranch,
  initBareRepository, repositoryPath, setDefaultBranch,
} from '../../git/repository.js';
import { gitOk, runGit } from '../../git/runner.js';
import { commit, log, show, tempDir } from './helpers.js';

t.test('repositoryPath lowercases and refuses traversal', async (t) => {
  t.equal(repositoryPath('/data/repos', 'Alice', 'My.Repo'), '/data/repos/alice/my.repo.git');
  t.equal(repositoryPath('/data/repos/', 'a_b-c', 'x'), '/data/repos/a_b-c/x.git');
  const bad: Array<[string, string]> = [
    ['..', 'x'], ['.', 'x'], ['a', '..'], ['a', '.'], ['a/b', 'x'], ['a', 'b/c'], ['a', '../../etc'],
    ['a', 'x.git'], ['a', 'X.GIT'], ['a.git', 'x'], ['', 'x'], ['a', ''], ['a', 'x y'], ['a', 'x\0'],
    ['a', '-x'], ['a', 'é'], ['a\\b', 'x'],
  ];
  for (const [owner, name] of bad) {
    t.throws(() => repositoryPath('/data/repos', owner, name), TypeError, `refused: ${JSON.stringify([owner, name])}`);
  }
});

t.test('initBareRepository, initial commit and default branch', async (t) => {
  const dir = await tempDir(t);
  const repo = join(dir, 'deep', 'parents', 'r.git');
  await initBareRepository(repo, 'trunk');
  t.equal((await gitOk(['rev-parse', '--is-bare-repository'], { cwd: repo })).trim(), 'true');
  t.equal(await getDefaultBranch(repo), 'trunk');
  t.equal((await gitOk(['config', 'http.receivepack'], { cwd: repo })).trim(), 'true');
  t.equal((await gitOk(['config', 'receive.denyNonFastForwards'], { cwd: repo })).trim(), 'false');
  t.equal((await gitOk(['config', 'core.logAllRefUpdates'], { cwd: repo })).trim(), 'true');
  await t.rejects(initBareRepository(join(dir, 'bad.git'), 'a..b'), TypeError);
  await t.rejects(initBareRepository('relative/r.git', 'main'), TypeError);

  const sha = await createInitialCommit(repo, 'trunk', {
    authorName: 'Ann', authorEmail: 'ann@example.com', message: 'Initial commit',
    files: { 'README.md': '# hi\n', 'docs/guide/a.md': 'A\n', 'docs/b.md': Buffer.from([0, 1, 2]) },
    date: '@1700000000 +0000',
  });
  t.equal(await resolveRef(repo, 'refs/heads/trunk'), sha);
  t.equal(await show(repo, sha, 'docs/guide/a.md'), 'A\n');
  t.same(await log(repo, sha, '%an|%ae|%cn|%s'), ['Ann|ann@example.com|Ann|Initial commit']);
  const files = (await gitOk(['ls-tree', '-r', '--name-only', sha], { cwd: repo })).trim().split('\n');
  t.same(files.sort(), ['README.md', 'docs/b.md', 'docs/guide/a.md']);
  await t.rejects(createInitialCommit(repo, 'trunk', { authorName: 'A', authorEmail: 'a@b', message: 'again', files: { x: '1' } }),
    /already exists/);
  for (const path of ['../x', '/abs', 'a//b', '.git/config', 'a/.GIT/x', '']) {
    await t.rejects(createInitialCommit(repo, 'other', { authorName: 'A', authorEmail: 'a@b', message: 'm', files: { [path]: '1' } }),
      TypeError, `path refused: ${path}`);
  }

  await setDefaultBranch(repo, 'develop');
  t.equal(await getDefaultBranch(repo), 'develop');
  await t.rejects(setDefaultBranch(repo, '-f'), TypeError);
});

t.test('fork shares history and survives deleting the base', async (t) => {
  const dir = await tempDir(t);
  const base = join(dir, 'alice', 'r.git');
  const fork = join(dir, 'bob', 'r.git');
  await initBareRepository(base, 'main');
  const c1 = await commit(base, null, { a: '1' }, 'one', { ref: 'refs/heads/main' });
  const c2 = await commit(base, c1, { b: '1' }, 'two', { ref: 'refs/heads/feature' });
  await gitOk(['tag', 'v1', c1], { cwd: base });
  await gitOk(['update-ref', 'refs/pull/1/head', c2], { cwd: base });

  await forkRepository(base, fork);
  t.same(await listBranches(fork), [{ name: 'feature', sha: c2 }, { name: 'main', sha: c1 }]);
  t.equal(await resolveRef(fork, 'refs/tags/v1'), c1);
  t.equal(await resolveRef(fork, 'refs/pull/1/head'), null, 'pull refs are not copied');
  t.equal(await getDefaultBranch(fork), 'main');
  t.equal((await runGit(['config', 'remote.origin.url'], { cwd: fork })).exitCode, 1, 'no remote pointing at the base');
  t.equal((await gitOk(['config', 'http.receivepack'], { cwd: fork })).trim(), 'true');
  const alternates = await stat(join(fork, 'objects', 'info', 'alternates')).then(() => true, () => false);
  t.notOk(alternates, 'no alternates');

  // A branch made in the fork comes into the base as the pull request head.
  const c3 = await commit(fork, c2, { c: '1' }, 'three', { ref: 'refs/heads/feature' });
  t.equal(await fetchIntoRepository(base, fork, 'refs/heads/feature', pullHeadRef(1)), c3);
  t.equal(await resolveRef(base, 'refs/pull/1/head'), c3);
  t.equal(await resolveRef(base, 'refs/tags/v1'), c1);
  // Forced: a rewritten fork branch replaces the pull head.
  const c3b = await commit(fork, c1, { d: '1' }, 'rewritten', { ref: 'refs/heads/feature' });
  t.equal(await fetchIntoRepository(base, fork, 'refs/heads/feature', pullHeadRef(1)), c3b);
  await t.rejects(fetchIntoRepository(base, fork, 'feature', pullHeadRef(1)), TypeError, 'short names refused');
  await t.rejects(fetchIntoRepository(base, fork, 'refs/heads/--upload-pack=x', pullHeadRef(1)));

  await deleteRepositoryDirectory(base);
  t.notOk(await stat(base).then(() => true, () => false), 'base deleted');
  const fsck = await runGit(['fsck', '--no-progress'], { cwd: fork });
  t.equal(fsck.exitCode, 0, 'fork is complete without the base');
  t.same(await log(fork, 'refs/heads/feature', '%s'), ['rewritten', 'one']);
});

t.test('deleteRepositoryDirectory refuses what is not a bare repository', async (t) => {
  const dir = await tempDir(t);
  const plain = join(dir, 'plain.git');
  await mkdir(plain);
  await writeFile(join(plain, 'important.txt'), 'keep');
  await t.rejects(deleteRepositoryDirectory(plain), /refusing/);
  await t.rejects(deleteRepositoryDirectory(dir), TypeError);
  await t.rejects(deleteRepositoryDirectory('rel.git'), TypeError);
  await deleteRepositoryDirectory(join(dir, 'absent.git'));
  t.ok(await stat(join(plain, 'important.txt')).then(() => true, () => false), 'nothing deleted');
});

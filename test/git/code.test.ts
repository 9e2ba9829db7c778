// The git modules behind the code routes, on real repositories on disk: trees and blobs, history
// queries, tree edits without a worktree, tags, archives and commit diffs, and the inputs they refuse
// (paths and names that git could read as options, traversal, NUL, `.git`).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import {
  assertTreePath, blobSize, editTree, findTag, historyCount, historyPage, lastCommitsOfEntries, listRefsWithTypes, listTags, listTree,
  parseLsTree, readBlob, readTagObject, streamArchive, streamBlob, streamCommitDiff, streamCommitPatch, treeEntryAt, commitTree,
  submoduleUrls, hashBlob, makeTree,
} from '../../git/index.js';
import { cleanTreePath } from '../../core/tree-path.js';
import { commitByIdPrefix, resolveRefCommit, resolveRevision, splitRefAndPath } from '../../core/code-refs.js';
import { alice, bareRepo, bob, commit, createTag, tempDir } from './helpers.js';

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// Tree edits write their private index under os.tmpdir(); this file's process gets a directory of its
// own (TMPDIR is read on each call), so the other test processes' indexes in /tmp do not count.
const privateTmp = mkdtempSync(join(tmpdir(), 'git-code-test-'));
process.env.TMPDIR = privateTmp;
t.teardown(() => rmSync(privateTmp, { recursive: true, force: true }));
const indexFiles = () => readdirSync(privateTmp).filter((n) => n.startsWith('pullhost-index-')).length;

t.test('trees, blobs and entries', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { 'README.md': '# hi\n', 'docs/a.md': 'A\n', '-dash': 'dash\n', 'odd name:*?': 'odd\n', 'bin/run': { mode: '100755', content: '#!/bin/sh\n' } }, 'root', { ref: 'refs/heads/main' });
  const top = await listTree(repo, root);
  t.same(top.map((e) => e.path), ['-dash', 'README.md', 'bin', 'docs', 'odd name:*?'], 'one level, git order');
  t.match(top.find((e) => e.path === 'docs'), { type: 'tree', mode: '040000', size: 0 });
  t.match(top.find((e) => e.path === 'README.md'), { type: 'blob', mode: '100644', size: 5 });
  t.same((await listTree(repo, root, { recursive: true })).map((e) => e.path), ['-dash', 'README.md', 'bin', 'bin/run', 'docs', 'docs/a.md', 'odd name:*?'], 'recursive includes the trees');
  t.match(await treeEntryAt(repo, root, 'bin/run'), { mode: '100755', type: 'blob' });
  t.match(await treeEntryAt(repo, root, '-dash'), { path: '-dash', size: 5 }, 'a leading dash is a path, not an option');
  t.match(await treeEntryAt(repo, root, 'odd name:*?'), { size: 4 }, 'glob characters are read literally');
  t.equal(await treeEntryAt(repo, root, '*'), null, 'a pattern matches nothing');
  t.equal(await treeEntryAt(repo, root, 'docs/missing'), null);
  t.match(await treeEntryAt(repo, root, ''), { type: 'tree' }, 'the empty path is the root tree');
  const readme = (await treeEntryAt(repo, root, 'README.md'))!;
  t.equal((await readBlob(repo, readme.sha)).toString(), '# hi\n');
  t.equal(await text(streamBlob(repo, readme.sha)), '# hi\n');
  t.equal(await blobSize(repo, readme.sha), 5);
  for (const bad of ['', '/etc/passwd', '../x', 'a/../b', 'a//b', 'a/./b', 'nul\0byte']) {
    t.throws(() => assertTreePath(bad), TypeError, `refused: ${JSON.stringify(bad)}`);
    await t.rejects(treeEntryAt(repo, root, bad === '' ? 'x/../y' : bad), TypeError);
  }
  await t.rejects(listTree(repo, '--output=/tmp/x'), TypeError, 'only object names reach ls-tree');
  await t.rejects(readBlob(repo, '-p'), TypeError);
  t.same(parseLsTree('100644 blob ' + 'a'.repeat(40) + '      12\tx y\0'), [{ mode: '100644', type: 'blob', sha: 'a'.repeat(40), size: 12, path: 'x y' }]);
});

t.test('history queries and last commits', async (t) => {
  const repo = await bareRepo(t);
  const c1 = await commit(repo, null, { 'a.txt': '1\n', 'dir/x': 'x\n' }, 'one', { ref: 'refs/heads/main', author: alice });
  const c2 = await commit(repo, c1, { 'b.txt': '2\n' }, 'two', { ref: 'refs/heads/main', author: bob });
  const c3 = await commit(repo, c2, { 'dir/y': 'y\n' }, 'three', { ref: 'refs/heads/main' });
  t.same(await historyPage(repo, { tip: c3 }, { skip: 0, limit: 10 }), [c3, c2, c1]);
  t.same(await historyPage(repo, { tip: c3 }, { skip: 1, limit: 1 }), [c2]);
  t.equal(await historyCount(repo, { tip: c3 }), 3);
  t.equal(await historyCount(repo, { tip: c3, not: [c1] }), 2, 'not: excludes its history');
  t.same(await historyPage(repo, { tip: c3, path: 'dir' }, { skip: 0, limit: 10 }), [c3, c1], 'only commits touching the path');
  t.equal(await historyCount(repo, { tip: c3, path: 'nothing' }), 0);
  t.equal(await historyCount(repo, { tip: c3, since: '2100-01-01T00:00:00Z' }), 0);
  t.equal(await historyCount(repo, { tip: c3, until: '2100-01-01T00:00:00+02:00' }), 3);
  await t.rejects(historyCount(repo, { tip: c3, since: 'yesterday' }), TypeError, 'dates must be RFC 3339');
  await t.rejects(historyCount(repo, { tip: '--all' }), TypeError);
  await t.rejects(historyCount(repo, { tip: c3, not: ['--all'] }), TypeError);
  await t.rejects(historyCount(repo, { tip: c3, path: '../../etc' }), TypeError);
  const last = await lastCommitsOfEntries(repo, c3, '', ['a.txt', 'b.txt', 'dir']);
  t.same(Object.fromEntries(last), { 'a.txt': c1, 'b.txt': c2, dir: c3 });
  t.same(Object.fromEntries(await lastCommitsOfEntries(repo, c3, 'dir', ['x', 'y'])), { x: c1, y: c3 });
});

t.test('tree edits leave no index files behind', async (t) => {
  const repo = await bareRepo(t);
  const base = await commit(repo, null, { 'keep.txt': 'k\n', 'old.txt': 'o\n', 'dir/inner': 'i\n' }, 'base');
  const baseTree = (await treeEntryAt(repo, base, ''))!.sha;
  t.equal(tmpdir(), privateTmp, 'tree edits make their index in this file\'s own temporary directory');
  const before = indexFiles();
  const oldBlob = (await treeEntryAt(repo, base, 'old.txt'))!.sha;
  const tree = await editTree(repo, baseTree, [
    { path: 'old.txt', delete: true },
    { path: 'moved/old.txt', mode: '100644', sha: oldBlob },
    { path: 'new/deep/file', mode: '100755', content: Buffer.from('new\n') },
    { path: '-leading', mode: '100644', content: Buffer.from('dash\n') },
  ]);
  const made = await commitTree(repo, { tree, parents: [base], message: 'edit', author: alice, committer: alice });
  t.same((await listTree(repo, made, { recursive: true })).filter((e) => e.type === 'blob').map((e) => `${e.mode} ${e.path}`), [
    '100644 -leading', '100644 dir/inner', '100644 keep.txt', '100644 moved/old.txt', '100755 new/deep/file',
  ]);
  t.equal(indexFiles(), before, 'the private index is removed');
  const fromNothing = await editTree(repo, null, [{ path: 'only', mode: '100644', content: Buffer.from('x') }]);
  t.same((await listTree(repo, fromNothing)).map((e) => e.path), ['only']);
  for (const path of ['../escape', '/abs', 'a/../b', 'nul\0']) {
    await t.rejects(editTree(repo, baseTree, [{ path, mode: '100644', content: Buffer.from('x') }]), TypeError, `refused: ${JSON.stringify(path)}`);
  }
  for (const path of ['.git/config', 'a/.GIT/hooks/x']) {
    await t.rejects(editTree(repo, baseTree, [{ path, mode: '100644', content: Buffer.from('x') }]), TypeError, `no .git component: ${path}`);
  }
  t.equal(indexFiles(), before, 'also after failures');
});

t.test('tags, refs, archives and commit diffs', async (t) => {
  const repo = await bareRepo(t);
  const c1 = await commit(repo, null, { 'a.txt': '1\n' }, 'first', { ref: 'refs/heads/main', author: alice });
  const c2 = await commit(repo, c1, { 'a.txt': '2\n', 'b/c.txt': 'c\n' }, 'second', { ref: 'refs/heads/main', author: bob });
  t.equal(await createTag(repo, 'light', c1), true);
  t.equal(await createTag(repo, 'v1.0', c2, { message: 'Release\n\n  notes  ', tagger: { name: 'Tagger', email: 't@example.com', date: new Date(1_800_000_000_000) } }), true);
  t.equal(await createTag(repo, 'v1.0', c1), false, 'an existing tag is not moved');
  await t.rejects(createTag(repo, 'bad..name', c1), TypeError);
  await t.rejects(createTag(repo, '-x', c1), TypeError);
  const tags = await listTags(repo);
  t.same(tags.map((x) => x.name), ['v1.0', 'light'], 'newest creator first');
  const annotated = (await findTag(repo, 'v1.0'))!;
  t.match(annotated, { annotated: true, target: c2, message: 'Release\n\n  notes\n', creator: { name: 'Tagger', email: 't@example.com', timestamp: 1_800_000_000 } });
  t.match(await findTag(repo, 'light'), { annotated: false, id: c1, target: c1, message: 'first\n' });
  t.equal(await findTag(repo, 'missing'), null);
  t.match(await readTagObject(repo, annotated.id), { name: 'v1.0', object: c2, objectType: 'commit', message: 'Release\n\n  notes\n' });
  t.equal(await readTagObject(repo, c1), null, 'a commit is not a tag object');
  const refs = await listRefsWithTypes(repo);
  t.same(refs.map((r) => `${r.ref} ${r.type}`), ['refs/heads/main commit', 'refs/tags/light commit', 'refs/tags/v1.0 tag']);

  const zipFile = join(await tempDir(t), 'a.zip');
  writeFileSync(zipFile, await bufferOf(streamArchive(repo, c2, 'zip', { prefix: 'repo/' })));
  const zip = execFileSync('unzip', ['-l', zipFile]).toString();
  t.match(zip, /repo\/b\/c\.txt/);
  const tgz = execFileSync('tar', ['tzf', '-'], { input: await bufferOf(streamArchive(repo, c2, 'tar.gz', { prefix: 'repo/', paths: ['b'] })) }).toString();
  t.same(tgz.trim().split('\n'), ['repo/', 'repo/b/', 'repo/b/c.txt'], 'only the paths asked for');
  t.throws(() => streamArchive(repo, 'main', 'zip', { prefix: '' }), TypeError, 'archives take object names');
  t.throws(() => streamArchive(repo, c2, 'zip', { prefix: '../x/' }), TypeError);
  await t.rejects(bufferOf(streamArchive(repo, c2, 'zip', { prefix: 'r/', paths: ['--output=/tmp/x'] })), 'a dash path is a missing path, not an option');

  const diff = await text(streamCommitDiff(repo, c2, c1));
  t.match(diff, /^diff --git a\/a\.txt b\/a\.txt/m);
  t.match(await text(streamCommitDiff(repo, c1, null)), /^commit [0-9a-f]{40}/, 'a root commit shows as git show');
  t.match(await text(streamCommitPatch(repo, c2, c1)), /Subject: \[PATCH\] second/);
  t.match(await text(streamCommitPatch(repo, c1, null)), /Subject: \[PATCH\] first/);
});

t.test('resolving user-given refs', async (t) => {
  const repo = await bareRepo(t);
  const c1 = await commit(repo, null, { 'a.txt': '1\n' }, 'first', { ref: 'refs/heads/main' });
  const c2 = await commit(repo, c1, { 'a.txt': '2\n' }, 'second', { ref: 'refs/heads/feature/x' });
  await createTag(repo, 'v1', c1);
  t.match(await resolveRefCommit(repo, 'main'), { kind: 'branch', commit: c1 });
  t.match(await resolveRefCommit(repo, 'v1'), { kind: 'tag', commit: c1 });
  t.match(await resolveRefCommit(repo, c2), { kind: 'commit', commit: c2 });
  t.equal(await resolveRefCommit(repo, c2.slice(0, 10)), null, 'contents take full ids only');
  t.equal(await resolveRevision(repo, c2.slice(0, 10)), c2, 'commit lists take abbreviations');
  t.equal(await commitByIdPrefix(repo, c2.slice(0, 3)), null, 'too short');
  for (const hostile of ['main~1', 'main^', '@{-1}', '--all', '-n1', 'HEAD@{0}', ':/second', 'main..feature/x', '../../etc', '\0']) {
    t.equal(await resolveRevision(repo, hostile), null, `not a revision expression: ${JSON.stringify(hostile)}`);
  }
  t.equal(await resolveRevision(repo, 'HEAD'), c1);
  t.equal(await resolveRevision(repo, 'refs/heads/feature/x'), c2);
  t.same(await splitRefAndPath(repo, 'main', '', 'feature/x/a.txt'), { ref: { input: 'feature/x', kind: 'branch', name: 'feature/x', commit: c2 }, treePath: 'a.txt' });
  t.same((await splitRefAndPath(repo, 'main', 'v1', 'a.txt')).treePath, 'a.txt');
  t.same(await splitRefAndPath(repo, 'main', '', 'a.txt'), { ref: { input: 'main', kind: 'branch', name: 'main', commit: c1 }, treePath: 'a.txt' }, 'the default branch when no ref leads');
  t.match(await splitRefAndPath(repo, 'main', '', `${c2}/a.txt`), { ref: { kind: 'commit', commit: c2 }, treePath: 'a.txt' });
});

t.test('tree paths are cleaned as Gitea cleans them', async (t) => {
  t.equal(cleanTreePath('a//b/'), 'a/b');
  t.equal(cleanTreePath('../../etc/passwd'), 'etc/passwd', 'a path never leaves the tree');
  t.equal(cleanTreePath('/x/./y/../z'), 'x/z');
  t.equal(cleanTreePath('.'), '');
  t.equal(cleanTreePath('a/.git/config'), null);
  t.equal(cleanTreePath('.GIT'), null);
  t.equal(cleanTreePath('x\0y'), null);
});

t.test('submodule URLs come from .gitmodules', async (t) => {
  const repo = await bareRepo(t);
  const modules = await hashBlob(repo, '[submodule "lib"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n');
  const tree = await makeTree(repo, [{ mode: '100644', type: 'blob', sha: modules, name: '.gitmodules' }]);
  t.ok(tree);
  t.same(Object.fromEntries(await submoduleUrls(repo, modules)), { 'vendor/lib': 'https://example.com/lib.git' });
});

async function bufferOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

import t from 'tap';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { diffNumStat, diffShortStat, iterateNumStat, parseShortStat, streamDiff, streamFormatPatch, whitespaceFlag } from '../../git/diff.js';
import { parseUnifiedDiff } from '../../git/diff-parse.js';
import { treeOf } from '../../git/objects.js';
import { gitOk, runGit } from '../../git/runner.js';
import { bareRepo, commit, type Teardown } from './helpers.js';

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('');
const LIMITS = { maxLines: 1000, maxLineCharacters: 5000 };

async function fixture(t: Teardown) {
  const repo = await bareRepo(t);
  const from = await commit(repo, null, {
    'keep.txt': lines(10),
    'del.txt': 'bye\nbye\n',
    'ren_src.txt': lines(20, 'moving'),
    'bin.dat': Buffer.from([0, 1, 2, 3, 0, 5]),
    'mode.sh': 'echo hi\n',
    'space name.txt': 'a\n',
    'ünï.txt': 'u\n',
    'tab\tname': 't\n',
    'ws.txt': 'x y\n',
  }, 'from');
  const to = await commit(repo, from, {
    'keep.txt': lines(10).replace('line 3\n', 'LINE 3\nextra\n') + 'tail\n',
    'del.txt': null,
    'ren_src.txt': null,
    'dir/ren_dst.txt': lines(20, 'moving').replace('moving 7', 'moved 7'),
    'bin.dat': Buffer.from([0, 9, 9, 9, 0, 5]),
    'new.bin': Buffer.from([0, 0, 1]),
    'mode.sh': { mode: '100755', content: 'echo hi\n' },
    'space name.txt': 'b\n',
    'ünï.txt': 'v\n',
    'tab\tname': 'T\n',
    'ws.txt': 'x   y\n',
    'added.txt': 'new\n',
  }, 'to');
  return { repo, from, to };
}

t.test('diff, numstat and shortstat agree', async (t) => {
  const { repo, from, to } = await fixture(t);
  const diff = await text(streamDiff(repo, from, to));
  const parsed = parseUnifiedDiff(diff, LIMITS);
  const numstat = await diffNumStat(repo, from, to);
  const short = await diffShortStat(repo, from, to);

  const view = (f: { filename: string; status: string; additions: number; deletions: number }) =>
    `${f.filename}|${f.status}|${f.additions}|${f.deletions}`;
  t.same(parsed.map(view), numstat.map(view), 'same files, statuses and counts');
  t.same(Object.fromEntries(parsed.map((f) => [f.filename, f.status])), {
    'added.txt': 'added', 'bin.dat': 'unchanged', 'del.txt': 'deleted', 'dir/ren_dst.txt': 'renamed', 'keep.txt': 'changed',
    'mode.sh': 'unchanged', 'new.bin': 'added', 'space name.txt': 'changed', 'tab\tname': 'changed', 'ws.txt': 'changed',
    'ünï.txt': 'changed',
  }, 'Gitea vocabulary; binary and mode-only changes count as unchanged');
  t.equal(short.files, parsed.length);
  t.equal(short.additions, parsed.reduce((n, f) => n + f.additions, 0));
  t.equal(short.deletions, parsed.reduce((n, f) => n + f.deletions, 0));
  const keep = parsed.find((f) => f.filename === 'keep.txt')!;
  t.same([keep.additions, keep.deletions, keep.changes], [3, 1, 4]);
  const ren = parsed.find((f) => f.status === 'renamed')!;
  t.equal(ren.previousFilename, 'ren_src.txt');
  t.equal(numstat.find((f) => f.status === 'renamed')!.previousFilename, 'ren_src.txt');
  t.same(parsed.filter((f) => f.isBinary).map((f) => f.filename), ['bin.dat', 'new.bin']);
  t.same(numstat.filter((f) => f.binary).map((f) => f.filename), ['bin.dat', 'new.bin']);
  const mode = parsed.find((f) => f.filename === 'mode.sh')!;
  t.same([mode.oldMode, mode.newMode], ['100644', '100755']);
  t.same(numstat.find((f) => f.filename === 'mode.sh')!.newMode, '100755');
  t.ok(diff.includes('diff --git a/ünï.txt b/ünï.txt'), 'UTF-8 names are not octal-quoted');
  t.notOk(parsed.some((f) => f.truncated));

  // Whitespace-only changes vanish from all three alike.
  const opts = { whitespace: 'ignore-all' };
  const wsParsed = parseUnifiedDiff(await text(streamDiff(repo, from, to, opts)), LIMITS);
  const wsNum = await diffNumStat(repo, from, to, opts);
  t.notOk(wsParsed.some((f) => f.filename === 'ws.txt'));
  t.same(wsParsed.map(view), wsNum.map(view));
  t.equal((await diffShortStat(repo, from, to, opts)).files, wsParsed.length);
  t.same(whitespaceFlag('ignore-change'), ['-b']);
  t.same(whitespaceFlag('ignore-eol'), ['--ignore-space-at-eol']);
  t.same(whitespaceFlag('bogus'), []);

  const skipped = parseUnifiedDiff(await text(streamDiff(repo, from, to, { skipTo: 'keep.txt' })), LIMITS);
  t.equal(skipped[0]!.filename, 'keep.txt', 'skip-to starts at that file');
});

t.test('a --binary diff applies with git apply and rebuilds the target tree', async (t) => {
  const { repo, from, to } = await fixture(t);
  const patch = await text(streamDiff(repo, from, to, { binary: true }));
  t.match(patch, /GIT binary patch/);
  t.equal(parseUnifiedDiff(patch, LIMITS).filter((f) => f.isBinary).length, 2);
  const env = { GIT_INDEX_FILE: join(repo, 'apply-index') };
  t.teardown(() => rm(env.GIT_INDEX_FILE, { force: true }));
  await gitOk(['read-tree', from], { cwd: repo, env });
  await gitOk(['apply', '--cached', '-'], { cwd: repo, env, input: patch });
  t.equal((await gitOk(['write-tree'], { cwd: repo, env })).trim(), await treeOf(repo, to));
  await t.rejects(text(streamDiff(repo, from, 'f'.repeat(40))), 'a failing git fails the stream');
  t.throws(() => streamDiff(repo, '--output=/tmp/x', to), TypeError);
});

t.test('format-patch: one mail per commit', async (t) => {
  const repo = await bareRepo(t);
  const a = await commit(repo, null, { f: '1\n' }, 'first');
  const b = await commit(repo, a, { f: '2\n' }, 'second');
  const c = await commit(repo, b, { g: '3\n' }, 'third');
  const out = await text(streamFormatPatch(repo, a, c));
  t.equal(out.match(/^From [0-9a-f]{40} /gm)?.length, 2);
  t.match(out, /Subject: \[PATCH 1\/2\] second/);
  t.match(out, /Subject: \[PATCH 2\/2\] third/);
  t.notMatch(out, /^-- $/m, 'no signature');
});

t.test('numstat streams thousands of files', async (t) => {
  const repo = await bareRepo(t);
  const a = await commit(repo, null, { seed: '1\n' }, 'seed');
  const many: Record<string, string> = {};
  for (let i = 0; i < 2500; i++) many[`dir${i % 50}/file-${i}.txt`] = 'same content\n'; // one blob: fast to build
  const b = await commit(repo, a, many, 'many');
  let count = 0;
  for await (const e of iterateNumStat(repo, a, b)) {
    if (e.status === 'added' && e.additions === 1) count++;
  }
  t.equal(count, 2500);
  t.same(await diffShortStat(repo, a, b), { files: 2500, additions: 2500, deletions: 0 });
});

t.test('parseShortStat', async (t) => {
  t.same(parseShortStat(' 3 files changed, 10 insertions(+), 2 deletions(-)\n'), { files: 3, additions: 10, deletions: 2 });
  t.same(parseShortStat(' 1 file changed, 1 deletion(-)\n'), { files: 1, additions: 0, deletions: 1 });
  t.same(parseShortStat(''), { files: 0, additions: 0, deletions: 0 });
});

function fileDiff(name: string, body: string[]): string {
  return [`diff --git a/${name} b/${name}`, 'index 1111111..2222222 100644', `--- a/${name}`, `+++ b/${name}`,
    `@@ -1,${body.length} +1,${body.length} @@`, ...body, ''].join('\n');
}

t.test('parseUnifiedDiff limits, as Gitea counts them', async (t) => {
  const ten = fileDiff('f', Array.from({ length: 10 }, (_, i) => `+l${i}`));
  t.equal(parseUnifiedDiff(ten, { maxLines: 11, maxLineCharacters: 5000 })[0]!.truncated, false);
  const cut = parseUnifiedDiff(ten, { maxLines: 10, maxLineCharacters: 5000 })[0]!;
  t.equal(cut.truncated, true, 'reaching the line limit marks the file incomplete');
  t.equal(cut.additions, 10, 'counts stay complete');
  t.equal(parseUnifiedDiff(ten, { maxLines: -1, maxLineCharacters: 5000 })[0]!.truncated, false, '-1: no limit');
  // Per file: a second small file is not affected by the first.
  const two = parseUnifiedDiff(ten + fileDiff('g', ['+x']), { maxLines: 5, maxLineCharacters: 5000 });
  t.same(two.map((f) => f.truncated), [true, false]);

  const ascii = fileDiff('a', [`+${'x'.repeat(2999)}`]);
  t.equal(parseUnifiedDiff(ascii, { maxLines: -1, maxLineCharacters: 3000 })[0]!.truncated, false, '3000 bytes fit');
  t.equal(parseUnifiedDiff(ascii, { maxLines: -1, maxLineCharacters: 2999 })[0]!.truncated, true);
  const wide = fileDiff('w', [`+${'é'.repeat(1000)}`]); // 2001 bytes, 1001 UTF-16 units
  t.equal(parseUnifiedDiff(wide, { maxLines: -1, maxLineCharacters: 2001 })[0]!.truncated, false);
  t.equal(parseUnifiedDiff(wide, { maxLines: -1, maxLineCharacters: 2000 })[0]!.truncated, true, 'limit is in UTF-8 bytes');
  const emoji = fileDiff('e', [`+${'😀'.repeat(10)}`]); // 41 bytes
  t.equal(parseUnifiedDiff(emoji, { maxLines: -1, maxLineCharacters: 40 })[0]!.truncated, true);
  t.equal(parseUnifiedDiff(emoji, { maxLines: -1, maxLineCharacters: 41 })[0]!.truncated, false);
});

t.test('parseUnifiedDiff names: quoted, ambiguous, renamed', async (t) => {
  const quoted = [
    'diff --git "a/tab\\tname" "b/tab\\tname"', 'index 1..2 100644', '--- "a/tab\\tname"', '+++ "b/tab\\tname"',
    '@@ -1 +1 @@', '-a', '+b', '',
    'diff --git "a/\\303\\251t\\303\\251" "b/\\303\\251t\\303\\251"', 'new file mode 100644', 'index 0..1', '--- /dev/null',
    '+++ "b/\\303\\251t\\303\\251"', '@@ -0,0 +1 @@', '+x', '',
    'diff --git a/x b/y b/x b/y', 'index 1..2 100644', '--- a/x b/y', '+++ b/x b/y', '@@ -1 +1 @@', '-1', '+2', '',
    'diff --git a/old name b/new name', 'similarity index 100%', 'rename from old name', 'rename to new name', '',
    'diff --git a/gone b/gone', 'deleted file mode 100644', 'index 1..0', '--- a/gone', '+++ /dev/null', '@@ -1 +0,0 @@', '-bye', '',
  ].join('\n');
  const files = parseUnifiedDiff(quoted, LIMITS);
  t.same(files.map((f) => [f.filename, f.status, f.previousFilename ?? null]), [
    ['tab\tname', 'changed', null],
    ['été', 'added', null],
    ['x b/y', 'changed', null],
    ['new name', 'renamed', 'old name'],
    ['gone', 'deleted', null],
  ]);
  t.same(parseUnifiedDiff('', LIMITS), []);
});

t.test('parseUnifiedDiff is linear', async (t) => {
  const body = Array.from({ length: 200 }, (_, i) => (i % 2 ? `+added ${i}` : ` context ${i}`));
  const big = Array.from({ length: 1000 }, (_, i) => fileDiff(`f${i}`, body)).join(''); // 200k hunk lines
  const start = process.hrtime.bigint();
  const files = parseUnifiedDiff(big, LIMITS);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  t.equal(files.length, 1000);
  t.equal(files[999]!.additions, 100);
  t.ok(ms < 2000, `parsed ${big.length} characters in ${ms.toFixed(0)} ms`);
  const longLine = fileDiff('long', [`+${'x'.repeat(5_000_000)}`]);
  const s2 = process.hrtime.bigint();
  t.equal(parseUnifiedDiff(longLine, LIMITS)[0]!.truncated, true);
  t.ok(Number(process.hrtime.bigint() - s2) / 1e6 < 1000, 'one 5 MB line is cheap');
});

t.test('ignores a missing object and bad input paths', async (t) => {
  const repo = await bareRepo(t);
  const r = await runGit(['diff', '--shortstat', 'f'.repeat(40), 'e'.repeat(40)], { cwd: repo });
  t.not(r.exitCode, 0);
  await t.rejects(diffShortStat(repo, 'f'.repeat(40), 'e'.repeat(40)));
});

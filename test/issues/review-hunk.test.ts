// The diff hunk a code comment shows, cut as Gitea 1.26 cuts it. The expected strings are Gitea's
// own answers for the same change (reference instance, POST .../reviews with code comments).
import t from 'tap';
import { cutDiffAroundLine, diffHunkOf, patchForUnchangedLines } from '../../core/review-hunk.js';

const DIFF = [
  'diff --git a/code.txt b/code.txt',
  'index 1111111..2222222 100644',
  '--- a/code.txt',
  '+++ b/code.txt',
  '@@ -1,10 +1,11 @@',
  ' line1', ' line2', '-line3', '+line3 changed', ' line4', ' line5', ' line6', '+new a', '+new b', ' line7', ' line8', ' line9', '-line10',
  '',
].join('\n');

t.test("Gitea's answers for one change", async (t) => {
  const hunk = (line: number, old: boolean) => diffHunkOf(cutDiffAroundLine(DIFF, line, old));
  t.equal(hunk(8, false), '@@ -5,2 +5,4 @@\n line5\n line6\n+new a\n+new b', 'a new line: the last four lines, header recomputed');
  t.equal(hunk(3, true), '@@ -1,10 +1,11 @@\n line1\n line2\n-line3', 'an old line within four lines of the start: the hunk as it is');
  t.equal(hunk(2, false), '@@ -1,10 +1,11 @@\n line1\n line2', 'an unchanged line inside the hunk');
  t.same(cutDiffAroundLine(DIFF, 8, false).split('\n').slice(0, 3), ['diff --git a/code.txt b/code.txt', '--- a/code.txt', '+++ b/code.txt'], 'the file headers are kept (not the index line)');
});

t.test('lines no hunk holds, and the limits', async (t) => {
  t.equal(cutDiffAroundLine(DIFF, 0, false), '', 'line 0');
  t.equal(cutDiffAroundLine(DIFF, 50, false), '', 'past every hunk');
  t.equal(cutDiffAroundLine(DIFF, 5, false, 0), '', 'no lines wanted');
  t.equal(cutDiffAroundLine('', 3, false), '', 'no diff');
  t.equal(diffHunkOf('no hunk header here'), '');
  t.equal(diffHunkOf(''), '');
  const two = `${DIFF}@@ -20,3 +21,3 @@\n a\n-b\n+c\n`;
  t.equal(diffHunkOf(cutDiffAroundLine(two, 22, false)), '@@ -20,3 +21,3 @@\n a\n-b\n+c', 'the second hunk of a file');
});

t.test('a line the diff does not touch: the lines above it', async (t) => {
  const patch = patchForUnchangedLines('a b.txt', 2, ['two', 'three']);
  t.equal(patch, 'diff --git a/a b.txt b/a b.txt\n--- a/a b.txt\n+++ b/a b.txt\n@@ -2,2 +2,2 @@\n two\n three\n');
  t.equal(diffHunkOf(patch), '@@ -2,2 +2,2 @@\n two\n three\n');
  t.equal(patchForUnchangedLines('x', 1, []), '');
});

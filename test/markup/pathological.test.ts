// Hostile inputs finish: each render must complete well within a generous bound. The bound is a
// sanity check against quadratic behaviour, not a benchmark (benchmarks live under bench/).
import t from 'tap';
import { renderDocument } from '../../workers/markup/render.js';
import { extractReferenceCandidates } from '../../workers/markup/references.js';
import type { RenderRequest } from '../../workers/markup/types.js';
import { request } from './helpers.js';

const BOUND_MS = 10_000;
const MEGABYTE = 1 << 20;

function mixedDocument(size: number): string {
  const blocks = [
    '# Heading @alice #1\n\n',
    'Some *emphasis*, **strong**, `code`, [a link](docs/a.md), ![img](i.png), [[Wiki|Page]] and www.example.com.\n\n',
    '- [ ] task for @alice\n- [x] done in #1\n  - nested owner/repo#2\n\n',
    '| a | b |\n|:--|--:|\n| 1 | 2 |\n\n',
    '> quoted <b>html</b> <script>alert(1)</script>\n\n',
    '```js\nconst x = "<tag>";\n```\n\n',
    '1. one\n2. two ~~strike~~ mail@example.com https://example.com/x?y=1\n\n',
  ];
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const block = blocks[i % blocks.length]!;
    parts.push(block);
    length += block.length;
  }
  return parts.join('').slice(0, size);
}

const inputs: Array<[string, string, Partial<RenderRequest>?]> = [
  ['100k asterisks', '*'.repeat(100_000)],
  ['100k underscores between letters', 'a_'.repeat(50_000)],
  ['100k opening brackets', '['.repeat(100_000)],
  ['100k wiki openers in wiki mode', '[['.repeat(50_000), { wiki: true }],
  ['50k image openers', '!['.repeat(50_000)],
  ['25k unclosed link destinations', '[a]('.repeat(25_000)],
  ['100k backtick runs', '`a``'.repeat(25_000)],
  ['10k nested block quotes on one line', '>'.repeat(10_000) + ' deep'],
  ['10k lines of growing quote depth', Array.from({ length: 10_000 }, (_, i) => '> '.repeat(i % 100) + 'line').join('\n')],
  ['10k nested list markers on one line', '- '.repeat(10_000) + 'x'],
  ['10k lines of nested lists', Array.from({ length: 10_000 }, (_, i) => '  '.repeat(i % 60) + '- item').join('\n')],
  ['10k nested ordered lists', Array.from({ length: 10_000 }, (_, i) => '   '.repeat(i % 40) + '1. item').join('\n')],
  ['250k www. in a row', 'www.'.repeat(250_000)],
  ['200k nested raw divs', '<div>'.repeat(200_000)],
  ['100k raw spans closed wrongly', '<span></b>'.repeat(100_000)],
  ['1 MB of one resolved reference', '#1 '.repeat(MEGABYTE / 3), { mode: 'comment' }],
  ['1 MB of one mention', '@alice '.repeat(MEGABYTE / 7), { mode: 'comment' }],
  ['1 MB heading of spaces', '## a' + ' '.repeat(MEGABYTE) + 'b {#x}'],
  ['1 MB of mixed markdown', mixedDocument(MEGABYTE), { mode: 'comment', wiki: true }],
  ['256 KB table', '|a|b|\n|-|-|\n' + '|x|y|\n'.repeat(256 * 1024 / 6)],
  ['1 MB unterminated quoted CSV field', '"' + 'a,'.repeat(MEGABYTE / 2), { mode: 'file', filePath: 'x.csv' }],
  ['1 MB CSV', 'a,b,c\n'.repeat(MEGABYTE / 6), { mode: 'file', filePath: 'x.csv' }],
];

for (const [name, text, fields] of inputs) {
  t.test(name, async (t) => {
    const started = performance.now();
    const result = renderDocument(request({
      mentionable: ['alice'],
      issues: { 'gogits/gogs#1': { exists: true, isPull: false } },
      ...fields,
      text,
    }));
    const elapsed = performance.now() - started;
    t.equal(result.ok, true);
    t.ok(elapsed < BOUND_MS, `${text.length} characters rendered in ${elapsed.toFixed(0)} ms`);
  });
}

t.test('deep raw HTML is shown as text instead of being nested', async (t) => {
  const result = renderDocument(request({ text: '<div>'.repeat(2000) + 'inside' }));
  t.equal(result.ok, true);
  if (result.ok) {
    t.notMatch(result.html, /<div>/);
    t.match(result.html, /&lt;div&gt;/);
  }
});

t.test('moderate raw HTML nesting is kept', async (t) => {
  const result = renderDocument(request({ text: '<div>'.repeat(50) + 'inside' + '</div>'.repeat(50) }));
  t.same(result, { ok: true, html: '<div>'.repeat(50) + 'inside' + '</div>'.repeat(50) });
});

t.test('past 10000 reference links the rest stays text', async (t) => {
  const result = renderDocument(request({ mode: 'comment', mentionable: ['alice'], text: '@alice '.repeat(10_050) }));
  t.equal(result.ok, true);
  if (result.ok) t.equal(result.html.split('<a ').length - 1, 10_000);
});

t.test('the reference pre-scan is linear too', async (t) => {
  const texts = [
    '#1 '.repeat(MEGABYTE / 3), 'a'.repeat(MEGABYTE) + '/b#1', '@'.repeat(MEGABYTE), '@a' + '.'.repeat(MEGABYTE),
    '@x' + '._'.repeat(MEGABYTE / 2) + 'a', '_'.repeat(MEGABYTE) + 'o/r#1', mixedDocument(MEGABYTE),
  ];
  for (const text of texts) {
    const started = performance.now();
    extractReferenceCandidates(text, 'gogits/gogs');
    const elapsed = performance.now() - started;
    t.ok(elapsed < BOUND_MS, `${text.length} characters scanned in ${elapsed.toFixed(0)} ms`);
  }
});

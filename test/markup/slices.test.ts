// Large documents are parsed and rendered a slice of top-level blocks at a time (block-chunks.ts):
// the result must be exactly what markdown-it gives over one token list, and what spans slices
// (reference definitions after their use, heading ids, checkbox positions, raw HTML) must still hold.
import t from 'tap';
import type { Token } from 'markdown-it';
import { SLICE_TOKENS } from '../../workers/markup/block-chunks.js';
import { createMarkdown, renderMarkdown } from '../../workers/markup/markdown.js';
import { MAX_REFERENCE_LINKS, type RenderEnv } from '../../workers/markup/markdown-env.js';
import { renderDocument } from '../../workers/markup/render.js';
import { joinBlocks } from '../../workers/markup/trusted-blocks.js';
import type { MarkdownFlavour } from '../../workers/markup/types.js';
import { readFixture, request } from './helpers.js';

type RenderCases = { cases: Array<{ request: { text?: string } }> };

function environment(text: string, flavour: MarkdownFlavour): RenderEnv {
  return {
    flavour, appUrl: 'http://localhost:3000/', originalText: text, mentionable: new Set(['alice']), issues: {},
    links: { owner: 'gogits', repo: 'gogs', base: 'http://localhost:3000/gogits/gogs', refPath: '', treePath: '' },
    referenceLinkBudget: { remaining: MAX_REFERENCE_LINKS },
  };
}

/** Every fixture's text, twenty times over: tens of slices holding every construct the fixtures have. */
const fixtureTexts = readFixture<RenderCases>('render-cases.json').cases.map((c) => c.request.text ?? '').filter(Boolean);
const large = Array.from({ length: 20 }, () => fixtureTexts.join('\n\n')).join('\n\n');

t.test('sliced rendering equals markdown-it rendering the whole token list', async (t) => {
  for (const flavour of ['comment', 'document', 'wiki', 'raw'] as const) {
    for (const rawHtml of [true, false]) {
      const { md } = createMarkdown(flavour === 'comment', rawHtml);
      const whole = environment(large, flavour);
      const expected = md.renderer.render(md.parse(large, whole), md.options, whole);
      const sliced = joinBlocks(renderMarkdown(large, environment(large, flavour), rawHtml));
      t.ok(sliced === expected, `${flavour}, raw HTML ${rawHtml ? 'kept' : 'as text'}: ${sliced.length} and ${expected.length} characters`);
    }
  }
});

t.test('a large document reaches the renderer in bounded slices of whole blocks', async (t) => {
  const { parseInSlices } = createMarkdown(false, true);
  const slices: Token[][] = [];
  parseInSlices(large, environment(large, 'document'), (tokens) => slices.push(tokens));
  t.ok(slices.length >= 5, `${slices.length} slices`);
  for (const tokens of slices) {
    const depth = tokens.reduce((level, token) => level + token.nesting, 0);
    if (depth !== 0 || tokens.length > 2 * SLICE_TOKENS) t.fail(`a slice of ${tokens.length} tokens ends at depth ${depth}`);
  }
  t.ok(slices.every((tokens) => tokens.length > 0), 'no empty slice');
});

const filler = (blocks: number) => Array.from({ length: blocks }, (_, i) => `Paragraph ${i} with *some* text.`).join('\n\n');

t.test('a reference definition slices after its use still defines the link', async (t) => {
  const text = `See [the guide][guide] first.\n\n${filler(3 * SLICE_TOKENS)}\n\n[guide]: https://example.com/guide "Guide"\n`;
  const result = renderDocument(request({ text }));
  t.ok(result.ok && result.html.startsWith('<p>See <a href="https://example.com/guide" title="Guide" rel="nofollow">the guide</a> first.</p>'), 'linked');
  t.notMatch(result.ok ? result.html : '', /\[guide\]:/, 'the definition is not shown as text');
});

t.test('heading ids stay unique across slices', async (t) => {
  const text = Array.from({ length: 2 * SLICE_TOKENS }, () => '## Same').join('\n\n');
  const result = renderDocument(request({ text }));
  const ids = result.ok ? [...result.html.matchAll(/id="([^"]+)"/g)].map((m) => m[1]) : [];
  t.equal(ids.length, 2 * SLICE_TOKENS);
  t.equal(new Set(ids).size, ids.length, 'all different');
  t.equal(ids.at(-1), `user-content-same-${2 * SLICE_TOKENS - 1}`);
});

t.test('checkbox positions in a late slice count bytes of the original text', async (t) => {
  const head = `${filler(3 * SLICE_TOKENS)}\r\n\r\nÄ ü 😀\r\n\r\n`;
  const text = `${head}- [x] late task\r\n`;
  const result = renderDocument(request({ text }));
  const position = Buffer.byteLength(head) + 2;
  t.match(result.ok ? result.html : '', `<li class="task-list-item"><input type="checkbox" disabled="" data-source-position="${position}" checked=""/>late task</li>`);
});

t.test('raw HTML in a late slice is sanitised and the trusted blocks around it come back', async (t) => {
  const text = `${filler(3 * SLICE_TOKENS)}\n\n<div onclick="x()">raw <script>alert(1)</script></div>\n\nAfter **it**.\n`;
  const result = renderDocument(request({ text }));
  const html = result.ok ? result.html : '';
  t.notMatch(html, /script|onclick|trusted-/);
  t.match(html, '<div>raw </div>\n<p>After <strong>it</strong>.</p>\n');
  t.match(html, '<p>Paragraph 0 with <em>some</em> text.</p>\n');
});

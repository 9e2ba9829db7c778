// markdown-it's own output skips the sanitiser (trusted-blocks.ts). These tests fail if that lets
// anything through the sanitiser would have stopped, or changes a byte of what it would have written.
import fc from 'fast-check';
import t from 'tap';
import { repoLinksFor } from '../../workers/markup/context.js';
import { renderMarkdown } from '../../workers/markup/markdown.js';
import { MAX_REFERENCE_LINKS, type RenderEnv } from '../../workers/markup/markdown-env.js';
import { renderDocument } from '../../workers/markup/render.js';
import { sanitizeRenderedHtml, serialiseLikeGitea, trustedAttributes } from '../../workers/markup/sanitize.js';
import { joinBlocks, sanitizeAroundTrustedBlocks } from '../../workers/markup/trusted-blocks.js';
import type { MarkdownFlavour } from '../../workers/markup/types.js';
import { APP_URL, executableParts, request } from './helpers.js';

const ISSUES = { 'gogits/gogs#1': { exists: true, isPull: false } };

function environment(flavour: MarkdownFlavour, text: string): RenderEnv {
  return {
    flavour, appUrl: APP_URL, links: repoLinksFor('gogits/gogs', APP_URL, ''), mentionable: new Set(['alice']), issues: ISSUES,
    originalText: text, referenceLinkBudget: { remaining: MAX_REFERENCE_LINKS },
  };
}

const FLAVOURS: MarkdownFlavour[] = ['raw', 'comment', 'document', 'wiki'];

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

t.test('trusted attributes are exactly what the sanitiser keeps of the same element', async (t) => {
  const tags = ['a', 'img', 'h2', 'li', 'ol', 'th', 'td', 'code', 'input', 'p', 'pre'];
  const names = ['href', 'src', 'title', 'alt', 'id', 'name', 'class', 'target', 'rel', 'align', 'start', 'type', 'disabled',
    'checked', 'data-source-position', 'onclick', 'loading', 'width', 'cite', 'x y'];
  const values = ['', 'x', 'javascript:alert(1)', 'JaVa\tScRiPt:alert(1)', 'jav<!-- -->ascript:x', 'ms-settings:x', 'data:text/html,x',
    'data:image/png;base64,AA', ' https://e.com/?a=1&b="2"', '//evil.example', '\\\\evil.example', 'mailto:a@b.c', 'a.md#x',
    'task-list-item', 'ref-issue mention evil', 'language-js', "O'Brien <b>&amp;", '_blank', 'checkbox', 'CHECKBOX', 'user-content-x',
    'x y', 'İ', '12', 'nofollow', 'left'];
  const attributes = fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...values)), { maxLength: 5 });
  fc.assert(fc.property(fc.constantFrom(...tags), attributes, (tag, attrs) => {
    const isVoid = tag === 'img' || tag === 'input';
    const source = `<${tag}${attrs.map(([n, v]) => ` ${n}="${escapeAttribute(v)}"`).join('')}>${isVoid ? '' : `x</${tag}>`}`;
    const kept = trustedAttributes(tag, attrs.filter(([n]) => n !== 'x y'));
    const inner = isVoid ? '' : 'x';
    const ours = kept === null ? inner : `<${tag}${kept}${isVoid ? '/>' : `>${inner}</${tag}>`}`;
    const theirs = sanitizeRenderedHtml(source.replace(' x y=', ' xy='));
    if (ours !== theirs) throw new Error(`${source}\nours:   ${ours}\ntheirs: ${theirs}`);
  }), { numRuns: 3000 });
  t.pass('3000 random elements');
});

t.test('style and srcset, which markdown-it never writes, are dropped rather than parsed', async (t) => {
  t.equal(trustedAttributes('td', [['style', 'color: red'], ['align', 'left']]), ' align="left"');
  t.equal(trustedAttributes('img', [['srcset', 'a.png 1x'], ['src', 'a.png']]), ' src="a.png"');
});

// Markdown's special characters, URLs of every kind, entities and raw HTML.
const PIECES = [
  '<', '>', '[', ']', '[[', ']]', '(', ')', '*', '_', '`', '#', '@', '!', '|', '-', ' ', '\n', '\n\n', '\r\n', '\t', 'a', 'Z', '1', '/',
  ':', '"', "'", '=', '&', ';', '.', '\\', '~', '{#', '}', '\u0000', '\u0001', 'é', 'İ', '😀', '&#x6a;', '&quot;', '&amp;', '&#112;',
  'javascript:', 'data:image/png,', 'ms-settings:', 'mailto:', 'http://', 'https://e.com/a?b=1&c=2', 'www.', '//h', '@alice', '#1',
  'o/r#2', '- [ ] ', '- [x] ', '1. ', '> ', '```js\n', '```\n', '    ', '|---|', '| a | b |\n', '# ', '## ', '===', '---\n',
  '![', '](', ' "t")', '<div>', '</div>', '<p>', '</p>', '<b>', '</b>', '<a href="x">', '</a>', '<img src=x onerror=alert(1)>',
  '<script>', '</script>', '<!--', '-->', '<div title="', '<details>', '</details>', '<svg>', '<ul>', '<li>', '<table>', '<td>',
  '<pre>', '<textarea>', '<input type=checkbox>', '<br>', '<span style="color:red">',
];
const documents = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''));

// What markdown-it wrote: a document without raw HTML as it is served, else each trusted block. (The
// sanitiser's own output from raw HTML is not always a fixed point of it: `<p><x<td><details>` comes
// out as `<p><details></details></p>`, which it would close differently when given it again.)
t.test('the sanitiser would not change a byte of what markdown-it wrote', async (t) => {
  fc.assert(fc.property(documents, fc.constantFrom(...FLAVOURS), (text, flavour) => {
    const rendered = renderMarkdown(text, environment(flavour, text));
    // Each as it is served: serialised as Gitea writes it (sanitizeAroundTrustedBlocks does so too).
    const own = rendered.rawHtml ? rendered.blocks.map((b) => serialiseLikeGitea(b.html)) : [sanitizeAroundTrustedBlocks(rendered)];
    for (const html of own) {
      const again = sanitizeRenderedHtml(html);
      if (again !== html) throw new Error(`${JSON.stringify(text)}\nrendered:  ${html}\nsanitised: ${again}`);
    }
  }), { numRuns: 3000 });
  t.pass('3000 random documents');
});

t.test('sanitising around trusted blocks equals sanitising the whole document', async (t) => {
  fc.assert(fc.property(documents, fc.constantFrom(...FLAVOURS), (text, flavour) => {
    const rendered = renderMarkdown(text, environment(flavour, text));
    const fast = sanitizeAroundTrustedBlocks(rendered);
    const whole = sanitizeRenderedHtml(joinBlocks(rendered));
    if (fast !== whole) throw new Error(`${JSON.stringify(text)}\naround blocks: ${fast}\nwhole:         ${whole}`);
  }), { numRuns: 3000 });
  t.pass('3000 random documents');
});

const HOSTILE = [
  '<img src=x onerror=alert(1)>', '<script>alert(1)</script>', '<a href="javascript:alert(1)">y</a>', '<svg onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>', '<div style="background:url(javascript:alert(1))">z</div>', '<b onmouseover=alert(1)>b</b>',
];
const CONSTRUCTS = [
  '# X', 'Title X\n===', '- X', '1. X', '- [ ] X', '> X', '> - [x] **X**', '| X | b |\n|---|---|\n| c | X |', '**X** and _X_',
  '~~X~~', '[X](https://example.com)', '![X](i.png)', '[![X](i.png)](https://example.com)', 'text X more', 'a\nX\nb',
  '- a\n\n  X', '[[X|Page]]', '@alice X #1', 'X',
];

t.test('hostile raw HTML is neutralised inside every markdown construct', async (t) => {
  for (const construct of CONSTRUCTS) {
    for (const payload of HOSTILE) {
      const text = construct.replaceAll('X', payload);
      for (const mode of [{ mode: 'gfm' }, { mode: 'comment' }, { mode: 'gfm', wiki: true }, { kind: 'markdown' as const, mode: 'markdown' }]) {
        const result = renderDocument(request({ ...mode, text, mentionable: ['alice'], issues: ISSUES }));
        if (!result.ok || executableParts(result.html).length > 0) t.fail(`${JSON.stringify(text)} ${JSON.stringify(mode)}: ${JSON.stringify(result)}`);
      }
      // A wiki link's label is text, never HTML; everywhere else the payload is raw HTML.
      const rendered = renderMarkdown(text, environment('wiki', text));
      if (!rendered.rawHtml) t.notMatch(rendered.html, /<[^>]*alert/, `${JSON.stringify(text)}: the payload is in no tag of trusted output`);
      else if (rendered.blocks.some((block) => /alert/.test(block.html))) t.fail(`${JSON.stringify(text)}: a trusted block holds the payload`);
    }
  }
});

t.test('markdown without raw HTML never reaches the sanitiser', async (t) => {
  const rendered = renderMarkdown('# T\n\n- [x] a [l](https://e.com) <https://e.org>\n\n```\n<b>\n```\n\n`<i>` \\<b>', environment('comment', ''));
  t.equal(rendered.rawHtml, false);
});

t.test('raw HTML that swallows the blocks after it is sanitised as one document', async (t) => {
  for (const opening of ['<div title="', '<script>', '<!--', '<textarea>', '<div onclick="']) {
    const text = `${opening}\n\n# Heading\n\n- [x] item [l](https://example.com)\n\n<p>"end"</p>`;
    const rendered = renderMarkdown(text, environment('document', text));
    t.equal(sanitizeAroundTrustedBlocks(rendered), sanitizeRenderedHtml(joinBlocks(rendered)), opening);
  }
});

t.test('raw elements around trusted blocks close as they would around the real block', async (t) => {
  const result = renderDocument(request({ text: '<details><summary>More</summary>\n\n**bold** [x](https://e.com)\n\n- a\n\n</details>\n\n<p>\n\n# After' }));
  t.same(result, {
    ok: true,
    html: '<details><summary>More</summary>\n<p><strong>bold</strong> <a href="https://e.com" rel="nofollow">x</a></p>\n<ul>\n<li>a</li>\n</ul>\n</details>\n<p>\n</p><h1 id="user-content-after">After</h1>\n',
  });
});

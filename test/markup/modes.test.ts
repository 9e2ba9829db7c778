// Mode rules of /markup, /markdown and /markdown/raw: which renderer runs, and the exact 422 bodies.
import t from 'tap';
import { planRender } from '../../workers/markup/modes.js';
import { renderDocument } from '../../workers/markup/render.js';
import { request } from './helpers.js';

const WIKI_TEXT = '[[Guide|Install-Guide]]';
const WIKI_LINK = '<p><a href="http://localhost:3000/gogits/gogs/wiki/Install-Guide" rel="nofollow">Guide</a></p>\n';
const LITERAL = '<p>[[Guide|Install-Guide]]</p>\n';

t.test('unknown modes get the exact plain-text 422 body', async (t) => {
  t.same(renderDocument(request({ mode: 'unknown', text: '## Test' })), { ok: false, status: 422, message: 'Unknown mode: unknown\n' });
  t.same(renderDocument(request({ mode: 'GFM', text: 'x' })), { ok: false, status: 422, message: 'Unknown mode: GFM\n' }, 'modes are case-sensitive');
  t.same(renderDocument(request({ kind: 'markdown', mode: 'file', filePath: 'a.md', text: 'x' })), { ok: false, status: 422, message: 'Unknown mode: file\n' });
  t.same(renderDocument(request({ mode: 'rst', text: '' })), { ok: true, html: '' }, 'empty text wins over the mode check');
});

t.test('every documented mode is accepted by its endpoint', async (t) => {
  for (const mode of ['gfm', 'comment', 'file', 'markdown', 'wiki', '']) {
    t.equal(renderDocument(request({ kind: 'markup', mode, filePath: 'a.md', text: 'x' })).ok, true, `markup ${JSON.stringify(mode)}`);
  }
  for (const mode of ['gfm', 'comment', 'markdown', 'wiki', '']) {
    t.equal(renderDocument(request({ kind: 'markdown', mode, text: 'x' })).ok, true, `markdown ${JSON.stringify(mode)}`);
  }
});

t.test('file mode picks the renderer by extension, ignoring case', async (t) => {
  for (const filePath of ['a.md', 'dir/A.MD', 'x.markdown', 'x.mdown', 'x.mkd', 'x.livemd', 'x.Md']) {
    t.same(planRender({ kind: 'markup', mode: 'file', wiki: false, filePath }), { renderer: 'markdown', flavour: 'document' }, filePath);
  }
  for (const filePath of ['a.csv', 'A.CSV', 'b.tsv', 'dir.md/b.TSV']) {
    t.same(planRender({ kind: 'markup', mode: 'file', wiki: false, filePath }), { renderer: 'csv' }, filePath);
  }
});

t.test('other extensions get the exact plain-text 422 body', async (t) => {
  t.same(renderDocument(request({ mode: 'file', filePath: 'path/test.unknown', text: '## Test' })), { ok: false, status: 422, message: 'Unsupported render extension: .unknown\n' });
  t.same(renderDocument(request({ mode: 'file', filePath: 'Notes.TXT', text: 'x' })), { ok: false, status: 422, message: 'Unsupported render extension: .txt\n' }, 'reported lower-cased');
  t.same(renderDocument(request({ mode: 'file', filePath: 'Makefile', text: 'x' })), { ok: false, status: 422, message: 'Unsupported render extension: \n' }, 'no extension');
  t.same(renderDocument(request({ mode: 'file', filePath: 'v1.2/readme', text: 'x' })), { ok: false, status: 422, message: 'Unsupported render extension: \n' }, 'a dot in a directory is not an extension');
  t.same(renderDocument(request({ mode: 'file', filePath: 'x.org', text: '' })), { ok: true, html: '' }, 'empty text wins over the extension check');
});

t.test('empty text renders an empty body in every valid mode', async (t) => {
  for (const mode of ['gfm', 'comment', 'markdown', 'wiki', '']) {
    t.same(renderDocument(request({ mode, text: '' })), { ok: true, html: '' }, mode);
  }
  t.same(renderDocument(request({ mode: 'file', filePath: 'a.csv', text: '' })), { ok: true, html: '' });
});

t.test('wiki syntax only with Wiki (or mode wiki), never in mode markdown', async (t) => {
  const cases: Array<[string, boolean, string]> = [
    ['gfm', true, WIKI_LINK], ['gfm', false, LITERAL],
    ['comment', true, WIKI_LINK], ['comment', false, LITERAL],
    ['wiki', false, WIKI_LINK], ['', true, WIKI_LINK], ['', false, LITERAL],
    ['markdown', true, LITERAL], ['markdown', false, LITERAL],
  ];
  for (const [mode, wiki, html] of cases) {
    t.same(renderDocument(request({ mode, wiki, text: WIKI_TEXT })), { ok: true, html }, `mode ${JSON.stringify(mode)} wiki ${wiki}`);
  }
  t.same(renderDocument(request({ mode: 'file', filePath: 'Home.md', wiki: true, text: WIKI_TEXT })), { ok: true, html: WIKI_LINK });
  t.same(renderDocument(request({ kind: 'markdown', mode: 'markdown', wiki: true, text: WIKI_TEXT })), { ok: true, html: LITERAL }, '/markdown/raw');
});

t.test('line breaks: hard in comments, soft elsewhere', async (t) => {
  t.same(renderDocument(request({ mode: 'comment', text: 'a\nb' })), { ok: true, html: '<p>a<br/>\nb</p>\n' });
  for (const mode of ['gfm', 'markdown', 'wiki', '']) {
    t.same(renderDocument(request({ mode, text: 'a\nb' })), { ok: true, html: '<p>a\nb</p>\n' }, mode);
  }
});

t.test('CSV and TSV in file mode', async (t) => {
  t.same(renderDocument(request({ mode: 'file', filePath: 'a.csv', text: '1,2' })), {
    ok: true, html: '<table class="data-table"><tr><th class="line-num">1</th><th>1</th><th>2</th></tr></table>',
  });
  t.same(renderDocument(request({ mode: 'file', filePath: 'a.tsv', text: '1,2\t3' })), {
    ok: true, html: '<table class="data-table"><tr><th class="line-num">1</th><th>1,2</th><th>3</th></tr></table>',
  });
});

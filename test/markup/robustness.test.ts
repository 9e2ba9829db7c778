// Random documents built from markdown's special characters: rendering never throws, never leaves
// anything executable, and the pre-scan never misses a reference the renderer would link.
import fc from 'fast-check';
import t from 'tap';
import { renderDocument } from '../../workers/markup/render.js';
import { extractReferenceCandidates } from '../../workers/markup/references.js';
import type { RenderRequest } from '../../workers/markup/types.js';
import { executableParts, request } from './helpers.js';

const PIECES = [
  '<', '>', '[', ']', '[[', ']]', '(', ')', '*', '_', '`', '#', '@', '!', '|', '-', ' ', '\n', '\r\n', '\t', 'a', 'Z', '1', '/',
  ':', '"', "'", '=', '&', ';', '.', '\\', '~', '{', '}', '\u0000', 'é', '😀', 'javascript:', 'data:', 'script', 'img', 'svg',
  ' src=', ' href=', ' onerror=', 'www.', 'http://', 'alert(1)', '@alice', '#1', 'o/r#2', '- [ ] ', '> ', '```', '|---|', '&#x6a;',
];
const documents = fc.array(fc.constantFrom(...PIECES), { maxLength: 80 }).map((parts) => parts.join(''));
const modes = fc.constantFrom<Partial<RenderRequest>>(
  { mode: 'gfm' }, { mode: 'comment' }, { mode: 'gfm', wiki: true }, { kind: 'markdown', mode: 'markdown' }, { mode: 'file', filePath: 'x.csv' },
);
const EVERY_ISSUE = Object.fromEntries([['gogits/gogs#1', { exists: true, isPull: false }], ['o/r#2', { exists: true, isPull: true }]]);

t.test('no exception and nothing executable, whatever the input', async (t) => {
  fc.assert(fc.property(documents, modes, (text, mode) => {
    const result = renderDocument(request({ ...mode, text, mentionable: ['alice'], issues: EVERY_ISSUE }));
    return result.ok && executableParts(result.html).length === 0;
  }), { numRuns: 1500 });
  t.pass('1500 random documents');
});

t.test('links made with the pre-scan lists equal links made knowing everything', async (t) => {
  fc.assert(fc.property(documents, (text) => {
    const found = extractReferenceCandidates(text, 'gogits/gogs');
    const issues = Object.fromEntries(found.issues.filter((key) => key in EVERY_ISSUE).map((key) => [key, EVERY_ISSUE[key]!]));
    const mentionable = found.mentions.filter((name) => name === 'alice');
    const withScan = renderDocument(request({ mode: 'comment', text, mentionable, issues }));
    const knowingAll = renderDocument(request({ mode: 'comment', text, mentionable: ['alice'], issues: EVERY_ISSUE }));
    return JSON.stringify(withScan) === JSON.stringify(knowingAll);
  }), { numRuns: 1500 });
  t.pass('1500 random documents');
});

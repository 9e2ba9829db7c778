import fc from 'fast-check';
import { renderDocument } from './.build-markup/workers/markup/render.js';
import { extractReferenceCandidates } from './.build-markup/workers/markup/references.js';
import { executableParts, request } from './.build-markup/test/markup/helpers.js';
const PIECES = ['<', '>', '[', ']', '[[', ']]', '(', ')', '*', '_', '`', '#', '@', '!', '|', '-', ' ', '\n', '\r\n', '\t', 'a', 'Z', '1', '/', ':', '"', "'", '=', '&', ';', '.', '\\', '~', '{', '}', '\u0000', 'é', '😀', 'javascript:', 'data:', 'script', 'img', 'svg', ' src=', ' href=', ' onerror=', 'www.', 'http://', 'alert(1)', '@alice', '#1', 'o/r#2', '- [ ] ', '> ', '```', '|---|', '&#x6a;', '<a ', '<svg', '<img', '</', '/>', 'noscript', 'style', '<!--', '-->', '<![CDATA[', ']]>', 'xlink:href', 'math', 'mglyph', 'title', '**', '~~', '\\#', '(@alice)', 'owner/repo', '!2', '"#1"', '@alice.', '@alice..', 'x@alice', '#12', 'o/r!2'];
const documents = fc.array(fc.constantFrom(...PIECES), { maxLength: 120 }).map((p) => p.join(''));
const EVERY = { 'gogits/gogs#1': { exists: true, isPull: false }, 'o/r#2': { exists: true, isPull: true } };
const modes = fc.constantFrom({ mode: 'gfm' }, { mode: 'comment' }, { mode: 'gfm', wiki: true }, { kind: 'markdown', mode: 'markdown' });
fc.assert(fc.property(documents, modes, (text, mode) => { const r = renderDocument(request({ ...mode, text, mentionable: ['alice'], issues: EVERY })); const p = r.ok ? executableParts(r.html) : ['fail']; if (p.length) console.log(JSON.stringify(text), p); return p.length === 0; }), { numRuns: 60000 });
console.log('xss ok');
fc.assert(fc.property(documents, (text) => {
  const found = extractReferenceCandidates(text, 'gogits/gogs');
  const issues = Object.fromEntries(found.issues.filter((k) => k in EVERY).map((k) => [k, EVERY[k]]));
  const a = renderDocument(request({ mode: 'comment', text, mentionable: found.mentions.filter((n) => n === 'alice'), issues }));
  const b = renderDocument(request({ mode: 'comment', text, mentionable: ['alice'], issues: EVERY }));
  if (JSON.stringify(a) !== JSON.stringify(b)) console.log(JSON.stringify(text), found);
  return JSON.stringify(a) === JSON.stringify(b);
}), { numRuns: 60000 });
console.log('refs ok');

// The XSS corpus: whatever the payload and the mode, the HTML must carry nothing a browser runs.
import t from 'tap';
import { renderDocument } from '../../workers/markup/render.js';
import type { RenderRequest } from '../../workers/markup/types.js';
import { executableParts, readFixture, request } from './helpers.js';

type Payload = { name: string; text: string };
const { payloads } = readFixture<{ payloads: Payload[] }>('xss-payloads.json');

const MODES: Array<Partial<RenderRequest>> = [
  { mode: 'gfm' },
  { mode: 'comment', mentionable: ['alice'] },
  { mode: 'gfm', wiki: true },
  { kind: 'markdown', mode: 'markdown' },
  { mode: 'file', filePath: 'README.md' },
  { mode: 'file', filePath: 'data.csv' },
];

t.test('the corpus holds at least 30 payloads', async (t) => {
  t.ok(payloads.length >= 30, `${payloads.length} payloads`);
});

t.test('the checker itself finds what it must', async (t) => {
  t.ok(executableParts('<img src=x onerror="alert(1)">').length > 0);
  t.ok(executableParts('<a href="jav&#x09;ascript:alert(1)">').length > 0);
  t.ok(executableParts('<svg onload="x">').length > 0);
  t.ok(executableParts('<iframe src="x">').length > 0);
  t.same(executableParts('<p>javascript:alert(1) &lt;script&gt;</p>'), [], 'escaped text is not executable');
});

for (const payload of payloads) {
  t.test(payload.name, async (t) => {
    for (const mode of MODES) {
      const result = renderDocument(request({ ...mode, text: payload.text }));
      t.equal(result.ok, true, `${JSON.stringify(mode)} renders`);
      if (!result.ok) continue;
      t.same(executableParts(result.html), [], `${JSON.stringify(mode)}: ${result.html}`);
    }
  });
}

t.test('links that stay get rel="nofollow", and noopener with target=_blank', async (t) => {
  const result = renderDocument(request({ text: '<a href="https://example.com" target="_blank" rel="opener">x</a> [y](https://example.org)' }));
  t.same(result, {
    ok: true,
    html: '<p><a href="https://example.com" target="_blank" rel="opener nofollow noopener">x</a> <a href="https://example.org" rel="nofollow">y</a></p>\n',
  });
});

t.test('schemes outside the allowlist lose their URL, ordinary ones keep it', async (t) => {
  const result = renderDocument(request({ text: '<a href="ms-settings:x">a</a> <a href="mailto:a@example.com">b</a> <a href="irc://irc.example.net/chan">c</a>' }));
  t.same(result, {
    ok: true,
    html: '<p><a rel="nofollow">a</a> <a href="mailto:a@example.com" rel="nofollow">b</a> <a href="irc://irc.example.net/chan" rel="nofollow">c</a></p>\n',
  });
});

// The compatibility fixture set: each request's output must match the expected HTML exactly.
import t from 'tap';
import { renderDocument } from '../../workers/markup/render.js';
import type { RenderRequest } from '../../workers/markup/types.js';
import { readFixture } from './helpers.js';

type RenderCase = {
  name: string;
  request: Partial<RenderRequest>;
  expect: { html: string } | { status: 422; message: string };
};
type RenderCases = { defaults: RenderRequest; cases: RenderCase[] };

const { defaults, cases } = readFixture<RenderCases>('render-cases.json');

t.test('the fixture set is large enough to cover the rules', async (t) => {
  t.ok(cases.length >= 40, `${cases.length} cases`);
  t.equal(new Set(cases.map((c) => c.name)).size, cases.length, 'case names are unique');
});

for (const fixture of cases) {
  t.test(fixture.name, async (t) => {
    const result = renderDocument({ ...defaults, ...fixture.request });
    if ('html' in fixture.expect) {
      t.same(result, { ok: true, html: fixture.expect.html });
    } else {
      t.same(result, { ok: false, status: fixture.expect.status, message: fixture.expect.message });
    }
  });
}

t.test('rendering is pure: the same request twice gives the same answer', async (t) => {
  for (const fixture of cases.slice(0, 20)) {
    const req = { ...defaults, ...fixture.request };
    t.same(renderDocument(req), renderDocument(req), fixture.name);
  }
});

// Which licenses a LICENSE file holds, among the 28 Gitea 1.26 knows (its options/license set,
// which its classifier matches against at 85% confidence). The texts come from the SPDX list
// (npm `spdx-license-list`). A license matches when 85% of its word pairs appear in the file;
// a match that is mostly the text of a larger match (BSD-2-Clause inside BSD-3-Clause, 0BSD inside
// ISC) is dropped. Pure and cached by content: the same blob is never classified twice.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Gitea 1.26's license templates, the set its detection reports from. */
export const DETECTABLE_LICENSES: readonly string[] = [
  '0BSD', 'AGPL-3.0', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', 'BSD-3-Clause-Clear', 'BSL-1.0', 'CC-BY-4.0', 'CC-BY-SA-4.0',
  'CC0-1.0', 'EPL-1.0', 'EPL-2.0', 'EUPL-1.2', 'GPL-2.0', 'GPL-3.0', 'ISC', 'LGPL-2.1', 'LGPL-3.0', 'MIT', 'MIT-0', 'MPL-2.0',
  'MulanPSL-2.0', 'OFL-1.1', 'OSL-3.0', 'UPL-1.0', 'Unlicense', 'WTFPL', 'Zlib',
];

const THRESHOLD = 0.85;
/** Word ids of the license texts; a file's other words cannot match anything and get none. */
const vocabulary = new Map<string, number>();

interface Template {
  id: string;
  pairs: Set<number>;
}

let templates: Template[] | undefined;

function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** Word pairs as numbers (two word ids side by side); pairs with an unknown word are left out. */
function pairsOf(text: string, learn: boolean): Set<number> {
  const ids = words(text).map((w) => {
    let id = vocabulary.get(w);
    if (id === undefined && learn) vocabulary.set(w, (id = vocabulary.size + 1));
    return id ?? 0;
  });
  const pairs = new Set<number>();
  for (let i = 1; i < ids.length; i++) if (ids[i - 1]! > 0 && ids[i]! > 0) pairs.add(ids[i - 1]! * 1_048_576 + ids[i]!);
  return pairs;
}

function loadTemplates(): Template[] {
  const root = join(dirname(require.resolve('spdx-license-list/package.json')), 'licenses');
  return DETECTABLE_LICENSES.map((id) => {
    const { licenseText } = JSON.parse(readFileSync(join(root, `${id}.json`), 'utf8')) as { licenseText: string };
    return { id, pairs: pairsOf(licenseText, true) };
  });
}

function shared(a: Set<number>, b: Set<number>): number {
  let n = 0;
  for (const p of a) if (b.has(p)) n++;
  return n;
}

const byContent = new Map<string, string[]>();
const MAX_CACHED = 1_000;

/** The licenses in `text`, by SPDX id in Gitea's spelling; `contentKey` (a blob id) caches the answer. */
export function detectLicenses(text: string, contentKey?: string): string[] {
  const cached = contentKey ? byContent.get(contentKey) : undefined;
  if (cached) return [...cached];
  templates ??= loadTemplates();
  const file = pairsOf(text, false);
  const matched = templates
    .map((t) => ({ t, coverage: t.pairs.size === 0 ? 0 : shared(t.pairs, file) / t.pairs.size }))
    .filter((m) => m.coverage >= THRESHOLD);
  const kept = matched.filter((x) => !matched.some((y) => y !== x
    && shared(x.t.pairs, y.t.pairs) / x.t.pairs.size >= THRESHOLD
    && (y.coverage > x.coverage + 0.02 || (y.coverage >= x.coverage - 0.02 && y.t.pairs.size > x.t.pairs.size))));
  const ids = kept.map((m) => m.t.id).sort();
  if (contentKey) {
    if (byContent.size >= MAX_CACHED) byContent.delete(byContent.keys().next().value!);
    byContent.set(contentKey, ids);
  }
  return [...ids];
}

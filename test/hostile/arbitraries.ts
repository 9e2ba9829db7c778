// Generators of hostile requests for one route: path segments, query strings, bodies and headers,
// mixing real values (so requests get past the lookups) with the inputs that break parsers.
import fc from 'fast-check';
import type { HostileWorld, Route } from './world.js';

/** Inputs known to trip path, ref-name, number and encoding handling. */
export const NASTY = [
  '..', '%2e%2e', '%2E%2E%2F', '-x', '--upload-pack=touch /tmp/pwned', '@{', 'HEAD@{1}', 'a..b', '.', '.lock', 'x.lock', '%00', '%ff', '%',
  '%%', '~1', '^', ':', '%3F', '%23', '1e12', '-5', '0', '-0', '99999999999999999999999', '1.5', 'NaN', 'Infinity', 'main', 'feature',
  'x'.repeat(3000), '\u202e', '😀', 'refs/heads/main', 'a/../../etc/passwd', '.git', 'widget.git', 'ALICE', 'null', '[]', '{}', 'true',
  '%C0%AE', '%e2%80%ae', 'a b', 'a\tb', 'feature/../main', '/', '//', '\\', 'con', 'HEAD', 'origin/main', '*', '?',
  // Integers Go's ParseInt takes or refuses: every integer path id must be read as Gitea reads it.
  '+1', '007', '1.0', '1e3', '0x10', '1_000', '9223372036854775807', '9223372036854775808', '-9223372036854775809', ' 1', '1 ', '١', '１', '1.diff', '1.0.patch',
];

/** Escapes what a URL can carry; a lone surrogate cannot be escaped and is sent as the raw string. */
function escape(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s;
  }
}

const text = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\n', '\r', '\u001b', '\u007f', '/', '.', '-', '@', '{', '%'), maxLength: 12 }),
  fc.integer().map(String),
  fc.double().map(String),
);

/** One path segment: the real value, or a hostile one sent raw (already URL-ish) or escaped. */
function segment(real: string | undefined): fc.Arbitrary<string> {
  const hostile = fc.tuple(text, fc.boolean()).map(([s, raw]) => (raw && /^[\x21-\x7e]*$/.test(s) ? s : escape(s)));
  return real === undefined ? hostile : fc.oneof({ weight: 2, arbitrary: fc.constant(real) }, { weight: 3, arbitrary: hostile });
}

/**
 * A path for the route; with `keepReal` parameters may keep their real values. Half the paths have
 * exactly one hostile parameter and the others real, so the hostile value reaches the handler
 * instead of stopping at the repository lookup.
 */
export function pathFor(route: Route, w: HostileWorld, keepReal: boolean): fc.Arbitrary<string> {
  const names = (route.pattern.match(/:[A-Za-z_]+|\*/g) ?? []).map((n) => (n === '*' ? '*' : n.slice(1)));
  const parts = names.map((name) => {
    const s = segment(keepReal ? w.real[name] : undefined);
    // The wildcard takes nested names too.
    return name === '*' || name === route.wildcard ? fc.oneof(s, fc.array(s, { minLength: 2, maxLength: 3 }).map((a) => a.join('/'))) : s;
  });
  const onlyOne = keepReal && names.length > 1 && names.every((n) => w.real[n] !== undefined);
  return fc.tuple(fc.tuple(...parts), fc.nat({ max: Math.max(0, names.length - 1) }), fc.boolean()).map(([values, hostileAt, single]) => {
    let i = 0;
    return route.pattern.replace(/:[A-Za-z_]+|\*/g, () => {
      const at = i++;
      return onlyOne && single && at !== hostileAt ? w.real[names[at]] : values[at] ?? '';
    });
  });
}

const COMMON_QUERY = ['page', 'limit', 'sudo', 'token', 'access_token', 'state', 'sort', 'style', 'type', 'q'];

export function queryFor(route: Route): fc.Arbitrary<string> {
  const keys = [...new Set([...route.query, ...COMMON_QUERY])];
  const value = fc.oneof(text, fc.constantFrom('1e12', '-5', '0', '', '', ' ', '1', '50', '[]', 'a&b=c', '%2B1', '+1', '1.0', 'on', 'True', 'bogus', '9223372036854775808'));
  return fc.array(fc.tuple(fc.constantFrom(...keys), value), { maxLength: 4 }).map((pairs) =>
    pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${escape(v)}`).join('&')}`);
}

/** What a Go client sends for a field it leaves unset: the zero value, or null for pointers and slices. */
const goZero = fc.constantFrom<unknown>(null, '', 0, false, [], {}, [null], [{}], { name: null }, [{ path: null, body: '' }]);

/** Wrong types, huge numbers, deep nesting, long strings: anything JSON can carry. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  text,
  goZero,
  fc.constantFrom(1e308, -1e308, 2 ** 63, -(2 ** 53) - 7, 0, -1, 1.5, null, true, false, [], {}, 'x'.repeat(70_000)),
  fc.array(fc.oneof(text, fc.integer()), { maxLength: 5 }),
  fc.jsonValue({ maxDepth: 3 }),
);

export function bodyFor(route: Route): fc.Arbitrary<unknown> {
  const props = route.bodyProps.length > 0 ? route.bodyProps : ['name', 'title', 'body'];
  return fc.oneof(
    fc.dictionary(fc.constantFrom(...props), hostileValue, { maxKeys: props.length }),
    // A Go client's body: every field, most of them zero.
    fc.tuple(...props.map(() => fc.oneof({ weight: 3, arbitrary: goZero }, { weight: 1, arbitrary: hostileValue }))).map((values) => Object.fromEntries(props.map((p, i) => [p, values[i]]))),
    fc.jsonValue({ maxDepth: 4 }),
    fc.constant(JSON.parse(`${'['.repeat(500)}${']'.repeat(500)}`)),
  );
}

/** Bodies a JSON parser meets from Go clients and broken ones: empty, blank, null, trailing data. */
export const rawJsonText = fc.constantFrom('', ' ', ' \n\t', 'null', '{}', '{} trailing', '{"a":1} {"b":2}', '{"title":', '[', '"x"', '0', '\ufeff{}');

export type Identity = 'alice' | 'bob' | 'root' | 'basic-alice' | 'anonymous' | 'garbage';

export function headersFor(w: HostileWorld, who: Identity, garbage: string, sudo: string | null): Record<string, string> {
  const h: Record<string, string> = {};
  if (who === 'alice' || who === 'bob' || who === 'root') h.authorization = `token ${w.tokens[who]}`;
  if (who === 'basic-alice') h.authorization = `Basic ${Buffer.from('alice:correct-horse-battery').toString('base64')}`;
  if (who === 'garbage') h.authorization = garbage;
  if (sudo !== null) h.sudo = sudo;
  return h;
}

/** Header values a client can actually send (HTTP forbids control characters other than tab). */
export const headerText = fc.oneof(
  fc.constantFrom('token', 'token ', 'Bearer', 'Basic', 'Basic !!!', 'Basic Og==', `Basic ${Buffer.from(':').toString('base64')}`, 'token a.b.c', 'bearer eyJ.eyJ.sig',
    'token ' + 'f'.repeat(40), 'token 12345', 'token a b', `Basic ${Buffer.from('alice').toString('base64')}`, 'x'.repeat(8000), 'root', 'ALICE', '-x', '..'),
  fc.string({ unit: fc.constantFrom(...'abcXYZ019 .:-_/=+@{}%'.split('')), maxLength: 40 }),
);

export const identity = fc.constantFrom<Identity>('alice', 'alice', 'alice', 'bob', 'root', 'basic-alice', 'anonymous', 'garbage');

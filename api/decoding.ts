// The decoding rule Gitea's clients rely on, for every route, applied before validation. Gitea
// decodes bodies with Go's encoding/json into option structs (null is the zero value; handlers take
// the zero value as "not given") and reads query and path values with strconv (a value that does
// not parse is the zero value). Route schemas stay plain TypeBox; this module reads them.
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

type Schema = Record<string, unknown>;

/** The one validator the API uses; the options Fastify had, plus the formats. */
export const ajv = new Ajv({
  removeAdditional: true,
  coerceTypes: 'array',
  useDefaults: true,
  allErrors: false,
  // OpenAPI annotations (x-nullable, title, x-extension...) are documentation, not validation.
  strictSchema: false,
});
// ajv-formats is CommonJS whose default export is the plugin itself.
(formats as unknown as { default: (a: Ajv) => void }).default(ajv);

const compiled = new WeakMap<Schema, ValidateFunction>();
export function validatorOf(schema: Schema): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const asSchema = (v: unknown): Schema | undefined => (isObject(v) ? v : undefined);

/** Whether "" passes the schema as the API validates it (with coercion): only then is "" a value. */
const emptyAccepted = new WeakMap<Schema, boolean>();
function acceptsEmptyString(schema: Schema): boolean {
  let ok = emptyAccepted.get(schema);
  if (ok === undefined) {
    const holder = { v: '' as unknown };
    ok = validatorOf(schema)(holder.v, { parentData: holder, parentDataProperty: 'v' } as never);
    emptyAccepted.set(schema, ok);
  }
  return ok;
}

/** The variants of a union (anyOf/oneOf), or the schema itself. */
function variants(schema: Schema): Schema[] {
  const list = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  return Array.isArray(list) ? list.flatMap((s) => (asSchema(s) ? variants(s as Schema) : [])) : [schema];
}

function typesOf(schema: Schema): string[] {
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

/** The variant that describes an object or array value, to decode inside it. */
function variantFor(schema: Schema, value: object): Schema | undefined {
  const kind = Array.isArray(value) ? 'array' : 'object';
  return variants(schema).find((v) => typesOf(v).includes(kind) || (kind === 'object' ? isObject(v.properties) : v.items !== undefined));
}

/**
 * Go's view of a JSON body, in place: an optional field that is null, or "" where "" is not a
 * valid value, is dropped ("not given"), at every depth; so is a required field, which then fails
 * as missing (Gitea's "[Field]: Required"); so is a field the schema does not know.
 */
export function decodeGoJson(schema: Schema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    if (items) for (const item of value) if (typeof item === 'object' && item !== null) decodeAt(items, item);
    return value;
  }
  if (!isObject(value)) return value;
  const properties = asSchema(schema.properties);
  if (!properties) return value;
  // A struct ignores fields it does not have; only a schema that says so (a map) keeps them.
  const closed = schema.additionalProperties === undefined && schema.patternProperties === undefined;
  for (const [name, raw] of Object.entries(value)) {
    const property = asSchema(properties[name]);
    if (!property) {
      if (closed) delete value[name];
      continue;
    }
    if (raw === null || (raw === '' && !acceptsEmptyString(property))) delete value[name];
    else if (typeof raw === 'object') decodeAt(property, raw);
  }
  return value;
}

function decodeAt(schema: Schema, value: object): void {
  const variant = variantFor(schema, value);
  if (variant) decodeGoJson(variant, value);
}

/**
 * The text of the first JSON value in a body: Go's json.Decoder reads one value and never looks at
 * what follows it, so `{"title":"x"} trailing` is a body with a title.
 */
export function firstJsonValue(text: string): string {
  const start = text.search(/[^ \t\r\n]/);
  if (start < 0 || (text[start] !== '{' && text[start] !== '[')) return text;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return text.slice(0, i + 1);
  }
  return text;
}

const GO_INTEGER = /^[+-]?[0-9]+$/;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * strconv.ParseInt(s, 10, 64) as Gitea reads it (errors ignored): a decimal integer, clamped to the
 * int64 range when it overflows; anything else is 0.
 */
export function goParseInt(s: string): number {
  if (!GO_INTEGER.test(s)) return 0;
  let n = BigInt(s);
  if (n > INT64_MAX) n = INT64_MAX;
  if (n < INT64_MIN) n = INT64_MIN;
  return Number(n);
}

/** strconv.ParseBool, plus the "on" Gitea's FormBool also takes; anything else is false. */
export function goFormBool(s: string): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s) || s.toLowerCase() === 'on';
}

function isIntegerSchema(schema: Schema): boolean {
  return variants(schema).some((v) => typesOf(v).includes('integer'));
}

/** The closed set of values an enumeration-like schema takes (literals, enum, const), or undefined. */
function enumValues(schema: Schema): unknown[] | undefined {
  const values: unknown[] = [];
  for (const v of variants(schema)) {
    if ('const' in v) values.push(v.const);
    else if (Array.isArray(v.enum)) values.push(...(v.enum as unknown[]));
    else return undefined;
  }
  return values;
}

/**
 * The path parameters as Gitea reads them: every integer parameter through ParseInt, so `1.0`,
 * `1e3` and `abc` are 0 and the lookup answers (404 for an id that names nothing); no bounds.
 */
export function pathSchemaForGo(schema: Schema): { schema: Schema; integers: string[] } {
  const properties = asSchema(schema.properties) ?? {};
  const integers = Object.keys(properties).filter((name) => isIntegerSchema(properties[name] as Schema));
  if (integers.length === 0) return { schema, integers };
  const unbounded = Object.fromEntries(Object.entries(properties).map(([name, p]) => {
    if (!integers.includes(name)) return [name, p];
    const { minimum: _min, maximum: _max, exclusiveMinimum: _emin, exclusiveMaximum: _emax, ...rest } = p as Schema;
    return [name, rest];
  }));
  return { schema: { ...schema, properties: unbounded }, integers };
}

export function decodeGoPath(integers: string[], params: Record<string, unknown>): Record<string, unknown> {
  const out = { ...params };
  for (const name of integers) if (typeof out[name] === 'string') out[name] = goParseInt(out[name] as string);
  return out;
}

/**
 * The query string as Gitea's handlers read it (FormString, FormInt, FormBool, switch defaults):
 * a repeated key counts once unless the parameter is a list; an empty value is not given; an
 * integer or boolean that does not parse is not given (Go's zero value); a value outside an
 * optional parameter's closed set is not given (the handler's default case). Anything else is
 * validated as the schema says (a malformed time is still refused).
 */
export function decodeGoQuery(schema: Schema, query: unknown): unknown {
  if (!isObject(query)) return query;
  const properties = asSchema(schema.properties) ?? {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, unknown> = { ...query };
  for (const [name, raw] of Object.entries(out)) {
    const property = asSchema(properties[name]);
    if (!property || required.has(name)) continue;
    const isList = variants(property).some((v) => typesOf(v).includes('array'));
    if (isList) {
      const items = (Array.isArray(raw) ? raw : [raw]).filter((v) => v !== '');
      if (items.length === 0) delete out[name];
      else out[name] = items;
      continue;
    }
    const value = Array.isArray(raw) ? raw[0] : raw;
    const decoded = decodeGoQueryValue(property, value);
    if (decoded === undefined) delete out[name];
    else out[name] = decoded;
  }
  return out;
}

function decodeGoQueryValue(property: Schema, value: unknown): unknown {
  if (typeof value !== 'string' || value === '') return undefined;
  const types = variants(property).flatMap(typesOf);
  if (types.includes('integer') || types.includes('number')) {
    // Handlers never bound-check a number they read (Gitea filters by it or ignores it): one
    // outside the schema's bounds is not given either.
    const n = GO_INTEGER.test(value) ? goParseInt(value) : undefined;
    return n !== undefined && validatorOf(property)(n) ? n : undefined;
  }
  if (types.includes('boolean')) return goFormBool(value);
  const closedSet = enumValues(property);
  if (closedSet && !closedSet.includes(value)) return undefined;
  return value;
}

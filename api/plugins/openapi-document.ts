// Shapes the generated OpenAPI document like Gitea's, so a client generated from it reads the same
// against either server: paths relative to basePath /api/v1, wildcards named as Gitea names them,
// and every titled model schema hoisted into `definitions` under its title (Gitea's model name).
type Json = Record<string, unknown>;

const API_PREFIX = '/api/v1';

/** The route schema key naming a wildcard (`*`) path parameter in the document, e.g. `branch`. */
export const WILDCARD_NAME = 'x-param-name';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * @fastify/swagger's per-route transform: routes outside /api/v1 (git smart HTTP, web pages, OAuth2,
 * health) are not part of Gitea's API document; `*` becomes the parameter its schema names.
 */
export function documentRoute({ schema, url }: { schema?: Json; url: string }): { schema?: Json; url: string } {
  if (!url.startsWith(`${API_PREFIX}/`)) return { schema: { ...schema, hide: true }, url };
  if (!schema) return { schema, url };
  const params = isObject(schema.params) ? schema.params : {};
  // Integer ids are read with ParseInt and looked up, whatever bounds a schema wrote (api/decoding.ts).
  const properties = Object.fromEntries(Object.entries(isObject(params.properties) ? params.properties : {}).map(([k, v]) => {
    if (!isObject(v) || v.type !== 'integer') return [k, v];
    const { minimum: _min, maximum: _max, ...unbounded } = v;
    return [k, { ...unbounded, format: 'int64' }];
  }));
  if (!url.includes('*')) return { schema: isObject(schema.params) ? { ...schema, params: { ...params, properties } } : schema, url };
  const wildcard = isObject(properties['*']) ? properties['*'] : {};
  const name = typeof wildcard[WILDCARD_NAME] === 'string' ? wildcard[WILDCARD_NAME] : 'path';
  // Marked so a reader (and the hostile suite) knows the value may hold slashes.
  const { [WILDCARD_NAME]: _annotation, ...rest } = wildcard;
  const documented = { ...rest, 'x-wildcard': true };
  const renamed = Object.fromEntries(Object.entries(properties).map(([k, v]) => (k === '*' ? [name, documented] : [k, v])));
  const required = Array.isArray(params.required) ? params.required.map((r) => (r === '*' ? name : r)) : params.required;
  return {
    url: url.replace('*', `:${name}`),
    schema: { ...schema, params: { ...params, properties: renamed, ...(required ? { required } : {}) } },
  };
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(',')}}`;
}

/**
 * Swagger 2 has no anyOf: TypeBox's literal unions become `enum`, and a union with null the other
 * type marked `x-nullable`, as Gitea's document writes them.
 */
function swagger2Schema(node: Json): Json {
  const variants = Array.isArray(node.anyOf) ? (node.anyOf as Json[]) : undefined;
  const { anyOf: _anyOf, const: constant, ...rest } = node;
  if (constant !== undefined && !variants) return { type: typeof constant, ...rest, enum: [constant] };
  if (!variants) return node;
  const values = variants.filter((v) => v.type !== 'null');
  const nullable = values.length < variants.length ? { 'x-nullable': true } : {};
  if (values.length > 0 && values.every((v) => v.const !== undefined || Array.isArray(v.enum))) {
    const all = values.flatMap((v) => (v.const !== undefined ? [v.const] : (v.enum as unknown[])));
    return { type: typeof all[0], ...rest, enum: all, ...nullable };
  }
  if (values.length === 1) return { ...values[0], ...rest, ...nullable };
  return node;
}

const isModel = (node: Json) => typeof node.title === 'string' && (node.type === 'object' || isObject(node.properties));

/**
 * Moves every titled object schema under paths into `definitions[title]`, leaving a `$ref` (and
 * writes unions the Swagger 2 way, swagger2Schema). A title
 * names one shape: two different schemas under one title are a programming error, reported by
 * throwing (the document is built from static schemas, so every test that reads it sees it).
 */
export function hoistModels(doc: Json): Json {
  const definitions: Json = { ...(isObject(doc.definitions) ? doc.definitions : {}) };
  const shapes = new Map<string, string>();
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const children: Json = {};
    for (const [k, v] of Object.entries(node)) children[k] = visit(v);
    const out = swagger2Schema(children);
    if (!isModel(out)) return out;
    // A nullable use of a model is the model (Swagger 2 has no nullable references).
    const { nullable: _n, 'x-nullable': _xn, ...model } = out;
    const title = model.title as string;
    const { description: _d, ...shapeOnly } = model;
    const shape = stableJson(shapeOnly);
    const known = shapes.get(title);
    if (known !== undefined && known !== shape) throw new Error(`two different schemas are titled ${title} in the API document`);
    if (known === undefined) {
      shapes.set(title, shape);
      definitions[title] = model;
    }
    return { $ref: `#/definitions/${title}` };
  };
  const paths = visit(doc.paths);
  return { ...doc, paths, definitions: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b))) };
}

// Gitea's operation list, extracted from its templates/swagger/v1_json.tmpl: per operation the method,
// path, operationId, tags and the model names its body and answers use, and the model graph (which
// definitions each definition refers to). The extract is checked in (gitea-openapi-1.26.4.json) so
// the document test runs without Gitea's source; when the module cache holds Gitea's source, the test
// extracts again and compares. Regenerate:
//   node dist/test/compat/gitea-openapi.js <path to v1_json.tmpl> > test/compat/gitea-openapi-1.26.4.json
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GITEA_VERSION = '1.26.4';

export interface GiteaOperation {
  method: string;
  path: string;
  operationId: string;
  tags: string[];
  /** Definitions named by the body parameter and the answers (error answers left out). */
  models: string[];
}

export interface GiteaOpenApi {
  version: string;
  operations: GiteaOperation[];
  /** Each definition and the definitions it refers to. */
  definitions: Record<string, string[]>;
}

type Json = Record<string, unknown>;

function refsIn(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const v of node) refsIn(v, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else refsIn(v, out);
    }
  }
  return out;
}

const lastSegment = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** Gitea's template with its few Go template actions removed is the JSON document. */
export function extractGiteaOpenApi(template: string): GiteaOpenApi {
  const doc = JSON.parse(template.replace(/\{\{[^}]*\}\}/g, '')) as { paths: Record<string, Record<string, Json>>; definitions: Json; responses: Json };
  const operations: GiteaOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const models = new Set<string>();
      for (const ref of refsIn([op.parameters, op.responses])) {
        if (ref.startsWith('#/definitions/')) models.add(lastSegment(ref));
        else if (ref.startsWith('#/responses/')) for (const inner of refsIn(doc.responses[lastSegment(ref)])) models.add(lastSegment(inner));
      }
      operations.push({
        method: method.toUpperCase(), path, operationId: String(op.operationId), tags: (op.tags as string[]) ?? [],
        models: [...models].filter((m) => !m.startsWith('API')).sort(),
      });
    }
  }
  const definitions = Object.fromEntries(Object.entries(doc.definitions).map(([name, def]) => [name, [...refsIn(def)].map(lastSegment).sort()]));
  return { version: GITEA_VERSION, operations, definitions };
}

/** The checked-in extract. */
export function giteaOpenApi(): GiteaOpenApi {
  const file = fileURLToPath(new URL(`../../../test/compat/gitea-openapi-${GITEA_VERSION}.json`, import.meta.url));
  return JSON.parse(readFileSync(file, 'utf8')) as GiteaOpenApi;
}

/** Gitea's template from the Go module cache (`go mod download code.gitea.io/gitea@v1.26.4`), if there. */
export function giteaTemplateFromModuleCache(): string | null {
  const cache = process.env.GOMODCACHE || join(process.env.GOPATH || join(homedir(), 'go'), 'pkg', 'mod');
  const file = join(cache, `code.gitea.io/gitea@v${GITEA_VERSION}`, 'templates', 'swagger', 'v1_json.tmpl');
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const source = process.argv[2] ? readFileSync(process.argv[2], 'utf8') : giteaTemplateFromModuleCache();
  if (!source) throw new Error('give the path of v1_json.tmpl (or download the module into the Go module cache)');
  const api = extractGiteaOpenApi(source);
  // One operation and one definition a line: small, and a diff of a new version reads line by line.
  const lines = (entries: string[]) => entries.map((e) => `  ${e}`).join(',\n');
  process.stdout.write(`{"version": ${JSON.stringify(api.version)},\n "operations": [\n${lines(api.operations.map((o) => JSON.stringify(o)))}\n ],\n`
    + ` "definitions": {\n${lines(Object.entries(api.definitions).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`))}\n }\n}\n`);
}

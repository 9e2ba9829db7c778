// The hostile-input suites' shared world: pullWorld (users, alice/widget with a pushed branch and an
// open pull request, the fork bob/widget), tokens, the route list read from the served OpenAPI
// document, a snapshot of the data (row counts and refs on disk), and the checks every answer must pass.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { basic, makeUser } from '../repos/fixtures.js';

interface Tap {
  teardown(fn: () => unknown): void;
  equal(a: unknown, b: unknown, msg: string): unknown;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Fastify's pattern, e.g. /api/v1/repos/:owner/:repo/pulls/:index */
  pattern: string;
  params: string[];
  query: string[];
  bodyProps: string[];
  /** The path parameter that may hold slashes (a router wildcard), if any. */
  wildcard?: string;
}

export interface HostileWorld extends PullWorld {
  routes: Route[];
  tokens: { alice: string; root: string; bob: string };
  /** Real values for path parameters, so generated requests reach past the lookups. */
  real: Record<string, string>;
  snapshot(): Promise<string>;
}

/** Tables whose row counts must not move when a request is rejected. */
const TABLES = [
  'users', 'access_tokens', 'repositories', 'collaborations', 'issues', 'pull_requests', 'comments', 'labels',
  'issue_labels', 'milestones', 'issue_assignees', 'issue_dependencies', 'reviews', 'commit_statuses',
  'protected_branches', 'pull_auto_merges', 'user_blocks', 'teams', 'team_members', 'team_repos', 'topics', 'repo_topics', 'org_public_members', 'reactions',
];

/** Every ref file and packed-refs under each bare repository, read directly (no git process per check). */
function refsOnDisk(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p, `${rel}/${name}`);
      else out.push(`${rel}/${name}=${readFileSync(p, 'utf8').trim()}`);
    }
  };
  if (!existsSync(root)) return out;
  // Owners' folders only: the storage marker (core/repository-storage.ts) is a file beside them.
  for (const owner of readdirSync(root).filter((name) => !name.startsWith('.')).sort()) {
    for (const repo of readdirSync(join(root, owner)).sort()) {
      const dir = join(root, owner, repo);
      walk(join(dir, 'refs'), `${owner}/${repo}/refs`);
      for (const f of ['packed-refs', 'HEAD']) if (existsSync(join(dir, f))) out.push(`${owner}/${repo}/${f}=${readFileSync(join(dir, f), 'utf8').trim()}`);
    }
  }
  return out;
}

const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);

type SchemaRef = { properties?: object; $ref?: string };
interface SwaggerDoc {
  basePath?: string;
  paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema?: SchemaRef; 'x-wildcard'?: boolean }> }>>;
  definitions?: Record<string, SchemaRef>;
}

/**
 * Routes from /swagger.v1.json: paths under its basePath; OpenAPI `{name}` becomes Fastify's `:name`
 * (a wildcard is documented under Gitea's name, which the real path segment fills the same way).
 */
export function routesFromSwagger(doc: SwaggerDoc): Route[] {
  const routes: Route[] = [];
  const base = (doc.basePath ?? '').replace(/\/$/, '');
  const resolve = (s: SchemaRef | undefined) => (s?.$ref ? doc.definitions?.[s.$ref.replace('#/definitions/', '')] : s);
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const method = m.toUpperCase();
      if (!METHODS.has(method)) continue;
      const ps = op.parameters ?? [];
      const bodySchema = resolve(ps.find((p) => p.in === 'body')?.schema);
      routes.push({
        method: method as Route['method'],
        pattern: `${base}${path}`.replace(/\{([^}]+)\}/g, (_s, n: string) => `:${n}`),
        params: ps.filter((p) => p.in === 'path').map((p) => p.name),
        query: ps.filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps: Object.keys(bodySchema?.properties ?? {}),
        wildcard: ps.find((p) => p.in === 'path' && p['x-wildcard'])?.name,
      });
    }
  }
  return routes;
}

export async function hostileWorld(t: Tap): Promise<HostileWorld> {
  const w = await pullWorld(t);
  await makeUser(w.db, 'root', { admin: true });
  await w.pushBranch('feature', { 'feature.txt': 'a feature\n' });
  const pr = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'feature', base: 'main', title: 'Feature' } });
  t.equal(pr.statusCode, 201, pr.body);
  const label = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/labels', as: 'alice', body: { name: 'bug', color: '#ff0000' } });
  t.equal(label.statusCode, 201, label.body);
  const token = async (who: string) => {
    const r = await w.api({ method: 'POST', url: `/api/v1/users/${who}/tokens`, headers: basic(who), body: { name: 'hostile', scopes: ['all'] } });
    t.equal(r.statusCode, 201, r.body);
    return r.json().sha1 as string;
  };
  const tokens = { alice: await token('alice'), root: await token('root'), bob: await token('bob') };
  // An organization, so the organization, membership and team routes are reached past their lookups.
  const org = await w.api({ method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme' } });
  t.equal(org.statusCode, 201, org.body);
  const doc = (await w.app.inject('/swagger.v1.json')).json();
  const routes = routesFromSwagger(doc);
  // The smart-HTTP routes and the health check are outside Gitea's API document but face the same clients.
  if (!routes.some((r) => r.pattern === '/api/healthz')) routes.push({ method: 'GET', pattern: '/api/healthz', params: [], query: [], bodyProps: [] });
  for (const pattern of ['/:owner/:repo/git-upload-pack', '/:owner/:repo/git-receive-pack']) {
    if (!routes.some((r) => r.pattern === pattern)) routes.push({ method: 'POST', pattern, params: ['owner', 'repo'], query: [], bodyProps: [] });
  }
  if (!routes.some((r) => r.pattern === '/:owner/:repo/info/refs')) routes.push({ method: 'GET', pattern: '/:owner/:repo/info/refs', params: ['owner', 'repo'], query: ['service'], bodyProps: [] });
  const repoId = String((await w.db('repositories').where({ lower_name: 'widget' }).first('id')).id);
  const real: Record<string, string> = {
    owner: 'alice', repo: 'widget', index: '1', id: repoId, username: 'alice', user: 'alice', collaborator: 'dave', org: 'acme', team: 'Owners', topic: 'hostile',
    base: 'main', head: 'feature', '*': 'feature', branch: 'feature', name: 'main', sha: 'feature', ref: 'feature', token: 'hostile', diffType: 'diff',
  };
  const reposRoot = join(w.dataDir, 'repositories');
  const snapshot = async () => {
    const counts = await Promise.all(TABLES.map(async (table) => {
      const row = await w.db(table).count({ n: '*' }).first();
      return `${table}=${Number(row?.n)}`;
    }));
    return [...counts, ...refsOnDisk(reposRoot)].join('\n');
  };
  return { ...w, routes, tokens, real, snapshot };
}

/** What the checks read of an answer, whether it came through inject or over a socket. */
export type Answer = Pick<LightMyRequestResponse, 'statusCode' | 'body' | 'headers'>;

/** Documented answers that are not JSON error bodies (gitea-wire.md §1.22, smart HTTP). */
export function isDocumentedNonJson(route: Route, res: Answer): boolean {
  if (route.pattern.startsWith('/:owner/:repo/')) return true; // git smart HTTP speaks pkt-lines and plain text
  // Web pages answer HTML, and the OAuth2 endpoints RFC 6749's {error, error_description}.
  if (!route.pattern.startsWith('/api/')) return true;
  if ((route.pattern === '/api/v1/markup' || route.pattern === '/api/v1/markdown' || route.pattern === '/api/v1/markdown/raw') && res.statusCode === 422) return true;
  if (route.pattern.endsWith('/merge') && res.statusCode === 409) return true; // raw merge-conflict struct
  if (route.pattern.includes('/topics') && res.statusCode === 422) return true; // Gitea's {invalidTopics, message}
  // Spec, editing a pull request, rule 1: neither poster nor writer gets 403 with an empty body.
  if (route.method === 'PATCH' && route.pattern === '/api/v1/repos/:owner/:repo/pulls/:index' && res.statusCode === 403 && res.body === '') return true;
  return false;
}

/** The answer's problems, or an empty list: no 5xx, and Gitea's error shape on JSON errors. */
export function answerProblems(route: Route, res: Answer): string[] {
  const problems: string[] = [];
  if (res.statusCode >= 500) problems.push(`5xx ${res.statusCode}: ${res.body.slice(0, 300)}`);
  if (res.statusCode >= 400 && !isDocumentedNonJson(route, res)) {
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      problems.push(`error body is not JSON (${res.headers['content-type']}): ${res.body.slice(0, 200)}`);
    }
    const b = body as { message?: unknown; url?: unknown } | undefined;
    if (body !== undefined && (typeof b?.message !== 'string' || typeof b?.url !== 'string')) problems.push(`error body lacks message/url: ${res.body.slice(0, 200)}`);
  }
  return problems;
}

// Sends one generated request and checks it: no 5xx, Gitea's error shape, and — when the request
// was rejected (4xx) — the same row counts and refs on disk before and after.
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import type { Test } from 'tap';
import type { Answer, HostileWorld, Route } from './world.js';
import { answerProblems } from './world.js';
import { bodyFor, headersFor, headerText, identity, pathFor, queryFor, rawJsonText, type Identity } from './arbitraries.js';

/**
 * Requests that would dismantle the world when they succeed (rename or delete the repository, revoke
 * the token in use, delete the pull request's head): their path parameters are always hostile, and
 * the token revocation route never gets a valid token.
 */
const DESTRUCTIVE = new Set([
  'DELETE /api/v1/repos/:owner/:repo', 'PATCH /api/v1/repos/:owner/:repo', 'DELETE /api/v1/repos/:owner/:repo/branches/:branch',
  'DELETE /api/v1/users/:username/tokens/:token', 'POST /api/v1/user/2fa/totp', 'DELETE /api/v1/user/2fa/totp',
  'POST /api/v1/repos/:owner/:repo/transfer', 'POST /api/v1/repos/:owner/:repo/pulls/:index/merge',
  // A site admin may delete (purge=true) or lock out (prohibit_login, active, a new password) the world's users.
  'DELETE /api/v1/admin/users/:username', 'PATCH /api/v1/admin/users/:username', 'DELETE /api/v1/orgs/:org',
]);
const REVOKES_CURRENT = new Set(['DELETE /api/v1/token']);

export interface HostileRequest {
  method: Route['method'];
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

export function requestFor(w: HostileWorld, route: Route, parts: { body: boolean; headers: boolean }): fc.Arbitrary<HostileRequest> {
  const key = `${route.method} ${route.pattern}`;
  const who: fc.Arbitrary<Identity> = REVOKES_CURRENT.has(key) ? fc.constantFrom<Identity>('anonymous', 'garbage', 'basic-alice') : identity;
  const takesBody = route.method !== 'GET' && route.method !== 'DELETE';
  return fc.record({
    path: pathFor(route, w, !DESTRUCTIVE.has(key)),
    query: queryFor(route),
    who,
    garbage: headerText,
    // Mostly absent: a Sudo header from a non-admin is refused before the body is read.
    sudo: parts.headers ? fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: headerText }) : fc.constant(null),
    contentType: parts.headers
      ? fc.oneof({ weight: 4, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/xml', '', '*/*') })
      : fc.constant('application/json'),
    body: parts.body && takesBody ? fc.option(bodyFor(route), { nil: undefined }) : fc.constant(undefined),
    rawBody: parts.body && takesBody
      ? fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) }, { weight: 2, arbitrary: rawJsonText })
      // A DELETE or GET with a JSON content type and an empty body, as the SDK sends it.
      : parts.body ? fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('', '{', 'null') }) : fc.constant(undefined),
  }).map((g) => {
    const headers = headersFor(w, g.who, g.garbage, g.sudo);
    let payload: string | undefined;
    if (g.rawBody !== undefined) payload = g.rawBody;
    else if (g.body !== undefined) payload = JSON.stringify(g.body);
    if (payload !== undefined && g.contentType !== '') headers['content-type'] = g.contentType;
    return { method: route.method, url: `${g.path}${g.query}`, headers, ...(payload !== undefined ? { payload } : {}) };
  });
}

/**
 * Sends the request as generated. inject reads the target as a URL relative to http://localhost, so
 * one the URL parser would change (dot segments resolved, `\` read as `/`, a leading `//` or `/\`
 * taken for a host, characters escaped) goes over the socket instead, as the bytes a raw client
 * sends. Node's client refuses control characters and code points above U+00FF in a target, so
 * those few, lone surrogates among them, still go through inject.
 */
export function send(w: HostileWorld, req: HostileRequest): Promise<Answer> {
  if (!changedByUrlParser(req.url) || !/^[\x21-\xff]*$/.test(req.url)) {
    return w.app.inject({ method: req.method, url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) });
  }
  return overSocket(w.baseUrl, req);
}

function changedByUrlParser(target: string): boolean {
  try {
    const url = new URL(target, 'http://localhost');
    return url.host !== 'localhost' || `${url.pathname}${url.search}` !== target;
  } catch {
    return true;
  }
}

function overSocket(baseUrl: string, req: HostileRequest): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, ...(req.payload !== undefined ? { 'content-length': String(Buffer.byteLength(req.payload)) } : {}) };
    const call = httpRequest({ host: hostname, port, method: req.method, path: req.url, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    call.on('error', reject);
    call.end(req.payload);
  });
}

export interface ProbeLog {
  requests: number;
  rejected: number;
  statuses: Map<number, number>;
  problems: string[];
}

export function newLog(): ProbeLog {
  return { requests: 0, rejected: 0, statuses: new Map(), problems: [] };
}

/** Runs `runs` generated requests against one route, recording every broken rule in `log`. */
export async function probeRoute(w: HostileWorld, route: Route, parts: { body: boolean; headers: boolean }, runs: number, log: ProbeLog, seed: number): Promise<void> {
  let before = await w.snapshot();
  await fc.assert(fc.asyncProperty(requestFor(w, route, parts), async (req) => {
    const started = Date.now();
    const res = await send(w, req);
    const took = Date.now() - started;
    log.requests++;
    log.statuses.set(res.statusCode, (log.statuses.get(res.statusCode) ?? 0) + 1);
    const where = `${req.method} ${req.url.slice(0, 200)} [${JSON.stringify(req.headers).slice(0, 200)}] body=${String(req.payload ?? '').slice(0, 120)}`;
    for (const p of answerProblems(route, res)) log.problems.push(`${where} -> ${p}`);
    if (took > 10_000) log.problems.push(`${where} -> took ${took} ms`);
    const after = await w.snapshot();
    if (res.statusCode >= 400 && res.statusCode < 500) {
      log.rejected++;
      if (after !== before) log.problems.push(`${where} -> ${res.statusCode} but the data changed:\n${diff(before, after)}`);
    }
    before = after;
    return true;
  }), { numRuns: runs, seed, endOnFailure: true });
}

function diff(a: string, b: string): string {
  const left = new Set(a.split('\n'));
  const right = new Set(b.split('\n'));
  return [...[...left].filter((l) => !right.has(l)).map((l) => `- ${l}`), ...[...right].filter((l) => !left.has(l)).map((l) => `+ ${l}`)].join('\n');
}

/**
 * Racing mode: `runs` generated requests, each sent `copies` times at once. Every answer must pass
 * the same checks (no 5xx, Gitea's error shape); which copy wins is not checked.
 */
export async function raceRoute(w: HostileWorld, route: Route, parts: { body: boolean; headers: boolean }, runs: number, copies: number, log: ProbeLog, seed: number): Promise<void> {
  for (const req of fc.sample(requestFor(w, route, parts), { numRuns: runs, seed })) {
    const answers = await Promise.all(Array.from({ length: copies }, () => send(w, req)));
    const where = `${copies} × ${req.method} ${req.url.slice(0, 200)} [${JSON.stringify(req.headers).slice(0, 200)}] body=${String(req.payload ?? '').slice(0, 120)}`;
    for (const res of answers) {
      log.requests++;
      log.statuses.set(res.statusCode, (log.statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode >= 400 && res.statusCode < 500) log.rejected++;
      for (const p of answerProblems(route, res)) log.problems.push(`${where} -> ${p}`);
    }
  }
}

/**
 * Probes every route in turn and checks the run as a whole: no broken rule, the server still answers
 * and the token in use survived the batch.
 */
export async function probeEveryRoute(t: Test, w: HostileWorld, parts: { body: boolean; headers: boolean }, runs: number, seed: number): Promise<void> {
  const log = newLog();
  for (const [i, route] of w.routes.entries()) await probeRoute(w, route, parts, runs, log, seed + i);
  t.comment(`${log.requests} requests, ${log.rejected} rejected; statuses ${JSON.stringify(Object.fromEntries(log.statuses))}`);
  t.same(log.problems, [], 'no 5xx, Gitea-shaped errors, no change after a rejection');
  const health = await w.app.inject('/api/healthz');
  t.equal(health.statusCode, 200, 'the server still answers');
  const me = await w.app.inject({ url: '/api/v1/user', headers: { authorization: `token ${w.tokens.alice}` } });
  t.equal(me.statusCode, 200, 'the token in use survived the batch');
}

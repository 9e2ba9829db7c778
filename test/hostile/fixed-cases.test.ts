// Fixed hostile cases: oversized and deeply nested bodies, invalid UTF-8, 10,000 labels, absurd
// paging, dangerous ref names, and garbage Sudo and Authorization headers. Each must be refused or
// handled in Gitea's error shape, quickly, without a 5xx and without changing the data.
import t, { type Test } from 'tap';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { hostileWorld, answerProblems, type HostileWorld, type Route } from './world.js';
import { send } from './probe.js';

const API_ROUTE: Route = { method: 'GET', pattern: '/api/v1/x', params: [], query: [], bodyProps: [] };

interface Case {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  payload?: string | Buffer;
  headers?: Record<string, string>;
  /** The statuses this case may answer; any 5xx always fails. */
  expect: (status: number) => boolean;
}

const rejected = (s: number) => s >= 400 && s < 500;

/** Sends a case as alice (unless it names its own Authorization) and checks every rule. */
async function check(t: Test, w: HostileWorld, name: string, c: Case): Promise<LightMyRequestResponse> {
  const before = await w.snapshot();
  const started = Date.now();
  const headers = { authorization: `token ${w.tokens.alice}`, ...(c.payload !== undefined ? { 'content-type': 'application/json' } : {}), ...c.headers };
  const res = await w.app.inject({ method: c.method, url: c.url, headers, ...(c.payload !== undefined ? { payload: c.payload } : {}) });
  const took = Date.now() - started;
  t.ok(c.expect(res.statusCode), `${name}: status ${res.statusCode} ${res.body.slice(0, 200)}`);
  t.same(answerProblems(API_ROUTE, res), [], `${name}: Gitea-shaped answer`);
  t.ok(took < 5000, `${name}: answered in ${took} ms`);
  if (rejected(res.statusCode)) t.equal(await w.snapshot(), before, `${name}: nothing changed`);
  return res;
}

/**
 * Raw bytes on a socket, for what an HTTP client library refuses to send; returns the status line.
 * The socket stays open for writing until the answer has come (a server may drop a half-closed one).
 */
function rawRequest(baseUrl: string, bytes: Buffer): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    socket.on('data', (d) => { data += d.toString('latin1'); });
    socket.on('end', () => { socket.end(); resolve(data.split('\r\n')[0] ?? ''); });
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
    socket.write(bytes);
  });
}

t.test('fixed hostile inputs', async (t) => {
  const w = await hostileWorld(t);
  const pulls = '/api/v1/repos/alice/widget/pulls';
  const limit = w.config.BODY_LIMIT;

  await check(t, w, 'oversized JSON body', { method: 'POST', url: pulls, payload: JSON.stringify({ title: 'x'.repeat(limit + 10), head: 'feature', base: 'main' }), expect: (s) => s === 413 });
  await check(t, w, 'oversized markdown', { method: 'POST', url: '/api/v1/markdown', payload: JSON.stringify({ Text: 'x'.repeat(w.config.MARKUP_BODY_LIMIT + 10) }), expect: (s) => s === 413 });
  await check(t, w, '100k nested arrays', { method: 'PATCH', url: `${pulls}/1`, payload: '['.repeat(100_000), expect: rejected });
  await check(t, w, '100k nested arrays, closed', { method: 'PATCH', url: `${pulls}/1`, payload: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, expect: rejected });
  await check(t, w, '50k nested objects', { method: 'POST', url: pulls, payload: `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`, expect: rejected });
  await check(t, w, 'invalid UTF-8 body', { method: 'PATCH', url: `${pulls}/1`, payload: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0xc0, 0xaf, 0x7d]), expect: rejected });
  const inString = await check(t, w, 'invalid UTF-8 inside a string', {
    method: 'PATCH', url: `${pulls}/1`, payload: Buffer.concat([Buffer.from('{"body":"a'), Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('b"}')]), expect: (s) => s === 201 || rejected(s),
  });
  if (inString.statusCode === 201) t.match(inString.json().body, /^a\uFFFD+.*b$/, 'stored as replacement characters, never raw bytes');

  const manyLabels = Array.from({ length: 10_000 }, (_, i) => i + 1);
  await check(t, w, '10,000 labels on edit', { method: 'PATCH', url: `${pulls}/1`, payload: JSON.stringify({ labels: manyLabels }), expect: (s) => s === 201 || rejected(s) });
  t.ok(Number((await w.db('issue_labels').count({ n: '*' }).first())?.n) <= 1, 'at most the one real label is attached');
  // The spec's empty 403 (editing a pull request, rule 1) is an answer the probes accept on that route only.
  const edit = await w.app.inject({ method: 'PATCH', url: `${pulls}/1`, headers: { authorization: `token ${w.tokens.bob}`, 'content-type': 'application/json' }, payload: '{"title":"mine now"}' });
  t.equal(edit.statusCode, 403, 'bob, neither poster nor writer, may not edit');
  t.equal(edit.body, '', 'the 403 has an empty body');
  const editRoute: Route = { method: 'PATCH', pattern: '/api/v1/repos/:owner/:repo/pulls/:index', params: ['owner', 'repo', 'index'], query: [], bodyProps: [] };
  t.same(answerProblems(editRoute, edit), [], 'the probes accept it there');
  t.not(answerProblems(API_ROUTE, edit).length, 0, 'and on no other route');
  await check(t, w, '10,000 labels on create', { method: 'POST', url: pulls, payload: JSON.stringify({ head: 'nope', base: 'main', title: 'many', labels: manyLabels }), expect: rejected });
  await check(t, w, '10,000 label names on an issue', { method: 'POST', url: '/api/v1/repos/alice/widget/issues/1/labels', payload: JSON.stringify({ labels: manyLabels.map((n) => `l${n}`) }), expect: (s) => s === 200 || rejected(s) });

  const firstPage = await check(t, w, 'limit=1e12', { method: 'GET', url: `${pulls}?limit=1e12`, expect: (s) => s === 200 || s === 422 });
  if (firstPage.statusCode === 200) t.ok(firstPage.json().length <= w.config.MAX_RESPONSE_ITEMS, 'clamped to MAX_RESPONSE_ITEMS');
  for (const q of ['limit=99999999999999999999999', 'limit=-1', 'page=-5', 'page=0', 'page=1e12', 'page=99999999999999999999', 'limit=NaN', 'page=0x10']) {
    const res = await check(t, w, q, { method: 'GET', url: `${pulls}?${q}`, expect: (s) => s === 200 || s === 422 });
    if (q === 'page=-5') t.same(res.json().map((p: { number: number }) => p.number), [1], 'a negative page is page 1');
  }
  for (const list of ['/api/v1/repos/alice/widget/branches', '/api/v1/repos/alice/widget/pulls/1/commits', '/api/v1/repos/alice/widget/pulls/1/files', '/api/v1/users/alice/tokens']) {
    await check(t, w, `${list}?page=-5&limit=1e12`, { method: 'GET', url: `${list}?page=-5&limit=1e12`, headers: list.endsWith('tokens') ? { authorization: `Basic ${Buffer.from('alice:correct-horse-battery').toString('base64')}` } : {}, expect: (s) => s === 200 || s === 422 });
  }

  const badRefs = ['a..b', 'feature@{1}', '@{-1}', '-x', '--upload-pack=touch /tmp/pwned', 'a\u0001b', 'a\u007fb', 'a b', 'x.lock', 'a//b', '/main', 'main/', 'ma~in', 'ma^in', 'ma:in', 'ma?in', 'ma*in', 'ma[in', 'ma\\in', '.hidden', '@'];
  for (const ref of badRefs) {
    const enc = encodeURIComponent(ref);
    await check(t, w, `create branch ${JSON.stringify(ref)}`, { method: 'POST', url: '/api/v1/repos/alice/widget/branches', payload: JSON.stringify({ new_branch_name: ref, old_ref_name: 'main' }), expect: rejected });
    await check(t, w, `create branch from ${JSON.stringify(ref)}`, { method: 'POST', url: '/api/v1/repos/alice/widget/branches', payload: JSON.stringify({ new_branch_name: 'fine', old_branch_name: ref }), expect: rejected });
    await check(t, w, `get branch ${JSON.stringify(ref)}`, { method: 'GET', url: `/api/v1/repos/alice/widget/branches/${enc}`, expect: rejected });
    await check(t, w, `delete branch ${JSON.stringify(ref)}`, { method: 'DELETE', url: `/api/v1/repos/alice/widget/branches/${enc}`, expect: rejected });
    await check(t, w, `pulls/main/${JSON.stringify(ref)}`, { method: 'GET', url: `${pulls}/main/${enc}`, expect: rejected });
    await check(t, w, `pulls/${JSON.stringify(ref)}/feature`, { method: 'GET', url: `${pulls}/${enc}/feature`, expect: rejected });
    await check(t, w, `pull from head ${JSON.stringify(ref)}`, { method: 'POST', url: pulls, payload: JSON.stringify({ head: ref, base: 'main', title: 't' }), expect: rejected });
    await check(t, w, `pull onto base ${JSON.stringify(ref)}`, { method: 'POST', url: pulls, payload: JSON.stringify({ head: 'feature', base: ref, title: 't' }), expect: rejected });
  }

  // The code routes: hostile refs wherever a branch, tag, commit or ref is named, hostile paths
  // wherever a file is; reads may answer 200 (dot segments collapse inside the tree), never 5xx.
  const code = '/api/v1/repos/alice/widget';
  const readOk = (s: number) => s === 200 || rejected(s);
  const writeOk = (s: number) => s === 201 || rejected(s);
  for (const ref of badRefs) {
    const enc = encodeURIComponent(ref);
    for (const url of [`commits?sha=${enc}`, `commits?not=${enc}`, `git/commits/${enc}`, `git/commits/${enc}.diff`, `git/trees/${enc}`, `git/refs/${enc}`,
      `contents/README.md?ref=${enc}`, `archive/${enc}.zip`, `archive/${enc}.tar.gz`, `tags/${enc}`, `git/tags/${enc}`, `git/blobs/${enc}`]) {
      await check(t, w, `GET ${url}`, { method: 'GET', url: `${code}/${url}`, expect: rejected });
    }
    await check(t, w, `raw with ref ${JSON.stringify(ref)}`, { method: 'GET', url: `${code}/raw/README.md?ref=${enc}`, expect: readOk });
    await check(t, w, `tag named ${JSON.stringify(ref)}`, { method: 'POST', url: `${code}/tags`, payload: JSON.stringify({ tag_name: ref }), expect: rejected });
    await check(t, w, `tag at ${JSON.stringify(ref)}`, { method: 'POST', url: `${code}/tags`, payload: JSON.stringify({ tag_name: 'fine-tag', target: ref }), expect: rejected });
    await check(t, w, `file on branch ${JSON.stringify(ref)}`, { method: 'POST', url: `${code}/contents/x.txt`, payload: JSON.stringify({ content: 'eA==', branch: ref }), expect: rejected });
    await check(t, w, `file on new branch ${JSON.stringify(ref)}`, { method: 'POST', url: `${code}/contents/x.txt`, payload: JSON.stringify({ content: 'eA==', new_branch: ref }), expect: rejected });
    await check(t, w, `rename to ${JSON.stringify(ref)}`, { method: 'PATCH', url: `${code}/branches/feature`, payload: JSON.stringify({ name: ref }), expect: rejected });
    await check(t, w, `rename ${JSON.stringify(ref)}`, { method: 'PATCH', url: `${code}/branches/${enc}`, payload: JSON.stringify({ name: 'fine' }), expect: rejected });
    await check(t, w, `update to ${JSON.stringify(ref)}`, { method: 'PUT', url: `${code}/branches/feature`, payload: JSON.stringify({ new_commit_id: ref, force: true }), expect: rejected });
    await check(t, w, `update from ${JSON.stringify(ref)}`, { method: 'PUT', url: `${code}/branches/feature`, payload: JSON.stringify({ new_commit_id: 'main', old_commit_id: ref, force: true }), expect: rejected });
  }
  // Dot segments are resolved by any WHATWG URL parser, inject's included (`contents/%2e%2e` would
  // reach the repository route), so those travel as raw bytes over a socket, as a client that sends
  // them on purpose does.
  const badPaths = ['../../../etc/passwd', '%2e%2e/%2e%2e/etc/passwd', '..', '.git/config', 'a/.GIT/HEAD', '.git', '-rf', '--output=%2Ftmp%2Fpwned', '%2Fabs', 'nul%00byte', 'a%0Ab', '*', ':%2Fsecond', 'x'.repeat(5000)];
  const rawCall = async (method: string, path: string, body?: string) => {
    const head = [`${method} ${path} HTTP/1.1`, `Host: ${new URL(w.baseUrl).host}`, `Authorization: token ${w.tokens.alice}`, 'Connection: close'];
    if (body !== undefined) head.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
    return rawRequest(w.baseUrl, Buffer.from(`${head.join('\r\n')}\r\n\r\n${body ?? ''}`, 'latin1'));
  };
  for (const [i, p] of badPaths.entries()) {
    const dotted = /(^|\/)(\.\.|%2e%2e)(\/|$)/i.test(p);
    const send = async (name: string, method: Case['method'], url: string, payload: string | undefined, expect: (s: number) => boolean) => {
      if (!dotted) return check(t, w, name, { method, url, payload, expect });
      const before = await w.snapshot();
      const status = Number((await rawCall(method, url, payload)).split(' ')[1]);
      t.ok(expect(status), `${name} (raw): ${status}`);
      if (rejected(status)) t.equal(await w.snapshot(), before, `${name} (raw): nothing changed`);
      return undefined;
    };
    for (const url of [`contents/${p}`, `raw/${p}`, `media/${p}?ref=main`, `commits?path=${p}`, `archive/main.zip?path=${p}`]) {
      await send(`GET ${url.slice(0, 80)}`, 'GET', `${code}/${url}`, undefined, readOk);
    }
    await send(`create ${p.slice(0, 40)}`, 'POST', `${code}/contents/${p}`, JSON.stringify({ content: 'eA==', new_branch: `hostile-${i}` }), writeOk);
    await send(`move from ${p.slice(0, 40)}`, 'PUT', `${code}/contents/moved-${i}`, JSON.stringify({ content: 'eA==', sha: 'a'.repeat(40), from_path: decodeURIComponent(p), new_branch: `hostile-m${i}` }), rejected);
    await send(`delete ${p.slice(0, 40)}`, 'DELETE', `${code}/contents/${p}`, JSON.stringify({ sha: 'a'.repeat(40), new_branch: `hostile-d${i}` }), rejected);
    await send(`change files at ${p.slice(0, 40)}`, 'POST', `${code}/contents`, JSON.stringify({ files: [{ operation: 'update', path: decodeURIComponent(p), content: 'eA==', sha: 'a'.repeat(40) }] }), rejected);
  }
  t.equal((await w.api({ url: `${code}`, as: 'alice' })).statusCode, 200, 'the repository is still there');
  t.notOk(existsSync('/tmp/pwned'), 'no option reached git');

  const garbage = ['', ' ', 'nobody', '..', '-x', 'x'.repeat(5000), 'root', 'alice\u00e9', '%00', '@{', 'ALICE'];
  for (const sudo of garbage) {
    await check(t, w, `Sudo ${JSON.stringify(sudo.slice(0, 20))} from an admin`, { method: 'GET', url: '/api/v1/user', headers: { authorization: `token ${w.tokens.root}`, sudo }, expect: (s) => s === 200 || rejected(s) });
    await check(t, w, `Sudo ${JSON.stringify(sudo.slice(0, 20))} from a user`, { method: 'GET', url: '/api/v1/user', headers: { sudo }, expect: (s) => s === 200 || rejected(s) });
    await check(t, w, `sudo= ${JSON.stringify(sudo.slice(0, 20))} on a write`, { method: 'PATCH', url: `${pulls}/1?sudo=${encodeURIComponent(sudo)}`, headers: { authorization: `token ${w.tokens.root}` }, payload: '{"body":"edited through sudo"}', expect: (s) => s === 201 || rejected(s) });
  }
  const auth = ['token', 'token ', 'Bearer', 'bearer  x', 'Basic', 'Basic !!!', 'Basic Og==', `Basic ${Buffer.from('alice').toString('base64')}`, `Basic ${Buffer.from('alice:').toString('base64')}`,
    `Basic ${Buffer.from(':correct-horse-battery').toString('base64')}`, 'token a.b.c', 'bearer eyJhbGciOiJub25lIn0.e30.', `token ${'f'.repeat(40)}`, `token ${w.tokens.alice}x`, 'token 1234567', 'Digest x', 'x'.repeat(8000), `Basic ${'A'.repeat(6000)}`];
  for (const authorization of auth) {
    await check(t, w, `Authorization ${JSON.stringify(authorization.slice(0, 30))}`, { method: 'GET', url: '/api/v1/user', headers: { authorization }, expect: (s) => s === 401 });
    await check(t, w, `Authorization ${JSON.stringify(authorization.slice(0, 30))} on a write`, { method: 'POST', url: pulls, headers: { authorization }, payload: '{"head":"feature","base":"main","title":"x"}', expect: (s) => s === 401 });
  }

  // A pull request whose head adds an empty commit: a squash has nothing to commit.
  await w.pushBranch('empty-change', {});
  const emptyPr = await w.api({ method: 'POST', url: pulls, as: 'alice', body: { head: 'empty-change', base: 'main', title: 'empty' } });
  t.equal(emptyPr.statusCode, 201, emptyPr.body);
  let squash = await w.api({ method: 'POST', url: `${pulls}/${emptyPr.json().number}/merge`, as: 'alice', body: { Do: 'squash' } });
  for (let i = 0; i < 40 && squash.statusCode === 405; i++) {
    await new Promise((r) => setTimeout(r, 250));
    squash = await w.api({ method: 'POST', url: `${pulls}/${emptyPr.json().number}/merge`, as: 'alice', body: { Do: 'squash', MergeTitleField: `try ${i}` } });
  }
  t.ok(squash.statusCode < 500, `squash of an empty change: ${squash.statusCode} ${squash.body.slice(0, 200)}`);

  // Smart HTTP with garbage pkt-lines must fail fast and leave the refs alone.
  const basicAlice = { authorization: `Basic ${Buffer.from('alice:correct-horse-battery').toString('base64')}` };
  for (const service of ['git-upload-pack', 'git-receive-pack']) {
    for (const body of [Buffer.from('garbage'), Buffer.from('0000'), Buffer.from('ffff'), Buffer.from(`0032want ${'0'.repeat(40)}\n0000`), Buffer.from(`00a0${'0'.repeat(40)} ${'1'.repeat(40)} refs/heads/main\u0000report-status\n0000`), Buffer.alloc(200_000, 0x41)]) {
      const before = await w.snapshot();
      const started = Date.now();
      const res = await w.app.inject({ method: 'POST', url: `/alice/widget.git/${service}`, headers: { ...basicAlice, 'content-type': `application/x-${service}-request` }, payload: body });
      t.ok(res.statusCode < 500, `${service} with ${body.length} garbage bytes: ${res.statusCode} ${res.body.slice(0, 120)}`);
      t.ok(Date.now() - started < 5000, `${service} answered garbage quickly`);
      t.equal(await w.snapshot(), before, `${service} with garbage changed nothing`);
    }
  }

  // What no client library will send: control characters in a header, a raw invalid request line.
  const port = new URL(w.baseUrl).port;
  for (const raw of [
    `GET /api/v1/user HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: token \u0001\u0002\r\nConnection: close\r\n\r\n`,
    `GET /api/v1/user HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nSudo: a\u0000b\r\nConnection: close\r\n\r\n`,
    `GET /api/v1/repos/alice/widget/branches/a\u0001b HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    `GET /api/v1/repos/alice/widget/pulls/%ZZ/%ff HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
  ]) {
    const status = await rawRequest(w.baseUrl, Buffer.from(raw, 'latin1'));
    t.match(status, /^HTTP\/1\.1 4\d\d /, `raw request refused with a 4xx: ${JSON.stringify(raw.split('\r\n')[0])} -> ${status}`);
  }

  // Targets a URL parser would change reach the server as generated (probe.ts `send`): a leading
  // `/\` or `//` that inject would take for a host (it throws on the first), a `\` it would read as
  // `/`, dot segments it would resolve into another route.
  for (const url of [
    '/\\/%F2%B4%B0%A3/git-receive-pack', '//evil.example/widget/info/refs?service=git-upload-pack', '/alice\\widget/info/refs',
    '/alice/../alice/widget/info/refs', '/api/v1/repos/alice/widget/pulls/1/../../../../../user',
  ]) {
    const res = await send(w, { method: 'GET', url, headers: { authorization: `token ${w.tokens.alice}` } });
    t.ok(rejected(res.statusCode), `${url} as sent: ${res.statusCode} ${res.body.slice(0, 100)}`);
  }

  t.equal((await w.app.inject('/api/healthz')).statusCode, 200, 'the server still answers');
  t.equal((await w.app.inject({ url: '/api/v1/user', headers: { authorization: `token ${w.tokens.alice}` } })).statusCode, 200, 'and the token still works');
});

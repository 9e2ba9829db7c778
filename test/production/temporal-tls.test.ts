// A secured Temporal cluster: the api and worker roles connect over TLS (the cluster's CA, its
// server name) and over mTLS (a client certificate the server requires), and a merge goes through
// both end to end. A wrong CA, a missing client certificate or an unreadable file stops start-up
// with one line naming the cause. The dev server has no TLS, so a TLS-terminating proxy stands in
// front of it (test/production/tls-proxy.ts).
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { openPull } from '../merge/world.js';
import { issue, makeCa } from './certificates.js';
import { startTlsProxy, type TlsProxy } from './tls-proxy.js';
import { request, startRole, type RoleProcess } from './role-process.js';

let w: PullWorld;
let tlsProxy: TlsProxy;
let mtlsProxy: TlsProxy;
const files: Record<string, string> = {};
const running: RoleProcess[] = [];

t.before(async () => {
  w = await pullWorld(t, { worker: false });
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ca = makeCa();
  const server = issue(ca, 'temporal.test', 'server');
  const client = issue(ca, 'pullhost-node', 'client');
  const pem = { ca: ca.cert, otherCa: makeCa('another CA').cert, clientCert: client.cert, clientKey: client.key };
  for (const [name, text] of Object.entries(pem)) writeFileSync((files[name] = join(dir, `${name}.pem`)), text, { mode: 0o600 });
  tlsProxy = await startTlsProxy({ target: w.config.TEMPORAL_ADDRESS, server });
  mtlsProxy = await startTlsProxy({ target: w.config.TEMPORAL_ADDRESS, server, clientCa: ca.cert });
  t.teardown(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await tlsProxy.close();
    await mtlsProxy.close();
  });
});

async function startBoth(env: Record<string, string>): Promise<{ api: RoleProcess; worker: RoleProcess }> {
  const [api, worker] = await Promise.all([startRole(w.config, 'api', env), startRole(w.config, 'worker', env)]);
  running.push(api, worker);
  await Promise.all([api.ready, worker.ready]);
  return { api, worker };
}

async function mergeThrough(t: Test, api: RoleProcess, branch: string): Promise<void> {
  const index = await openPull(w, branch, { [`${branch}.txt`]: `${branch}\n` });
  const res = await request(api.baseUrl, 'POST', `/api/v1/repos/alice/widget/pulls/${index}/merge`, await w.tokenHeader('alice'), { Do: 'merge' });
  t.equal(res.status, 200, `the merge through the TLS-connected API answers 200: ${res.text}`);
  const row = await w.db('pull_requests').where({ base_repo_id: 1, index }).first();
  t.ok(row.has_merged, 'and the worker merged it');
}


t.test('TLS with the cluster CA and server name: api and worker connect and a merge goes through', async (t) => {
  const before = tlsProxy.handshakes();
  const { api, worker } = await startBoth({
    TEMPORAL_ADDRESS: tlsProxy.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.ca!, TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
  });
  t.ok(tlsProxy.handshakes() - before >= 2, 'both processes connected through TLS');
  await mergeThrough(t, api, 'tls-merge');
  await Promise.all([api.stop(), worker.stop()]);
});

t.test('mTLS: with the client certificate the server requires, a merge goes through', async (t) => {
  const before = mtlsProxy.handshakes();
  const { api, worker } = await startBoth({
    TEMPORAL_ADDRESS: mtlsProxy.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.ca!, TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
    TEMPORAL_TLS_CLIENT_CERT_PATH: files.clientCert!, TEMPORAL_TLS_CLIENT_KEY_PATH: files.clientKey!,
  });
  t.ok(mtlsProxy.handshakes() - before >= 2, 'both processes passed the client certificate check');
  await mergeThrough(t, api, 'mtls-merge');
  await Promise.all([api.stop(), worker.stop()]);
});

/** Starts a role that must fail; returns its stderr after checking the exit status. */
async function failedStart(t: Test, role: 'api' | 'worker', env: Record<string, string>): Promise<string> {
  const p = await startRole(w.config, role, env);
  running.push(p);
  t.equal(await p.exited, 1, `the ${role} process exits with status 1`);
  const lines = p.stderr().trim().split('\n');
  t.equal(lines.length, 1, `one line: ${p.stderr()}`);
  return lines[0]!;
}

t.test('a wrong CA, a missing client certificate, an unreadable file: one clear line at start-up', async (t) => {
  const [wrongCa, noClientCert, noTls, unreadable, certWithoutKey] = await Promise.all([
    failedStart(t, 'worker', { TEMPORAL_ADDRESS: tlsProxy.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.otherCa!, TEMPORAL_TLS_SERVER_NAME: 'temporal.test' }),
    failedStart(t, 'api', { TEMPORAL_ADDRESS: mtlsProxy.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.ca!, TEMPORAL_TLS_SERVER_NAME: 'temporal.test' }),
    failedStart(t, 'api', { TEMPORAL_TLS: 'true', TEMPORAL_TLS_SERVER_NAME: 'temporal.test' }),
    failedStart(t, 'worker', { TEMPORAL_ADDRESS: mtlsProxy.address, TEMPORAL_TLS_CLIENT_CERT_PATH: '/nonexistent/client.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: files.clientKey! }),
    failedStart(t, 'api', { TEMPORAL_ADDRESS: mtlsProxy.address, TEMPORAL_TLS_CLIENT_CERT_PATH: files.clientCert! }),
  ]);
  t.match(wrongCa, /^cannot start: cannot start the Temporal worker against 127\.0\.0\.1:\d+ over TLS: the server certificate is not signed by a trusted CA \(check TEMPORAL_TLS_SERVER_CA_CERT_PATH\)/);
  t.match(noClientCert, /^cannot start: cannot reach Temporal at 127\.0\.0\.1:\d+ over TLS: the server requires a client certificate \(set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH\)/);
  t.match(noTls, /^cannot start: cannot reach Temporal at 127\.0\.0\.1:\d+ over TLS: the server does not speak TLS there/);
  t.equal(unreadable, 'configuration error: TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read /nonexistent/client.pem: ENOENT');
  t.equal(certWithoutKey, 'configuration error: TEMPORAL_TLS_CLIENT_KEY_PATH is missing: a client certificate and its key go together');
});

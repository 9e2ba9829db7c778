// TLS to MySQL/MariaDB with Gitea's SSL_MODE values: a MariaDB of the test's own with a certificate
// from a generated CA. `true` verifies it (against DB_SSL_CA_PATH here), `skip-verify` encrypts
// without verifying, `false` stays plain; a certificate from another CA stops start-up in one line.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../app/config.js';
import { projectRoot } from '../../app/paths.js';
import { openDatabase } from '../../db/connection.js';
import { startPrivateMariaDb } from '../faults/private-mariadb.js';
import { issue, makeCa } from './certificates.js';

const dir = mkdtempSync(join(tmpdir(), 'pullhost-mysql-tls-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const ca = makeCa();
const server = issue(ca, 'mariadb.test', 'server');
const files = { ca: join(dir, 'ca.pem'), otherCa: join(dir, 'other-ca.pem'), cert: join(dir, 'server.pem'), key: join(dir, 'server.key') };
writeFileSync(files.ca, ca.cert);
writeFileSync(files.otherCa, makeCa('another CA').cert);
writeFileSync(files.cert, server.cert);
writeFileSync(files.key, server.key);

const mariadb = await startPrivateMariaDb(t, [`--ssl-cert=${files.cert}`, `--ssl-key=${files.key}`, `--ssl-ca=${files.ca}`]);
const settings = (env: Record<string, string>) => loadConfig({ DB_TYPE: 'mysql', DB_HOST: mariadb.host, DB_NAME: 'mysql', APP_DATA_PATH: dir, ...env });

/** The cipher of this connection: empty when it is not encrypted. */
async function cipherWith(env: Record<string, string>): Promise<string> {
  const db = openDatabase(settings(env));
  try {
    const [rows] = await db.raw("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    return String(rows[0]?.Value ?? '');
  } finally {
    await db.destroy();
  }
}

t.test('true verifies the server against DB_SSL_CA_PATH, skip-verify encrypts, false is plain', async (t) => {
  t.match(await cipherWith({ DB_SSL_MODE: 'true', DB_SSL_CA_PATH: files.ca }), /\w/, 'encrypted, verified');
  t.match(await cipherWith({ DB_SSL_MODE: 'skip-verify' }), /\w/, 'encrypted without a CA');
  t.equal(await cipherWith({ DB_SSL_MODE: 'false' }), '', 'plain');
  t.equal(await cipherWith({ DB_SSL_MODE: 'disable' }), '', "plain (Gitea's Postgres-style word)");
});

t.test('a server certificate from another CA stops start-up with one line', async (t) => {
  const run = spawnSync(process.execPath, [join(projectRoot, 'dist', 'app', 'main.js'), 'api'], {
    env: { ...process.env, DB_TYPE: 'mysql', DB_HOST: mariadb.host, DB_NAME: 'pullhost_tls', APP_DATA_PATH: dir, TEMPORAL_ADDRESS: '127.0.0.1:1', DB_SSL_MODE: 'true', DB_SSL_CA_PATH: files.otherCa, LOG_LEVEL: 'silent' },
    encoding: 'utf8', timeout: 60_000,
  });
  t.equal(run.status, 1);
  const lines = run.stderr.trim().split('\n');
  t.equal(lines.length, 1, run.stderr);
  t.match(lines[0], new RegExp(`^cannot start: cannot use the database, MySQL at ${mariadb.host.replace(/\./g, '\\.')} \\(database pullhost_tls\\): .*(certificate|verify)`, 'i'));
  t.throws(() => openDatabase(settings({ DB_SSL_MODE: 'true', DB_SSL_CA_PATH: join(dir, 'missing.pem') })), /^DB_SSL_CA_PATH: cannot read .*missing\.pem: ENOENT$/);
  t.throws(() => settings({ DB_SSL_MODE: 'required' }), /DB_SSL_MODE/, 'an unknown mode names the setting');
});

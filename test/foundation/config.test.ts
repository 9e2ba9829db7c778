import t from 'tap';
import { existsSync } from 'node:fs';
import knexFactory from 'knex';
import { ConfigError, loadConfig } from '../../app/config.js';
import { DEBIAN_MARIADB_SOCKET, mysqlConnection } from '../../db/connection.js';

t.test('defaults work on one machine with no configuration', async (t) => {
  const cfg = loadConfig({}, '/srv/app');
  t.equal(cfg.HTTP_PORT, 3000);
  t.equal(cfg.APP_DATA_PATH, '/srv/app/data');
  t.equal(cfg.APP_URL, 'http://localhost:3000/');
  t.equal(cfg.ENABLE_SWAGGER, true);
  t.equal(cfg.MAX_RESPONSE_ITEMS, 50);
  t.equal(cfg.DEFAULT_PAGING_NUM, 30);
  t.equal(cfg.DB_TYPE, 'sqlite3');
  t.equal(cfg.DB_PATH, '/srv/app/data/pullhost.db');
  t.equal(cfg.TEMPORAL_ADDRESS, '');
  t.equal(cfg.TEMPORAL_DEV_PORT, 7233);
  t.equal(cfg.TEMPORAL_UI_PORT, 8233);
  t.equal(cfg.MAX_GIT_DIFF_LINES, 1000);
});

t.test('environment overrides, with Gitea names and boolean spellings', async (t) => {
  const cfg = loadConfig({ HTTP_PORT: '4000', ENABLE_SWAGGER: 'false', APP_URL: 'https://git.example.com', DB_TYPE: 'mysql', MAX_RESPONSE_ITEMS: '100' }, '/x');
  t.equal(cfg.HTTP_PORT, 4000);
  t.equal(cfg.ENABLE_SWAGGER, false);
  t.equal(cfg.APP_URL, 'https://git.example.com/', 'APP_URL always ends with a slash');
  t.equal(cfg.DB_TYPE, 'mysql');
  t.equal(cfg.MAX_RESPONSE_ITEMS, 100);
});

t.test('an invalid value stops start-up with a message naming the setting', async (t) => {
  t.throws(() => loadConfig({ HTTP_PORT: 'eighty' }), { message: /HTTP_PORT must be an integer/ });
  t.throws(() => loadConfig({ HTTP_PORT: '70000' }), new RegExp('HTTP_PORT'));
  t.throws(() => loadConfig({ DB_TYPE: 'postgres' }), { message: /DB_TYPE/ });
  t.throws(() => loadConfig({ ENABLE_SWAGGER: 'maybe' }), { message: /ENABLE_SWAGGER must be true or false/ });
  t.throws(() => loadConfig({ POOL_MIN_THREADS: '4', POOL_MAX_THREADS: '2' }), { message: /POOL_MIN_THREADS/ });
  t.throws(() => loadConfig({ APP_URL: 'not a url' }), ConfigError);
  t.throws(() => loadConfig({ PUSH_CATCH_UP_SECONDS: '-1' }), { message: /^PUSH_CATCH_UP_SECONDS/ });
});

t.test('pushes are caught up every five minutes unless told otherwise; 0 leaves only the catch-up at start', async (t) => {
  t.equal(loadConfig({}).PUSH_CATCH_UP_SECONDS, 300);
  t.equal(loadConfig({ PUSH_CATCH_UP_SECONDS: '0' }).PUSH_CATCH_UP_SECONDS, 0);
});

t.test('DB_HOST: host:port over TCP, or (Gitea\'s rule) a path starting with / is the Unix socket', async (t) => {
  const settings = (DB_HOST: string) => ({ ...loadConfig({ DB_TYPE: 'mysql', DB_HOST, DB_USER: 'root', DB_PASSWD: '' }, '/srv/app') });
  t.match(mysqlConnection(settings('db.example:3307')), { host: 'db.example', port: 3307 });
  t.match(mysqlConnection(settings('[::1]')), { host: '::1', port: 3306 });
  const socket = mysqlConnection(settings(' /run/mysqld/mysqld.sock'));
  t.equal(socket.socketPath, '/run/mysqld/mysqld.sock');
  t.equal(socket.host, undefined, 'no TCP host beside the socket');
  // Both ways reach the machine's MariaDB for real.
  for (const host of [DEBIAN_MARIADB_SOCKET, '127.0.0.1:3306']) {
    if (host.startsWith('/') && !existsSync(host)) continue;
    const db = knexFactory({ client: 'mysql2', connection: mysqlConnection(settings(host)), pool: { min: 0, max: 1 } });
    t.teardown(() => db.destroy());
    const [rows] = await db.raw('SELECT 41 + 1 AS answer');
    t.equal(Number(rows[0].answer), 42, `a query through ${host}`);
  }
});

t.test('Temporal cluster settings: TLS decided as Temporal decides it, files read, tuning', async (t) => {
  const { temporalConnectionSettings, temporalTlsConfig, workerTuning } = await import('../../app/temporal-settings.js');
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pem = (name: string) => {
    writeFileSync(join(dir, name), `-----BEGIN ${name}-----\n`);
    return join(dir, name);
  };
  const tls = (env: Record<string, string>) => temporalTlsConfig(loadConfig(env, '/srv'));

  t.equal(tls({}), undefined, 'plain by default (the dev server)');
  t.same(tls({ TEMPORAL_API_KEY: 'k' }), {}, 'an API key turns TLS on (system CAs)');
  t.equal(tls({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }), undefined, 'unless TEMPORAL_TLS=false');
  t.same(tls({ TEMPORAL_TLS: 'true' }), {});
  t.same(tls({ TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' }), { serverNameOverride: 'temporal.internal' }, 'any TLS setting turns it on');
  const full = tls({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: pem('CA'), TEMPORAL_TLS_CLIENT_CERT_PATH: pem('CERT'), TEMPORAL_TLS_CLIENT_KEY_DATA: '-----BEGIN KEY-----' });
  t.equal(Buffer.from(full!.serverRootCACertificate!).toString(), '-----BEGIN CA-----\n', 'the CA file is read');
  t.equal(Buffer.from(full!.clientCertPair!.crt).toString(), '-----BEGIN CERT-----\n');
  t.equal(Buffer.from(full!.clientCertPair!.key).toString(), '-----BEGIN KEY-----', '_DATA gives the PEM itself');
  const settings = temporalConnectionSettings(loadConfig({ TEMPORAL_API_KEY: 'secret-key' }, '/srv'), 'cloud.example:7233');
  t.same(settings, { address: 'cloud.example:7233', tls: {}, apiKey: 'secret-key' });

  t.throws(() => tls({ TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'absent.pem'), TEMPORAL_TLS_CLIENT_KEY_PATH: pem('KEY') }),
    { message: `TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read ${join(dir, 'absent.pem')}: ENOENT` });
  t.throws(() => loadConfig({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: 'a', TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'b' }), { message: /^TEMPORAL_TLS_SERVER_CA_CERT_PATH and TEMPORAL_TLS_SERVER_CA_CERT_DATA: give one/ });
  t.throws(() => loadConfig({ TEMPORAL_TLS_CLIENT_KEY_PATH: 'k' }), { message: /^TEMPORAL_TLS_CLIENT_CERT_PATH is missing/ });
  t.throws(() => loadConfig({ TEMPORAL_TLS: 'maybe' }), { message: /^TEMPORAL_TLS must be true or false/ });
  t.throws(() => loadConfig({ TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' }), { message: /^TEMPORAL_TLS_DISABLE_HOST_VERIFICATION is not supported/ });

  t.same(workerTuning(loadConfig({}, '/srv')), { stickyQueueScheduleToStartTimeout: '30s' }, "the SDK's defaults unless set, but half a minute on the sticky queue");
  t.same(workerTuning(loadConfig({
    TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '8', TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES: '16',
    TEMPORAL_WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: '4', TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS: '0', TEMPORAL_WORKER_STICKY_TIMEOUT_SECONDS: '10',
  }, '/srv')), {
    maxConcurrentWorkflowTaskExecutions: 8, maxConcurrentActivityTaskExecutions: 16, maxConcurrentLocalActivityExecutions: 4, maxCachedWorkflows: 0,
    stickyQueueScheduleToStartTimeout: '10s',
  });
  t.throws(() => loadConfig({ TEMPORAL_WORKER_STICKY_TIMEOUT_SECONDS: '0' }), { message: /^TEMPORAL_WORKER_STICKY_TIMEOUT_SECONDS/ });
  t.throws(() => loadConfig({ TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES: 'lots' }), { message: /^TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES must be an integer/ });
  t.throws(() => loadConfig({ TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES: '0' }), { message: /^TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES/ });
  t.throws(() => loadConfig({ TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1' }), { message: /sticky/ });
  t.doesNotThrow(() => loadConfig({ TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1', TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS: '0' }));
  t.throws(() => loadConfig({ DB_SSL_MODE: 'verify-full' }), { message: /^DB_SSL_MODE/ });
});

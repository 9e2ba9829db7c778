#!/usr/bin/env node
// Runs the whole test suite on real parts: makes sure MariaDB is up, starts one Temporal dev
// server for the run (a namespace per test file), runs tap over the compiled tests, stops it all.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { ensureMariaDb, waitForPort } from './services.mjs';
import { reexecOnPinnedNode } from './node-runtime.mjs';
import { relaxDurabilityForTests } from './test-durability.mjs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const NAMESPACES = 64;
const say = (line) => process.stdout.write(`[test] ${line}\n`);

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// The browser test drives Debian's Chromium (never a browser downloaded by Playwright); without it
// that test skips itself, so a failed install only warns.
function ensureChromium() {
  if (existsSync('/usr/bin/chromium')) return;
  say('Chromium is not installed: installing it from Debian packages for the browser test...');
  spawnSync('apt-get', ['update'], { stdio: 'inherit' });
  const r = spawnSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) say('could not install chromium: the browser test will be skipped');
}

async function startTemporal() {
  const cli = process.env.TEMPORAL_CLI_PATH || join(root, '.tools', 'bin', 'temporal');
  const port = await freePort();
  const uiPort = await freePort();
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--ui-port', String(uiPort), '--log-level', 'error',
    '--headless',
    '--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true',
    '--dynamic-config-value', 'frontend.enableExecuteMultiOperation=true',
    '--search-attribute', 'PullRepository=Keyword', '--search-attribute', 'PullIndex=Int', '--search-attribute', 'PullState=Keyword',
    '--search-attribute', 'PullOperation=Keyword', '--search-attribute', 'WebhookId=Int', '--search-attribute', 'WebhookOwner=Keyword'];
  for (let i = 0; i < NAMESPACES; i++) args.push('--namespace', `t${i}`);
  const child = spawn(cli, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (!(await waitForPort(port, 60))) {
    child.kill('SIGKILL');
    throw new Error('the Temporal dev server did not start within 60 s');
  }
  return { child, address: `127.0.0.1:${port}` };
}

/**
 * One migrated database for the test worlds to copy their tables from (test/schema-template.ts):
 * migrating every world's database cost about 1.6 s of MariaDB DDL each. Without it (an error is
 * shown) every world migrates its own.
 */
function prepareSchemaTemplate() {
  const r = spawnSync(process.execPath, [join(root, 'dist', 'test', 'schema-template.js')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const name = r.status === 0 ? r.stdout.trim() : '';
  if (!name) say('could not prepare the schema template: every test database migrates on its own');
  return name;
}

async function main() {
  await ensureMariaDb();
  const local = process.env.DB_HOST === undefined || process.env.DB_HOST.startsWith('/') || /^(127\.0\.0\.1|localhost)(:|$)/.test(process.env.DB_HOST);
  // Put back when this run ends, whichever way it ends (the last of concurrent runs restores it).
  const restoreDurability = local ? relaxDurabilityForTests(say) : () => {};
  process.once('exit', restoreDurability);
  const schemaTemplate = prepareSchemaTemplate();
  ensureChromium();
  say('starting a Temporal dev server for this run...');
  const temporal = await startTemporal();
  const stop = () => temporal.child.kill('SIGTERM');
  process.on('SIGINT', () => { stop(); process.exit(130); });
  process.on('SIGTERM', () => { stop(); process.exit(143); });
  // tap runs the files it is given, or .taprc's, in the order of their paths (it sorts them).
  const files = process.argv.slice(2);
  const tap = spawn(process.execPath, [join(root, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'), ...files], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env, TEMPORAL_ADDRESS: temporal.address, PULLHOST_TEST_NAMESPACES: String(NAMESPACES),
      ...(schemaTemplate ? { PULLHOST_TEST_SCHEMA_DB: schemaTemplate } : {}),
    },
  });
  const code = await new Promise((resolve) => tap.once('exit', (c) => resolve(c ?? 1)));
  stop();
  process.exit(code);
}

// Started with another Node (`node scripts/test.mjs ...`): the same run on the pinned one.
if (!reexecOnPinnedNode(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`[test] ${err.message}\n`);
    process.exit(1);
  });
}

#!/usr/bin/env node
// Installs what is missing, then builds: `node scripts/bootstrap.mjs start|test|build`.
// Only Node's own modules here: this runs before any dependency is installed.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGoSdkTests } from './go-sdk-tests.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv[2] ?? 'build';
const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

function say(line) {
  process.stdout.write(`[bootstrap] ${line}\n`);
}

function run(cmd, args, env = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.error) throw new Error(`${cmd} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit status ${result.status}`);
}

function dependencyFingerprint() {
  const hash = createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) {
    if (existsSync(join(root, f))) hash.update(readFileSync(join(root, f)));
  }
  return hash.digest('hex');
}

function installDependencies() {
  const stamp = join(root, 'node_modules', '.install-stamp');
  const fingerprint = dependencyFingerprint();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === fingerprint) return;
  say('installing npm dependencies (the first time compiles better-sqlite3, about a minute)...');
  // Install scripts are off: dugite's would download its own git (we use the system git), and
  // better-sqlite3's would try to download a prebuilt binary. Then build better-sqlite3 from
  // source against the system's Node headers.
  const env = { npm_config_nodedir: '/usr', npm_config_audit: 'false', npm_config_fund: 'false' };
  run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], env);
  run('npm', ['rebuild', 'better-sqlite3'], env);
  // tap's test class is built for the plugins .taprc names by tap's install script (off here);
  // unbuilt, the first run's test processes would all load the plugins .taprc leaves out.
  run(process.execPath, [join(root, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'), 'build']);
  writeFileSync(stamp, fingerprint);
}

function goBinary() {
  for (const candidate of ['go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go']) {
    const probe = spawnSync(candidate, ['version'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  return null;
}

function installTemporalCli() {
  if (process.env.TEMPORAL_ADDRESS && mode === 'start') return;
  if (process.env.TEMPORAL_CLI_PATH) return;
  const bin = join(root, '.tools', 'bin', 'temporal');
  if (existsSync(bin)) return;
  const go = goBinary();
  if (!go) throw new Error('the Temporal CLI is missing and Go is not installed to build it (set TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS)');
  mkdirSync(dirname(bin), { recursive: true });
  say(`building the Temporal CLI (${TEMPORAL_CLI_MODULE}) into .tools/bin: first run only, this takes several minutes.`);
  say('progress: each line below is a Go package being downloaded or compiled.');
  run(go, ['install', '-v', TEMPORAL_CLI_MODULE], { GOBIN: join(root, '.tools', 'bin'), GOFLAGS: '-mod=mod' });
  say('the Temporal CLI is ready.');
}

function build() {
  say('compiling TypeScript...');
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
}

try {
  installDependencies();
  if (mode === 'start' || mode === 'test') installTemporalCli();
  if (mode === 'test') buildGoSdkTests({ root, go: goBinary(), say });
  build();
} catch (err) {
  process.stderr.write(`[bootstrap] ${err.message}\n`);
  process.exit(1);
}

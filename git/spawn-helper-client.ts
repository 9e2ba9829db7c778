// Buffered git calls run in a small helper process instead of this one. Starting a process from
// Node forks the caller: from a service with a few hundred MB resident, fork copies page tables
// (about 30 ms per git call here, against 11 ms from a small process) and leaves the service's
// memory copy-on-write, so its threads fault their way back for a while after every call (a
// Temporal round trip after a few git calls took twice as long). The helper is small, so it forks
// cheaply, and the service never forks. Streaming calls (spawnGit) still start git directly.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HelperReply, HelperRequest } from './spawn-helper-protocol.js';

type Pending = { resolve(reply: HelperReply): void; reject(err: Error): void };

const HELPER_PATH = fileURLToPath(new URL('./spawn-helper.js', import.meta.url));

/** One helper process and the calls sent to it. */
interface Helper {
  child: ChildProcess;
  pending: Map<number, Pending>;
}

let current: Helper | null = null;
let nextId = 1;

/** A helper keeps this process alive only while a call to it is in flight. */
function holdOpen(helper: Helper, hold: boolean): void {
  if (hold) {
    helper.child.ref();
    helper.child.channel?.ref();
  } else {
    helper.child.unref();
    helper.child.channel?.unref();
  }
}

function settle(helper: Helper, id: number): Pending | undefined {
  const call = helper.pending.get(id);
  if (!call) return undefined;
  helper.pending.delete(id);
  if (helper.pending.size === 0) holdOpen(helper, false);
  return call;
}

function startHelper(): Helper {
  const child = fork(HELPER_PATH, [], {
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    // Not the parent's loaders or inspector flags: the helper is plain JavaScript and must stay small.
    execArgv: ['--max-old-space-size=64'],
  });
  const helper: Helper = { child, pending: new Map() };
  child.on('message', (reply: HelperReply) => settle(helper, reply.id)?.resolve(reply));
  // The first of 'disconnect', 'exit' or 'error' retires the helper; the next call starts another.
  const lost = (why: string) => {
    if (current === helper) current = null;
    for (const id of [...helper.pending.keys()]) settle(helper, id)?.reject(new Error(`the git spawn helper ${why}`));
  };
  child.on('exit', (code, signal) => lost(`exited (${signal ?? code})`));
  child.on('disconnect', () => lost('went away'));
  child.on('error', (err) => lost(`failed: ${err.message}`));
  holdOpen(helper, false);
  return helper;
}

/** The request never reached the helper (its channel had closed): safe to send again. */
class NotDelivered extends Error {}

function sendTo(helper: Helper, request: Omit<HelperRequest, 'id'>): Promise<HelperReply> {
  const id = nextId++;
  const message: HelperRequest = { id, ...request };
  return new Promise<HelperReply>((resolve, reject) => {
    helper.pending.set(id, { resolve, reject });
    if (helper.pending.size === 1) holdOpen(helper, true);
    helper.child.send(message, (err) => {
      if (!err) return;
      if (current === helper) current = null;
      settle(helper, id)?.reject(new NotDelivered(err.message));
    });
  });
}

/**
 * Runs one buffered git call in the helper, starting (or restarting) it when needed. A call that
 * could not be delivered goes to a new helper once; a call lost after delivery is not repeated (git
 * may have run it).
 */
export async function runInHelper(request: Omit<HelperRequest, 'id'>): Promise<HelperReply> {
  try {
    return await sendTo((current ??= startHelper()), request);
  } catch (err) {
    if (!(err instanceof NotDelivered)) throw err;
    return sendTo((current ??= startHelper()), request);
  }
}

/** The helper's process id while it runs (tests). */
export function spawnHelperPid(): number | null {
  return current?.child.pid ?? null;
}

// Merges of one repository answered by one long-lived `git merge-tree --stdin` instead of a process
// each: a landing's chain merges one head after another onto the tip the last one left, and a burst
// of landings into one base runs many chains in a row. Starting git costs several times what
// merge-tree itself does for a small change (bench/HISTORY.md, stop 44), so a repository's process
// is kept while merges keep coming and ends after IDLE_MS without one.
// Anything the conversation cannot answer (git refusing unrelated histories ends the process, as
// does a missing object) is asked again of a process of its own, which gives the exact error.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { mergeTree, type MergeTreeResult } from './merge-tree.js';
import { assertRevision, isValidSha } from './refs.js';
import { spawnGitConversation } from './runner.js';

/** A repository's process ends after this long without a merge. */
const IDLE_MS = 2_000;
/** …and after this many merges (git keeps every object it parsed in memory). */
const MAX_MERGES = 2_000;
/** A merge not answered in this long ends the process and is asked of a process of its own. */
const ANSWER_MS = 60_000;

/** A child's standard streams are sockets (pipes), whose ref and unref the stream types leave out. */
const pipe = (stream: unknown) => stream as Socket;

interface Pending {
  resolve(result: MergeTreeResult): void;
  reject(err: Error): void;
}

class Conversation {
  private readonly child: ChildProcessWithoutNullStreams;
  private output: Buffer = Buffer.alloc(0);
  private readonly pending: Pending[] = [];
  private idle: NodeJS.Timeout | null = null;
  private asked = 0;
  ended = false;

  constructor(child: ChildProcessWithoutNullStreams, private readonly onEnd: () => void) {
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr.resume(); // its one line of complaint is not needed: the process of its own repeats it
    child.stdin.on('error', () => this.end()); // written to after git died: 'close' follows
    child.on('error', () => this.end());
    child.on('close', () => this.end());
    // An idle process does not keep the service's process alive; one with a question pending does.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) pipe(stream).unref();
  }

  get full(): boolean {
    return this.asked >= MAX_MERGES;
  }

  merge(base: string, head: string): Promise<MergeTreeResult> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.asked++;
    if (this.pending.length === 0) this.hold(true);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.end(), ANSWER_MS);
      timer.unref();
      this.pending.push({
        resolve: (r) => { clearTimeout(timer); resolve(r); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.child.stdin.write(`${base} ${head}\n`);
    });
  }

  /**
   * While a question is pending the process and both its outputs keep the service's process alive:
   * its 'close', which tells that git died, waits for the end of stderr too.
   */
  private hold(on: boolean): void {
    for (const handle of [this.child, pipe(this.child.stdout), pipe(this.child.stderr)]) {
      if (on) handle.ref();
      else handle.unref();
    }
  }

  /** Each answer: "<1 clean | 0 conflicted>\0<tree>\0", a "<path>\0" per conflicted path, then "\0". */
  private read(chunk: Buffer): void {
    this.output = this.output.length === 0 ? chunk : Buffer.concat([this.output, chunk]);
    for (let end = this.output.indexOf('\0\0'); end >= 0 && this.pending.length > 0; end = this.output.indexOf('\0\0')) {
      const [status, tree, ...paths] = this.output.subarray(0, end).toString('utf8').split('\0');
      this.output = this.output.subarray(end + 2);
      const waiter = this.pending.shift()!;
      if (!tree || !isValidSha(tree) || (status !== '0' && status !== '1')) {
        waiter.reject(new Error('git merge-tree --stdin answered in an unknown form'));
        this.end();
        return;
      }
      waiter.resolve(status === '1' ? { clean: true, tree } : { clean: false, tree, conflictedFiles: paths });
    }
    if (this.pending.length === 0 && !this.ended) {
      this.hold(false);
      this.idle = setTimeout(() => this.close(), IDLE_MS);
      this.idle.unref();
    }
  }

  /** No more questions: git answers those it has and exits once it has read stdin to its end. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
    if (this.idle) clearTimeout(this.idle);
    this.child.stdin.end();
  }

  /** The process died, was killed or went silent: whatever it still owes is asked elsewhere. */
  private end(): void {
    if (this.idle) clearTimeout(this.idle);
    if (!this.ended) {
      this.ended = true;
      this.onEnd();
    }
    if (this.pending.length > 0 && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    for (const waiter of this.pending.splice(0)) waiter.reject(new Error('git merge-tree --stdin ended'));
  }
}

const conversations = new Map<string, Conversation>();

/**
 * mergeTree (merge-tree.ts) answered by the repository's long-lived process: the same result, and
 * the same errors, which come from a process of its own.
 */
export async function mergeTreeInConversation(repoPath: string, baseSha: string, headSha: string): Promise<MergeTreeResult> {
  assertRevision(baseSha);
  assertRevision(headSha);
  // Full commit names only: a name git cannot read ends the conversation for everyone in it.
  if (!isValidSha(baseSha) || !isValidSha(headSha)) return mergeTree(repoPath, baseSha, headSha);
  let conversation = conversations.get(repoPath);
  if (!conversation || conversation.ended || conversation.full) {
    conversation?.close();
    const child = spawnGitConversation(['merge-tree', '--write-tree', '--stdin', '--name-only', '--no-messages', '-z'], { cwd: repoPath });
    if (!child) return mergeTree(repoPath, baseSha, headSha);
    const started: Conversation = new Conversation(child, () => {
      if (conversations.get(repoPath) === started) conversations.delete(repoPath);
    });
    conversations.set(repoPath, (conversation = started));
  }
  try {
    return await conversation.merge(baseSha, headSha);
  } catch {
    return mergeTree(repoPath, baseSha, headSha);
  }
}

/** Repositories with a process running now (for tests). */
export function openMergeTreeConversations(): number {
  return conversations.size;
}

// Lowers the scheduling priority of the calling worker thread, so the pool never competes with the
// event loop for a core.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * The pool's threads render for as long as they have work; with as many threads as cores, the
 * kernel otherwise shares the cores evenly between them and the main thread, and every request's
 * event-loop turn (parsing a body, answering a cheap GET) waits for a time slice. At nice 10 a
 * thread gets a small share whenever the main thread wants its core, and all of an idle core.
 * The threads run 10 below the process's own priority (at most 19, the lowest).
 * Linux only: there a thread has its own id (read from /proc/thread-self, `<pid>/task/<tid>`), and
 * setpriority() on that id changes that thread alone; raising one's own nice value needs no privilege.
 * Elsewhere, or when /proc is not mounted, threads keep the default priority. Returns whether it applied.
 */
export function lowerThisThreadPriority(by = 10): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(threadId) || threadId <= 0) return false;
    // Relative to the nice value the process was started with (`nice npm start`): an absolute 10
    // would raise a thread above a process started at 15, for a root process able to do so.
    setPriority(threadId, Math.min(19, getPriority(threadId) + by));
    return true;
  } catch {
    return false;
  }
}

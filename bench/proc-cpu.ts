// CPU time from Linux's /proc: of a process and its descendants (world.ts), and of this process's
// threads by name (markdown.ts), which tells the event loop from the pool threads and V8's helpers.
import { readdirSync, readFileSync } from 'node:fs';

/** /proc reports CPU time in clock ticks of 1/100 s (USER_HZ). */
const CLOCK_TICKS = 100;

/** The fields after the command name of a /proc stat file: the name is in parentheses and may hold spaces. */
export function statFields(path: string): number[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
}

/** utime + stime of a stat file's fields, in seconds. */
export const ownCpu = (f: number[]) => (f[11]! + f[12]!) / CLOCK_TICKS;
/** cutime + cstime: of the children it has waited for, in seconds. */
export const reapedChildrenCpu = (f: number[]) => (f[13]! + f[14]!) / CLOCK_TICKS;

export interface ThreadCpu {
  /** Seconds by thread name: MainThread (the event loop), WorkerThread (worker_threads), V8Worker (GC and compiler helpers), ... */
  byName: Map<string, number>;
  /** Seconds of the child processes this process has waited for (the load generator). */
  children: number;
}

export function threadCpuOfThisProcess(): ThreadCpu {
  const byName = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      byName.set(name, (byName.get(name) ?? 0) + ownCpu(statFields(`/proc/self/task/${tid}/stat`)));
    } catch {
      // the thread ended meanwhile
    }
  }
  return { byName, children: reapedChildrenCpu(statFields('/proc/self/stat')) };
}

/** CPU seconds spent between two readings, by thread name, and by reaped children. */
export function cpuBetween(before: ThreadCpu, after: ThreadCpu): ThreadCpu {
  const byName = new Map<string, number>();
  for (const [name, seconds] of after.byName) byName.set(name, seconds - (before.byName.get(name) ?? 0));
  return { byName, children: after.children - before.children };
}

// A branch's moves are announced once the branch is quiet. A burst of auto-merges into a base (a CI
// backlog clearing) moves it many times within seconds. Announced at its first move, every pull
// request still waiting then was signalled, woke and started a settle timer, nearly all of them only
// to merge moments later: about a sixth of a burst's workflow history. Put off until the base has
// been still for QUIET_MS, a burst is announced once, after it, to the pull requests still waiting.
// In-process: what a crash loses is told when a worker starts (core/pulls/stale-checks.ts).
import { announceBranchMoved, baseBusyMs, noteBranchMoved, QUIET_MS } from './base-moved.js';
import { landingUnderWay } from './together.js';

export interface QuietTiming {
  /** A branch that never goes quiet is still announced this long after the first move put off. */
  atMostMs: number;
  /** Attempts at an announcement that fails (a workflow unreachable), the first included. */
  attempts: number;
  /** Before the second attempt; doubled before each later one. */
  retryMs: number;
}

export const QUIET_TIMING: QuietTiming = { atMostMs: 30_000, attempts: 5, retryMs: 1_000 };

interface PutOff {
  repoId: number;
  branch: string;
  since: number;
  timer: NodeJS.Timeout | null;
  announce: () => Promise<void>;
  timing: QuietTiming;
  onGiveUp: (err: unknown) => void;
}

const putOff = new Map<string, PutOff>();
const running = new Set<Promise<void>>();

/**
 * Announces that the branch moved (now) once it has been still for QUIET_MS, or at the latest
 * `timing.atMostMs` after the first move still put off. Returns at once. Moves asked to be announced
 * meanwhile join the one put off: `announce` reads where the branch is when it runs.
 * `onGiveUp` is told when every attempt failed.
 */
export function announceWhenQuiet(
  repoId: number, branch: string, announce: () => Promise<void>, onGiveUp: (err: unknown) => void, timing: QuietTiming = QUIET_TIMING,
): void {
  noteBranchMoved(repoId, branch);
  const key = `${repoId}/${branch}`;
  const waiting = putOff.get(key);
  if (waiting) {
    // The newest caller's client and logger: the first one's worker may be stopping.
    waiting.announce = announce;
    waiting.onGiveUp = onGiveUp;
    return;
  }
  const entry: PutOff = { repoId, branch, since: Date.now(), timer: null, announce, timing, onGiveUp };
  putOff.set(key, entry);
  arm(key, entry);
}

function arm(key: string, entry: PutOff): void {
  const left = entry.since + entry.timing.atMostMs - Date.now();
  // A landing under way moves the branch again soon, however long it takes to build its chain.
  const busy = landingUnderWay(entry.repoId, entry.branch) ? QUIET_MS : baseBusyMs(entry.repoId, entry.branch);
  if (busy <= 0 || left <= 0) return start(key, entry);
  entry.timer = setTimeout(() => arm(key, entry), Math.min(busy, left));
  // A process that ends without stopping its worker is a crash: a worker's start tells those.
  entry.timer.unref();
}

function start(key: string, entry: PutOff): void {
  if (entry.timer) clearTimeout(entry.timer);
  putOff.delete(key);
  const run = tell(entry).finally(() => running.delete(run));
  running.add(run);
}

async function tell(entry: PutOff): Promise<void> {
  const { attempts, retryMs } = entry.timing;
  for (let attempt = 1; ; attempt++) {
    try {
      // Coalesced with the announcements of the branch already running (base-moved.ts).
      return await announceBranchMoved(entry.repoId, entry.branch, entry.announce);
    } catch (err) {
      if (attempt >= attempts) return entry.onGiveUp(err);
      await new Promise((resolve) => setTimeout(resolve, retryMs * 2 ** (attempt - 1)));
    }
  }
}

/** Starts every announcement put off, and waits for all under way: a worker's last act. */
export async function flushQuietAnnouncements(): Promise<void> {
  for (const [key, entry] of putOff) start(key, entry);
  await Promise.all([...running]);
}

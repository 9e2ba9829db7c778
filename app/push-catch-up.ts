// When the post-receive work of pushes is caught up (core/push-recovery.ts): once as the process
// starts serving, acting on every difference (a crash of the last process left them), then every
// PUSH_CATCH_UP_SECONDS, acting on the differences the sweep before also found (a step that failed
// in this or another running process left them; one still there a sweep later is nobody's work).
import type { Logger } from 'pino';
import { followMissedPushes, type CatchUpOptions, type MissedPushes } from '../core/push-recovery.js';
import type { PushServices } from '../core/push.js';

export interface PushCatchUp {
  /** Ends the sweeps; resolves when the one under way has finished. */
  stop(): Promise<void>;
}

function report(log: Logger, missed: MissedPushes, ms: number, first: boolean): void {
  if (missed.announced.length + missed.replayed.length + missed.rechecked.length > 0) {
    log.warn({ announced: missed.announced, branches: missed.replayed, bases: missed.rechecked, pulls: missed.pulls, ms },
      first ? 'caught up pushes a crash left unfollowed' : 'caught up pushes whose post-receive work failed');
  } else if (first) {
    log.info({ pulls: missed.pulls, ms }, 'pull request heads and checked bases agree with their branches');
  }
  for (const err of missed.problems) log.warn({ err }, 'catching up a push failed');
}

/** Never throws: problems are logged, and the next sweep tries again. */
async function sweep(services: PushServices, log: Logger, opts: CatchUpOptions, first: boolean): Promise<Set<string>> {
  try {
    const started = performance.now();
    const missed = await followMissedPushes(services, opts);
    report(log, missed, Math.round(performance.now() - started), first);
    return missed.differences;
  } catch (err) {
    log.warn({ err }, 'catching up pushes failed');
    return new Set();
  }
}

export function startPushCatchUp(services: PushServices, log: Logger, everySeconds: number): PushCatchUp {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown>;
  const schedule = (seen: Set<string>) => {
    if (stopped || everySeconds === 0) return;
    timer = setTimeout(() => {
      running = sweep(services, log, { onlyIfSeen: seen }, false).then(schedule);
    }, everySeconds * 1000);
    timer.unref();
  };
  running = sweep(services, log, {}, true).then(schedule);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

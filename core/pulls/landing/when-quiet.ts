// A branch's moves are announced to the pull requests waiting on it once the branch is quiet. A
// burst of auto-merges into a base (a CI backlog clearing) moves it many times within seconds.
// Announced at its first move, every pull request still waiting then was signalled, woke and
// started a settle timer, nearly all of them only to merge moments later: about a sixth of a
// burst's workflow history. Put off until the base has been still for QUIET_MS, a burst is
// announced once, after it, to those still waiting.
//
// The first move put off in a process holds its announcing activity until then and announces; the
// moves asked to be announced meanwhile return at once, left to it (it reads where the branch is
// when it runs). So an announcement is as durable as that activity: a worker that dies holding it
// has it retried by Temporal on another worker, which announces there. Only an auto-merge's
// announcement holds (its run ends after it): a request's run takes its next operation only once
// its announcement has ended, so a request's move is announced at once, unless one is held.
import { announceBranchMoved, baseBusyMs, noteBranchMoved, QUIET_MS } from './base-moved.js';
import { landingUnderWay } from './together.js';
import { failingPoint, faultPoint } from '../../fault-points.js';

/**
 * A branch that never goes quiet is still announced this long after the first move put off; less
 * than the announcing activity's 30 s start-to-close timeout, with room for the announcement.
 */
export const ANNOUNCE_AT_MOST_MS = 20_000;

/** Per branch: the announcement the holder will make (the newest caller's: the first one's worker may be stopping). */
const holders = new Map<string, { announce: () => Promise<void> }>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Notes that the branch moved. When another call in this process holds the branch's announcement,
 * leaves this move to it and resolves at once. Otherwise, with `hold`, holds it until the branch
 * has been still for QUIET_MS (no move noted, no landing under way or queued in this process), at
 * the latest `atMostMs` later, and announces; without, announces now. Rejects when the announcement
 * failed (the activity is retried).
 */
export async function announceWhenQuiet(
  repoId: number, branch: string, announce: () => Promise<void>, opts: { hold: boolean; atMostMs?: number },
): Promise<void> {
  noteBranchMoved(repoId, branch);
  const key = `${repoId}/${branch}`;
  const held = holders.get(key);
  if (held) {
    held.announce = announce;
    return;
  }
  if (!opts.hold) return announceBranchMoved(repoId, branch, announce);
  const atMostMs = opts.atMostMs ?? ANNOUNCE_AT_MOST_MS;
  const holder = { announce };
  holders.set(key, holder);
  faultPoint('announce:holding');
  try {
    const deadline = Date.now() + atMostMs;
    for (;;) {
      // A landing under way moves the branch again soon, however long it takes to build its chain.
      const busy = landingUnderWay(repoId, branch) ? QUIET_MS : baseBusyMs(repoId, branch);
      if (busy <= 0 || Date.now() >= deadline) break;
      await sleep(Math.min(busy, deadline - Date.now()));
    }
  } finally {
    holders.delete(key); // moves from now on are held by a call of their own
  }
  failingPoint('announce:after-hold');
  // Coalesced with the announcements of the branch already running (base-moved.ts).
  await announceBranchMoved(repoId, branch, holder.announce);
}

// The one "base moved" path: how the pull requests waiting on a branch learn that it moved.
// Announcements of one branch are coalesced (one runs at a time; those asked for meanwhile become
// one more, at least ANNOUNCE_GAP_MS later, of the branch where it is then), and a waiting pull
// request's git check is put off while its base keeps moving (baseBusyMs): a burst of N merges
// into a base costs a few announcements and, after it, one check per waiting pull request.
// In-process: another process's moves are not known here, and its pull requests check as before.

/** The base counts as busy for this long after it moved. */
export const QUIET_MS = 1_000;
/** Announcements of one branch are at least this far apart. */
const ANNOUNCE_GAP_MS = 500;
/** Branches forgotten when more than this many are remembered (the oldest first). */
const REMEMBERED = 10_000;

const lastMoved = new Map<string, number>();
const branchKey = (repoId: number, branch: string) => `${repoId}/${branch}`;

/** Remembers that the branch moved now. */
export function noteBranchMoved(repoId: number, branch: string): void {
  const key = branchKey(repoId, branch);
  lastMoved.delete(key); // re-inserted last: the map stays in order of moves
  lastMoved.set(key, Date.now());
  if (lastMoved.size > REMEMBERED) lastMoved.delete(lastMoved.keys().next().value!);
}

/** How long until the branch has been still for QUIET_MS (0: quiet, or not known to this process). */
export function baseBusyMs(repoId: number, branch: string): number {
  const at = lastMoved.get(branchKey(repoId, branch));
  return at === undefined ? 0 : Math.max(0, at + QUIET_MS - Date.now());
}

interface Pending {
  waiters: Array<{ resolve(): void; reject(err: unknown): void }>;
}

interface Slot {
  running: boolean;
  pending: Pending | null;
}

const slots = new Map<string, Slot>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `announce` for the branch, coalesced with the other requests for it: resolves once an
 * announcement that started after this call has finished (it reads where the branch is then).
 */
export function announceBranchMoved(repoId: number, branch: string, announce: () => Promise<void>): Promise<void> {
  const key = branchKey(repoId, branch);
  let slot = slots.get(key);
  if (!slot) slots.set(key, (slot = { running: false, pending: null }));
  const pending = (slot.pending ??= { waiters: [] });
  const done = new Promise<void>((resolve, reject) => pending.waiters.push({ resolve, reject }));
  if (!slot.running) void pump(key, slot, announce);
  return done;
}

async function pump(key: string, slot: Slot, announce: () => Promise<void>): Promise<void> {
  slot.running = true;
  while (slot.pending) {
    const { waiters } = slot.pending;
    slot.pending = null;
    try {
      await announce();
      for (const w of waiters) w.resolve();
    } catch (err) {
      for (const w of waiters) w.reject(err);
    }
    if (slot.pending) await sleep(ANNOUNCE_GAP_MS);
  }
  slot.running = false;
  slots.delete(key);
}

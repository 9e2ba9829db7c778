// Whether a landing's "base moved" announcement can be left to the landing behind it. In a burst of
// auto-merges into one base, each chain's tip announced its move, and every pull request waiting on
// the base was signalled by the first of them and again 30 s on: about one signal, workflow task
// and settle timer per pull request, nearly all for pull requests that merged moments later. A
// landing queued behind this one announces where it leaves the branch (every landing's tip does,
// and after a crash every resumed merge does: core/pulls/merge.ts), so this one need not.
import { nextLandingMove } from './together.js';

/** How long announcements may be left to the next landing: a burst that never ends is still told this often. */
const LEFT_AT_MOST_MS = 30_000;

const leftSince = new Map<string, number>();

/**
 * Waits for the landing this process has under way or queued into the branch, if any. True when it
 * moved the branch past `sha`: its own announcement tells the waiting pull requests, unless this
 * branch's announcements have been left to the next one for LEFT_AT_MOST_MS already.
 */
export async function leftToNextLanding(repoId: number, branch: string, sha: string): Promise<boolean> {
  let movedTo = await nextLandingMove(repoId, branch);
  // The landing that moved it to `sha` may still be finishing: wait for the one after it.
  while (movedTo === sha) movedTo = await nextLandingMove(repoId, branch);
  const key = `${repoId}/${branch}`;
  const since = leftSince.get(key) ?? Date.now();
  if (movedTo === null || Date.now() - since >= LEFT_AT_MOST_MS) {
    leftSince.delete(key); // this one is told
    return false;
  }
  leftSince.set(key, since);
  return true;
}

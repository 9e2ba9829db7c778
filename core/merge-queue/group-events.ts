// The merge queue's webhook events (GitHub's): `pull_request` enqueued/dequeued with the entry's row,
// and `merge_group` checks_requested/destroyed with each queue-branch move, each recorded in the
// transaction of the change that causes it.
import { isZeroSha } from '../../git/index.js';
import { issueEvent } from '../webhooks/issue-events.js';
import type { NewHookEvent } from '../webhooks/outbox.js';
import type { MovedRef } from '../webhooks/ref-events.js';
import { queueBranchIndex, type QueueEntry, type QueueKey } from '../../workflows/queue-messages.js';

/** What a checked group (a batch, named by its last entry's queue branch) is: its parent commit and who queued it. */
export interface GroupFacts {
  baseSha: string;
  doerId: number;
}

/** A pull_request `enqueued` or `dequeued` (with why) event of a queued pull request. */
export function queuePullEvent(key: QueueKey, issueId: number, action: 'enqueued' | 'dequeued', doerId: number | null, reason?: string): NewHookEvent {
  return issueEvent({ id: issueId, repo_id: key.repoId, is_pull: true }, 'main', action, doerId, reason === undefined ? {} : { reason });
}

/** Each batch's queue branch → the commit its first entry was built on and who queued its last. */
export function groupFacts(entries: QueueEntry[]): Map<string, GroupFacts> {
  const out = new Map<string, GroupFacts>();
  for (const e of entries) {
    if (!e.branch) continue;
    const first = entries.find((x) => x.batch === e.batch) ?? e;
    out.set(e.branch, { baseSha: first.builtOn, doerId: e.doerId });
  }
  return out;
}

/**
 * merge_group events of the queue branches that moved: a replaced or deleted commit is `destroyed`
 * (`merged` when the base now holds that commit, `invalidated` while its entry is still queued, else
 * `dequeued`), a new commit `checks_requested`.
 */
export function mergeGroupEvents(
  key: QueueKey, moved: MovedRef[], base: { tip: string | null; merged: Set<string> }, groups: Map<string, GroupFacts>, queued: Set<number>,
): NewHookEvent[] {
  const baseTip = base.tip;
  const baseRef = `refs/heads/${key.branch}`;
  const events: NewHookEvent[] = [];
  for (const u of moved) {
    const group = groups.get(u.ref.slice('refs/heads/'.length));
    const index = queueBranchIndex(u.ref);
    if (!isZeroSha(u.oldSha)) {
      const reason = base.merged.has(u.oldSha) ? 'merged' : queued.has(index) ? 'invalidated' : 'dequeued';
      events.push({
        repoId: key.repoId, event: 'merge_group', action: 'destroyed', doerId: null,
        detail: { kind: 'merge_group', headRef: u.ref, headSha: u.oldSha, baseRef, baseSha: baseTip ?? '', reason },
      });
    }
    if (!isZeroSha(u.newSha)) {
      events.push({
        repoId: key.repoId, event: 'merge_group', action: 'checks_requested', doerId: group?.doerId ?? null,
        detail: { kind: 'merge_group', headRef: u.ref, headSha: u.newSha, baseRef, baseSha: group?.baseSha || baseTip || '' },
      });
    }
  }
  return events;
}

// Landing a batch: the base moves once, by compare-and-swap, to exactly the commit whose checks
// passed (core/pulls/landing journals each pull request's commit first); each pull request is then
// marked merged by its own workflow, whose merge finds the journal and records it exactly once.
import { landChain, noteBranchMoved, type Chain, type ChainEntry } from '../pulls/landing/index.js';
import { setEntriesState } from './entries.js';
import { repoPathById } from './settings.js';
import { faultPoint } from '../fault-points.js';
import type { OperationDeps } from '../pulls/operation-context.js';
import type { LandResult, QueueKey } from '../../workflows/queue-messages.js';

export interface LandMember {
  index: number;
  pullId: number;
  commit: string;
  builtOn: string;
  mergeBase: string;
}

/** The merge operation (and pull workflow update) id that marks a landed member merged. */
export function landingOperationId(key: QueueKey, tip: string, index: number): string {
  return `queue/${key.repoId}/${key.branch}/land/${tip}/${index}`;
}

export async function landBatch(deps: OperationDeps, key: QueueKey, base: string, members: LandMember[]): Promise<LandResult> {
  const path = await repoPathById(deps.db, deps.config, key.repoId);
  if (!path) return { landed: false, reason: 'the repository is gone' };
  const tip = members[members.length - 1]!.commit;
  // Only pullId is read of an entry when a chain lands; the commits were built by the speculative build.
  const chain: Chain = {
    base, tip, rejected: [],
    links: members.map((m) => ({ entry: { pullId: m.pullId } as ChainEntry, base: m.builtOn, commit: m.commit, mergeBase: m.mergeBase })),
  };
  await setEntriesState(deps.db, key, members.map((m) => m.index), 'landing', { landing_commit: tip, landing_base: base });
  const operationIds = new Map(members.map((m) => [m.pullId, landingOperationId(key, tip, m.index)]));
  if (!(await landChain(deps.db, { repoPath: path, branch: key.branch, chain, operationIds, reason: 'merge queue' }))) {
    return { landed: false, reason: `${key.branch} moved outside the queue` };
  }
  faultPoint('queue:after-land');
  noteBranchMoved(key.repoId, key.branch);
  return { landed: true };
}

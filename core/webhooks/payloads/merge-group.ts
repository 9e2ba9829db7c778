// merge_group payloads: GitHub's event for the merge queue's speculative commits (Gitea has no
// merge queue, so no struct to follow): `checks_requested` when one is pushed to its queue branch,
// `destroyed` with a `reason` when the queue drops it.
import { repoDiskPath } from '../../repositories.js';
import { readCommits } from '../../../git/index.js';
import type { EventDetail } from '../outbox.js';
import type { PayloadContext } from './context.js';

type MergeGroupDetail = Extract<EventDetail, { kind: 'merge_group' }>;

/** GitHub's merge_group.head_commit; null when the commit is gone (a destroyed group may be collected). */
async function headCommit(pc: PayloadContext, sha: string) {
  const path = repoDiskPath(pc.deps.config, pc.view.owner.name, pc.view.repo.name);
  const [c] = await readCommits(path, [sha]).catch(() => []);
  if (!c) return null;
  return {
    id: c.sha, tree_id: c.tree, message: c.message, timestamp: c.committer.date,
    author: { name: c.author.name, email: c.author.email }, committer: { name: c.committer.name, email: c.committer.email },
  };
}

export async function mergeGroupPayload(pc: PayloadContext, action: string, d: MergeGroupDetail, doerId: number | null) {
  return {
    action,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
    merge_group: { head_sha: d.headSha, head_ref: d.headRef, base_sha: d.baseSha, base_ref: d.baseRef, head_commit: await headCommit(pc, d.headSha) },
    repository: await pc.repository({ mode: 'owner' }),
    sender: await pc.sender(doerId),
  };
}

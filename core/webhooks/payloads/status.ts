// The status payload (Gitea's CommitStatusPayload): a commit status as it was reported.
import { repoDiskPath } from '../../repositories.js';
import { statusesStore } from '../../../db/statuses.js';
import { unixToIso } from '../../../db/time.js';
import { readCommits } from '../../../git/index.js';
import type { EventDetail } from '../outbox.js';
import type { PayloadContext } from './context.js';
import { payloadCommits } from './refs.js';

type StatusDetail = Extract<EventDetail, { kind: 'status' }>;

export async function statusPayload(pc: PayloadContext, d: StatusDetail, doerId: number | null) {
  const status = await statusesStore(pc.deps.db).byId(d.statusId);
  if (!status || status.repo_id !== pc.view.repo.id) return null;
  const path = repoDiskPath(pc.deps.config, pc.view.owner.name, pc.view.repo.name);
  const [commit] = await payloadCommits(pc, path, await readCommits(path, [status.sha]).catch(() => []));
  const at = unixToIso(status.created_unix);
  return {
    commit: commit ?? null,
    context: status.context,
    created_at: at,
    description: status.description,
    id: status.id,
    repository: await pc.repository({ mode: 'owner' }),
    sender: await pc.sender(doerId ?? status.creator_id),
    sha: status.sha,
    state: status.state,
    target_url: status.target_url,
    // A status is never changed after it is made: its update time is its creation time.
    updated_at: at,
  };
}

// POST .../hooks/{id}/tests: Gitea's test delivery, the tip of a ref sent as a push to this hook
// alone. Recorded as an event already dispatched, with its one delivery, like any other.
import { randomUUID } from 'node:crypto';
import type { RepoContext } from '../permissions.js';
import { repoDiskPath } from '../repositories.js';
import { resolveRevision } from '../code-refs.js';
import { deliveriesStore, hookEventsStore, type HookRow } from '../../db/hooks.js';
import type { UserRow } from '../../db/users.js';
import { branchRef, resolveRef } from '../../git/index.js';
import { branchFilterPasses } from './branch-filter.js';
import { hookHears } from './events.js';
import { PayloadContext, payloadText, type PayloadDeps } from './payloads/context.js';
import { testPushPayload } from './payloads/refs.js';

/**
 * Records the test delivery; false when Gitea would send nothing: the hook does not hear pushes,
 * its branch filter refuses the ref, or there is no commit. An unknown ref falls back to the
 * default branch's tip but keeps its name in the payload, as Gitea's does.
 */
export async function recordTestDelivery(deps: PayloadDeps, ctx: RepoContext, hook: HookRow, doer: UserRow, ref: string | null): Promise<boolean> {
  const path = repoDiskPath(deps.config, ctx.owner.name, ctx.repo.name);
  const payloadRef = ref ?? branchRef(ctx.repo.default_branch);
  const sha = (ref ? await resolveRevision(path, ref) : null) ?? await resolveRef(path, branchRef(ctx.repo.default_branch));
  if (!sha || !hookHears(hook.events, 'push') || !branchFilterPasses(hook.branch_filter, payloadRef)) return false;
  const pc = await PayloadContext.forRepository(deps, ctx.repo.id);
  if (!pc) return false;
  const payload = payloadText(await testPushPayload(pc, payloadRef, sha, doer.id));
  const now = Date.now();
  await deps.db.transaction(async (trx) => {
    const eventId = await hookEventsStore(trx).insert({
      repo_id: ctx.repo.id, event: 'push', action: '', doer_id: doer.id, detail: JSON.stringify({ kind: 'ref', ref: payloadRef, before: sha, after: sha }),
      created_ms: now, payload, dispatched: true,
    }, trx);
    await deliveriesStore(trx).insertMany([{ hook_id: hook.id, event_id: eventId, uuid: randomUUID(), event: 'push', next_attempt_ms: now, created_ms: now }], trx);
  });
  return true;
}

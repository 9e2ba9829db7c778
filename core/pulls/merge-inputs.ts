// What a merge attempt starts from: the pull request's rows and repositories, the doer, and the
// references when the route could say where they are (read beside the rows).
import { usersStore, type UserRow } from '../../db/users.js';
import { loadPullOperationContext, type OperationDeps, type PullOperationContext } from './operation-context.js';
import type { EarlyRefs } from './mergeability.js';
import type { PullKey } from '../../workflows/pull-messages.js';

export interface MergeInputs {
  ctx: PullOperationContext;
  doer: UserRow | undefined;
  /** References read beside the rows (see MergeRequest.where). */
  early?: EarlyRefs;
}

export async function loadMergeInputs(deps: OperationDeps, key: PullKey, doerId: number): Promise<MergeInputs> {
  const [ctx, doer] = await Promise.all([loadPullOperationContext(deps, key), usersStore(deps.db).byId(doerId)]);
  return { ctx, doer };
}

// Speculative builds: for the entries being checked, the commits the base would be after each of
// them lands, built one after another on the base with the shared chain builder
// (core/pulls/landing), and the queue branches CI sees (`merge-queue/<base>/pr-<index>-<short head>`).
import type { Knex } from 'knex';
import { branchRef, isAncestor, listBranches, updateRef, deleteRef, resolveRef } from '../../git/index.js';
import { usersStore } from '../../db/users.js';
import { buildChain, type ChainEntry } from '../pulls/landing/index.js';
import { planMergeCommit } from '../pulls/merge-commit.js';
import { loadPullOperationContext, type OperationDeps } from '../pulls/operation-context.js';
import { recordHookEvents } from '../webhooks/outbox.js';
import { recordRefEvents } from '../webhooks/ref-events.js';
import { groupFacts, mergeGroupEvents } from './group-events.js';
import { setEntriesState } from './entries.js';
import { repoPathById } from './settings.js';
import { queueBranchIndex, type BuiltEntry, type QueueEntry, type QueueKey, type QueueSettings } from '../../workflows/queue-messages.js';

export interface BuildRequest {
  base: string;
  style: QueueSettings['style'];
  /** git's raw date for every commit of the build (the same inputs then give the same commits). */
  date: string;
  entries: Array<{ index: number; headSha: string; doerId: number }>;
}

async function chainEntry(deps: OperationDeps, key: QueueKey, e: BuildRequest['entries'][number], style: BuildRequest['style'], date: string): Promise<ChainEntry> {
  const [ctx, doer] = await Promise.all([loadPullOperationContext(deps, { repoId: key.repoId, index: e.index }), usersStore(deps.db).byId(e.doerId)]);
  if (!doer) throw new Error(`user ${e.doerId} who queued #${e.index} is gone`);
  const none = { status: 'mergeable' as const, headSha: e.headSha, baseSha: '', mergeBase: '', conflictedFiles: [], tree: '', baseTree: '' };
  const plan = await planMergeCommit(deps.db, ctx, doer, { title: '', message: '' }, style, none, date);
  return { pullId: ctx.pull.id, head: e.headSha, style, message: plan.message, author: plan.author, committer: plan.committer };
}

/** Builds each entry on the one before it (the first on `base`); an entry git refuses is left out. */
export async function buildSpeculative(deps: OperationDeps, key: QueueKey, req: BuildRequest): Promise<BuiltEntry[]> {
  const path = await repoPathById(deps.db, deps.config, key.repoId);
  if (!path) throw new Error(`repository ${key.repoId} is gone`);
  // The API shows them building until the workflow publishes the round's outcome.
  await setEntriesState(deps.db, key, req.entries.map((e) => e.index), 'building');
  const entries = await Promise.all(req.entries.map((e) => chainEntry(deps, key, e, req.style, req.date)));
  const chain = await buildChain(path, req.base, entries);
  const indexOf = new Map(entries.map((c, i) => [c, req.entries[i]!.index]));
  const built: BuiltEntry[] = chain.links.map((l) => ({ index: indexOf.get(l.entry)!, commit: l.commit, builtOn: l.base, mergeBase: l.mergeBase }));
  for (const r of chain.rejected) {
    const files = 'conflictedFiles' in r.error ? (r.error as { conflictedFiles: string[] }).conflictedFiles : [];
    const why = files.length > 0 ? `it conflicts with the entries ahead of it in ${files.join(', ')}` : `it cannot be merged on the entries ahead of it (${r.error.message})`;
    built.push({ index: indexOf.get(r.entry)!, commit: null, builtOn: r.base, mergeBase: '', conflict: why });
  }
  return built;
}

/**
 * Makes the queue's branches exactly `wanted` (name → commit): new ones created, moved ones moved,
 * the rest of `merge-queue/<base>/` deleted. Pushes are recorded as webhook push events, so a CI
 * system that builds on push sees each speculative commit, with their merge_group events.
 */
export async function syncQueueBranches(
  db: Knex, config: { APP_DATA_PATH: string }, key: QueueKey, wanted: Record<string, string>, doerId: number | null, entries: QueueEntry[] = [],
): Promise<void> {
  const path = await repoPathById(db, config, key.repoId);
  if (!path) return;
  const prefix = `merge-queue/${key.branch}/`;
  const existing = new Map((await listBranches(path)).filter((b) => b.name.startsWith(prefix)).map((b) => [b.name, b.sha]));
  const moved: Array<{ ref: string; oldSha: string; newSha: string }> = [];
  const zero = '0'.repeat(40);
  for (const [name, commit] of Object.entries(wanted)) {
    const old = existing.get(name) ?? null;
    if (old === commit) continue;
    const ref = branchRef(name);
    if (!(await updateRef(path, ref, commit, old, { reason: 'merge queue build' }))) await updateRef(path, ref, commit, await resolveRef(path, ref), { reason: 'merge queue build' });
    moved.push({ ref, oldSha: old ?? zero, newSha: commit });
  }
  for (const [name, sha] of existing) {
    if (name in wanted) continue;
    if (await deleteRef(path, branchRef(name), sha, { reason: 'merge queue entry done' })) moved.push({ ref: branchRef(name), oldSha: sha, newSha: zero });
  }
  if (moved.length === 0) return;
  const tip = await resolveRef(path, branchRef(key.branch));
  const merged = new Set<string>();
  for (const u of moved) if (tip && u.oldSha !== zero && (await isAncestor(path, u.oldSha, tip))) merged.add(u.oldSha);
  const groups = mergeGroupEvents(key, moved, { tip, merged }, groupFacts(entries), new Set(entries.map((e) => e.index)));
  const pushers = await queueBranchPushers(db, key.repoId, moved, entries, doerId);
  await db.transaction(async (trx) => {
    for (const [pusherId, refs] of pushers) await recordRefEvents(trx, key.repoId, pusherId, refs);
    await recordHookEvents(trx, groups);
  });
}

/**
 * Who pushed each queue branch, for its push event: whoever queued the entry it was built for (its
 * index is in the branch name), else `doerId`, else the repository's owner (the queue acts for the
 * repository once an entry has left).
 */
async function queueBranchPushers<T extends { ref: string }>(db: Knex, repoId: number, moved: T[], entries: QueueEntry[], doerId: number | null): Promise<Map<number, T[]>> {
  const queuedBy = new Map(entries.map((e) => [e.index, e.doerId]));
  let owner: number | undefined;
  const out = new Map<number, T[]>();
  for (const u of moved) {
    let pusher = queuedBy.get(queueBranchIndex(u.ref)) ?? doerId;
    if (pusher === null) pusher = owner ??= Number((await db('repositories').where({ id: repoId }).first('owner_id'))?.owner_id ?? 0);
    out.set(pusher, [...(out.get(pusher) ?? []), u]);
  }
  return out;
}

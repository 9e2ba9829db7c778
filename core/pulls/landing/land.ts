// Landing: the base branch moves once, by compare-and-swap, to a chain's tip, with the merge
// journal's guarantee. Every merged pull request's journal (merge_operation_id, pending_merge_commit)
// names its commit before the branch moves; each pull request is then marked merged by its own
// workflow, whose merge finds its journal (core/pulls/merge.ts, resumeJournalled) and records it.
// A crash anywhere is resolved there: a journalled commit the branch contains is recorded, one it
// does not contain is forgotten and merged afresh.
import type { Knex } from 'knex';
import { branchRef, isAncestor, resolveRef, updateRef } from '../../../git/index.js';
import type { Chain } from './chain.js';

/** Base branches moved by a landing, for /metrics (pullhost_base_moves_total). */
let baseMoves = 0;
export function baseMoveCount(): number {
  return baseMoves;
}

export interface Landing {
  /** The bare base repository. */
  repoPath: string;
  branch: string;
  chain: Chain;
  /** The merge operation id journalled for each linked pull request (by pull_requests.id). */
  operationIds: ReadonlyMap<number, string>;
  /** The reflog message (the chain's size is appended). */
  reason?: string;
}

/** Journals each link of the chain: its operation id, its commit and merge base, in one transaction. */
async function journal(db: Knex, l: Landing): Promise<void> {
  await db.transaction(async (trx) => {
    for (const link of l.chain.links) {
      const operationId = l.operationIds.get(link.entry.pullId);
      if (!operationId) throw new TypeError(`no operation id for pull request ${link.entry.pullId}`);
      await trx('pull_requests').where({ id: link.entry.pullId, has_merged: false }).update({
        merge_operation_id: operationId, pending_merge_commit: link.commit, pending_merge_base: link.mergeBase,
      });
    }
  });
}

/** Drops the journal entries of a landing that did not move the branch (those still naming its commits). */
async function forget(db: Knex, l: Landing): Promise<void> {
  await db.transaction(async (trx) => {
    for (const link of l.chain.links) {
      await trx('pull_requests').where({ id: link.entry.pullId, pending_merge_commit: link.commit, has_merged: false })
        .update({ pending_merge_commit: null, pending_merge_base: null });
    }
  });
}

/**
 * Journals the chain's links, then moves `branch` from the chain's base to its tip by
 * compare-and-swap. True when the branch is at the tip or past it (a retry of a landing that moved
 * it); false when it had moved elsewhere (the journals are forgotten: build again on the new base).
 */
export async function landChain(db: Knex, l: Landing): Promise<boolean> {
  const { chain } = l;
  if (chain.links.length === 0) return true;
  await journal(db, l);
  const ref = branchRef(l.branch);
  const reason = `${l.reason ?? 'merge pull requests'} (${chain.links.length} in one landing)`;
  if (await updateRef(l.repoPath, ref, chain.tip, chain.base, { reason })) {
    baseMoves++;
    return true;
  }
  const current = await resolveRef(l.repoPath, ref);
  if (current && (current === chain.tip || (await isAncestor(l.repoPath, chain.tip, current)))) return true;
  await forget(db, l);
  return false;
}

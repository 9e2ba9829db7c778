// Merges that are due together into one base land together: the first to arrive lands alone, and
// those that arrive while it lands wait and then land as one chain (group commit), so a burst of N
// auto-merges moves the base a handful of times, not N times, and nobody checks mergeability first.
import type { Knex } from 'knex';
import { branchRef, resolveRef } from '../../../git/index.js';
import { withKeyedLock } from '../../keyed-lock.js';
import { buildChain, type ChainEntry, type ChainLink, type ChainRejection } from './chain.js';
import { landChain } from './land.js';
import { noteBranchMoved } from './base-moved.js';

/** The largest chain one landing builds (a longer wait lands in the next). */
const MAX_CHAIN = 200;
/** Landings retried when the base moved under the chain (a push, another worker). */
const CAS_ATTEMPTS = 10;

export interface LandingTarget {
  repoPath: string;
  repoId: number;
  branch: string;
}

export interface TogetherRequest {
  entry: ChainEntry;
  /** Journalled with the commit (see land.ts). */
  operationId: string;
}

export type TogetherResult =
  /** Landed: the base branch contains `link.commit`; the caller records the merge. tip: its commit is the chain's last. */
  | { landed: ChainLink; tip: boolean }
  | { rejected: ChainRejection['error'] }
  /** The base kept moving under every attempt. */
  | { outOfDate: true }
  /**
   * The pull request was merged, or this operation's journal written, by another attempt meanwhile
   * (a retried activity whose first attempt is still running): the caller resumes from the journal.
   */
  | { journalled: true };

interface Waiting {
  request: TogetherRequest;
  resolve(result: TogetherResult): void;
  reject(err: unknown): void;
}

const queues = new Map<string, Waiting[]>();

/** Lands one merge, together with the others due into the same base meanwhile in this process. */
export function landTogether(db: Knex, target: LandingTarget, request: TogetherRequest): Promise<TogetherResult> {
  return new Promise((resolve, reject) => {
    const key = `${target.repoId}/${target.branch}`;
    let queue = queues.get(key);
    const lead = !queue;
    if (!queue) queues.set(key, (queue = []));
    queue.push({ request, resolve, reject });
    if (lead) void drain(db, target, key, queue);
  });
}

/** Whether this process is landing into the branch, or has merges queued to land into it. */
export function landingUnderWay(repoId: number, branch: string): boolean {
  return queues.has(`${repoId}/${branch}`);
}

async function drain(db: Knex, target: LandingTarget, key: string, queue: Waiting[]): Promise<void> {
  while (queue.length > 0) {
    const batch = queue.splice(0, MAX_CHAIN);
    // The merge lock of this base (core/pulls/merge.ts): a plain merge in this process waits its turn.
    try {
      await withKeyedLock(`merge/${key}`, () => landBatch(db, target, batch));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
  queues.delete(key);
}

/**
 * Waiters whose pull request another attempt has merged or journalled meanwhile are told so (their
 * caller resumes from the journal); of several waiters for one pull request, one goes into the
 * chain and the others share its result. Returns the waiters to chain.
 */
async function settleDuplicates(db: Knex, batch: Waiting[]): Promise<Waiting[]> {
  const rows = await db('pull_requests').whereIn('id', [...new Set(batch.map((w) => w.request.entry.pullId))])
    .select('id', 'has_merged', 'merge_operation_id', 'pending_merge_commit');
  const byId = new Map(rows.map((r: Record<string, unknown>) => [Number(r.id), r]));
  const chosen = new Map<number, Waiting>();
  for (const w of batch) {
    const row = byId.get(w.request.entry.pullId);
    if (!row || row.has_merged || (row.pending_merge_commit && row.merge_operation_id === w.request.operationId)) {
      w.resolve({ journalled: true });
      continue;
    }
    const first = chosen.get(w.request.entry.pullId);
    if (!first) { chosen.set(w.request.entry.pullId, w); continue; }
    const { resolve, reject } = first;
    first.resolve = (result) => { resolve(result); w.resolve(result); };
    first.reject = (err) => { reject(err); w.reject(err); };
  }
  return [...chosen.values()];
}

async function landBatch(db: Knex, target: LandingTarget, batch: Waiting[]): Promise<void> {
  let remaining = await settleDuplicates(db, batch);
  for (let attempt = 1; attempt <= CAS_ATTEMPTS && remaining.length > 0; attempt++) {
    const base = await resolveRef(target.repoPath, branchRef(target.branch));
    if (!base) throw new Error(`base branch ${target.branch} is gone`);
    const chain = await buildChain(target.repoPath, base, remaining.map((w) => w.request.entry));
    const waiterOf = (entry: ChainEntry) => remaining.find((w) => w.request.entry === entry)!;
    for (const r of chain.rejected) waiterOf(r.entry).resolve({ rejected: r.error });
    const operationIds = new Map(remaining.map((w) => [w.request.entry.pullId, w.request.operationId]));
    if (await landChain(db, { repoPath: target.repoPath, branch: target.branch, chain, operationIds, reason: 'auto-merge' })) {
      if (chain.links.length > 0) noteBranchMoved(target.repoId, target.branch);
      for (const link of chain.links) waiterOf(link.entry).resolve({ landed: link, tip: link.commit === chain.tip });
      return;
    }
    const linked = new Set(chain.links.map((l) => l.entry));
    remaining = remaining.filter((w) => linked.has(w.request.entry));
  }
  for (const w of remaining) w.resolve({ outOfDate: true });
}

// Pieces the merge queue tests (and bench/merge-queue.ts) share: turning the queue on, a simulated
// CI that sees queue branches and posts statuses after a delay, and checks of the base's history.
import { execFileSync } from 'node:child_process';
import { repoDiskPath } from '../../core/repositories.js';
import { gitOk } from '../../git/runner.js';
import type { PullWorld } from '../pulls/fixtures.js';

export interface QueueOptions {
  depth?: number;
  maxBatch?: number;
  batchWaitSeconds?: number;
  checkTimeoutSeconds?: number;
  style?: string;
}

export async function enableQueue(w: PullWorld, o: QueueOptions = {}) {
  return w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
    enable_merge_queue: true, merge_queue_depth: o.depth ?? 1, merge_queue_max_batch: o.maxBatch ?? 1,
    merge_queue_batch_wait_seconds: o.batchWaitSeconds ?? 0, merge_queue_check_timeout_seconds: o.checkTimeoutSeconds ?? 600,
    ...(o.style ? { merge_queue_merge_style: o.style } : {}),
  } });
}

export function join(w: PullWorld, index: number, as = 'alice') {
  return w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${index}/merge`, as, body: { merge_when_checks_succeed: true } });
}

const QUEUE_BRANCHES = ['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads/merge-queue/'];
const branchMap = (out: string) => new Map(out.split('\n').filter(Boolean).map((l) => l.split(' ') as [string, string]));

/** The queue branches in the bare repository, as a CI system polling it sees them: name → commit. */
export function queueBranches(w: PullWorld): Map<string, string> {
  return branchMap(execFileSync('git', ['--git-dir', repoDiskPath(w.config, 'alice', 'widget'), ...QUEUE_BRANCHES], { encoding: 'utf8' }));
}

/**
 * The same without blocking this process, whose event loop the service under test shares: the
 * simulated CI read them with a synchronous git every 50 ms, which took a third of the process's CPU
 * and, under CI load, held the worker's workflow tasks past their timeout.
 */
async function readQueueBranches(w: PullWorld): Promise<Map<string, string>> {
  return branchMap(await gitOk(QUEUE_BRANCHES, { cwd: repoDiskPath(w.config, 'alice', 'widget') }));
}

export interface SimulatedCi {
  /** Commits it built, with the verdict it posted. */
  verdicts: Map<string, 'success' | 'failure'>;
  stop(): Promise<void>;
}

/**
 * A CI system: polls the queue branches every `pollMs`, and `delayMs` after it first sees a commit
 * posts `ci` = failure when `fails(commit, branch)` says so, else success. Each commit is built once.
 */
export function simulateCi(w: PullWorld, o: { delayMs: number; pollMs?: number; fails?: (commit: string, branch: string) => boolean }): SimulatedCi {
  const verdicts = new Map<string, 'success' | 'failure'>();
  const seen = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const posting = new Set<Promise<unknown>>();
  let stopped = false;
  const post = (commit: string, state: 'success' | 'failure') => {
    const p = w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${commit}`, as: 'alice', body: { state, context: 'ci', description: state === 'failure' ? 'tests failed' : 'tests passed' } });
    posting.add(p);
    void p.finally(() => posting.delete(p));
  };
  const poll = async () => {
    if (stopped) return;
    for (const [branch, commit] of await readQueueBranches(w)) {
      if (seen.has(commit)) continue;
      seen.add(commit);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (stopped) return;
        const state = o.fails?.(commit, branch) ? 'failure' : 'success';
        verdicts.set(commit, state);
        post(commit, state);
      }, o.delayMs);
      timers.add(timer);
    }
  };
  // One read at a time, the next pollMs after the last ended.
  const polling = (async () => {
    while (!stopped) {
      await poll();
      await new Promise((r) => setTimeout(r, o.pollMs ?? 50));
    }
  })();
  return {
    verdicts,
    async stop() {
      stopped = true;
      await polling;
      for (const t of timers) clearTimeout(t);
      await Promise.allSettled([...posting]);
    },
  };
}

/** The first-parent history of main from `from` (exclusive) to its tip, oldest first. */
export function firstParents(w: PullWorld, from: string): string[] {
  const out = execFileSync('git', ['--git-dir', repoDiskPath(w.config, 'alice', 'widget'), 'rev-list', '--first-parent', '--reverse', `${from}..refs/heads/main`], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

/** The latest `ci` state of a commit. */
export async function ciState(w: PullWorld, sha: string): Promise<string | null> {
  const row = await w.db('commit_statuses').where({ sha, context: 'ci' }).orderBy('id', 'desc').first('state');
  return row ? String(row.state) : null;
}

/** Whether `commit` contains `ancestor` (a speculative commit built with a given pull request's head). */
export function contains(w: PullWorld, ancestor: string, commit: string): boolean {
  try {
    execFileSync('git', ['--git-dir', repoDiskPath(w.config, 'alice', 'widget'), 'merge-base', '--is-ancestor', ancestor, commit]);
    return true;
  } catch {
    return false;
  }
}

/** The merge queue timeline comments of a pull request, oldest first. */
export async function queueComments(w: PullWorld, index: number): Promise<string[]> {
  const rows = await w.db('comments as c').join('pull_requests as p', 'p.issue_id', 'c.issue_id').where('p.index', index)
    .whereIn('c.type', ['merge_queue_join', 'merge_queue_leave']).orderBy('c.id').select('c.content');
  return rows.map((r: { content: string }) => r.content);
}

/** The history of the queue workflow of `branch` (in the world's one repository). */
function queueHistory(w: PullWorld, branch: string) {
  return w.pullWorkflows!.client.workflow.getHandle(w.pullWorkflows!.queueWorkflowId({ repoId: 1, branch })).fetchHistory();
}

/** The pull requests of the queue's join updates, in the order its workflow accepted them (its history). */
export async function acceptedJoins(w: PullWorld, branch = 'main'): Promise<number[]> {
  const history = await queueHistory(w, branch);
  const order: number[] = [];
  for (const e of history.events ?? []) {
    const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (request?.input?.name !== 'join') continue;
    const data = request.input.args?.payloads?.[0]?.data;
    const index = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { index: number }).index : 0;
    if (!order.includes(index)) order.push(index);
  }
  return order;
}

/** What the queue's workflow showed over its history: each entry state it published and each memo line. */
export async function queueHistoryStates(w: PullWorld, branch = 'main'): Promise<{ published: Array<{ index: number; state: string; checks: unknown[] }>; memo: string[] }> {
  const decode = (data: Uint8Array | null | undefined) => (data ? JSON.parse(Buffer.from(data).toString('utf8')) : null);
  const published: Array<{ index: number; state: string; checks: unknown[] }> = [];
  const memo: string[] = [];
  for (const e of (await queueHistory(w, branch)).events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'publishQueue') published.push(...(decode(scheduled.input?.payloads?.[1]?.data) as Array<{ index: number; state: string; checks: unknown[] }>));
    const entries = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.entries;
    if (entries) memo.push(...(decode(entries.data) as string[]));
  }
  return { published, memo };
}

// Callers of the per-pull-request workflows: the API (Update-With-Start, so that the first
// operation starts the workflow, and signal-with-start for notifications) and activities that tell
// other pull requests a branch moved (through the worker's own client).
import {
  Client, Connection, WithStartWorkflowOperation, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError, defaultGrpcRetryOptions, makeGrpcRetryInterceptor,
} from '@temporalio/client';
import type { UpdateDefinition, SignalDefinition, Workflow } from '@temporalio/common';
import { pullRequestWorkflow } from '../workflows/pull.js';
import { PULL_WORKFLOW_REVISION, pullWorkflowId, type OperationOutcome, type PullKey, type PullWorkflowInput } from '../workflows/pull-messages.js';
import { mergeQueueWorkflow } from '../workflows/queue.js';
import { queueNudgeSignal, queueWorkflowId, type QueueKey, type QueueWorkflowInput } from '../workflows/queue-messages.js';
import { connectionOptions, type TemporalConnectionSettings } from './temporal-connection.js';
import { classifyUpdateFailure, worthRetrying, type UpdateFailure, type UpdateFailureKind } from './update-failures.js';

export interface PullWorkflowSettings extends TemporalConnectionSettings {
  namespace: string;
  taskQueue: string;
  /** Given to workflows this client starts (TEMPORAL_HISTORY_EVENT_LIMIT); absent: the workflow's default. */
  historyEventLimit?: number;
  /** TEMPORAL_WORKFLOW_ID_PREFIX. */
  workflowIdPrefix?: string;
}

/** How long an operation may wait for its workflow's answer before the caller is told to retry (503). */
const OPERATION_TIMEOUT_MS = 120_000;
/** How long failures that prove nothing ran, or a busy or unreachable service, are retried. */
const RETRY_BUDGET_MS = 10_000;
/**
 * Updates this process keeps in flight per workflow. The server admits 10 per workflow
 * (history.maxInFlightUpdates); past that it answers RESOURCE_EXHAUSTED and, in doing so, drops
 * its in-memory state of the run — the speculative workflow task a worker is running included —
 * which loses updates (see README, "Racing operations"). Later ones wait here instead.
 */
const IN_FLIGHT_PER_WORKFLOW = 8;
/**
 * The SDK retries busy answers itself for about 20 s (10 attempts); this client retries them
 * within its own budget instead, so an unreachable frontend is reported in seconds.
 */
const SDK_ATTEMPTS = 3;
/** A call that stops this long before the operation's deadline stopped for another reason. */
const EARLY_STOP_MARGIN_MS = 1_000;

/** An operation that did not get its workflow's answer, with what the failure proves. */
export class PullUpdateError extends Error {
  constructor(readonly failure: UpdateFailure, readonly attempts: number, override readonly cause: unknown) {
    super(`pull request operation failed (${failure.kind}) after ${attempts} attempt(s): ${failure.detail}`);
    this.name = 'PullUpdateError';
  }
}

/** Told of each failed attempt that will be retried (the API logs it with its request id). */
export type RetryListener = (failure: UpdateFailure, attempt: number, err: unknown) => void;

/** Runs at most `limit` calls at once per key, the rest in arrival order. */
class KeyedLimit {
  private readonly slots = new Map<string, { running: number; waiting: Array<() => void> }>();
  constructor(public limit: number) {}

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let slot = this.slots.get(key);
    if (!slot) this.slots.set(key, (slot = { running: 0, waiting: [] }));
    if (slot.running >= this.limit) await new Promise<void>((resolve) => slot!.waiting.push(resolve));
    else slot.running++;
    try {
      return await fn();
    } finally {
      const next = slot.running <= this.limit ? slot.waiting.shift() : undefined;
      if (next) next(); // the slot passes to the next caller as it is
      else if (--slot.running === 0) this.slots.delete(key);
    }
  }
}

/**
 * A call that timed out or was cancelled well before this client's own deadline: the server's or a
 * proxy's long-poll limit, a dropped stream. It proves nothing about the update, which may be
 * running: its outcome is worth waiting for.
 */
function stoppedEarly(err: unknown, deadline: number): boolean {
  return err instanceof WorkflowUpdateRPCTimeoutOrCancelledError && Date.now() < deadline - EARLY_STOP_MARGIN_MS;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** 100 ms doubling to 1 s, jittered so that racing callers spread out. */
const backoff = (attempt: number) => Math.min(1000, 50 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random());

export class PullWorkflowClient {
  /** Overridable per instance (tests shorten them). */
  operationTimeoutMs = OPERATION_TIMEOUT_MS;
  retryBudgetMs = RETRY_BUDGET_MS;
  private readonly inFlight = new KeyedLimit(IN_FLIGHT_PER_WORKFLOW);
  /** Attempts sent again, by what the failure before proved ('no-answer': waited on again by id, not sent). */
  readonly retried: Record<UpdateFailureKind, number> = { 'never-ran': 0, busy: 0, refused: 0, 'no-answer': 0, unavailable: 0 };

  /** Updates kept in flight per workflow (tests lift it to reach the server's own limit). */
  get inFlightPerWorkflow(): number {
    return this.inFlight.limit;
  }

  set inFlightPerWorkflow(limit: number) {
    this.inFlight.limit = limit;
  }

  private constructor(
    readonly client: Client,
    /** Closed by close() when this object opened it. */
    private readonly connection: Connection | null,
    private readonly taskQueue: string,
    private readonly historyEventLimit: number | undefined,
    private readonly workflowIdPrefix: string,
  ) {}

  static async connect(s: PullWorkflowSettings): Promise<PullWorkflowClient> {
    const connection = await Connection.connect({
      ...connectionOptions(s), connectTimeout: '5 seconds', interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: SDK_ATTEMPTS }))],
    });
    return new PullWorkflowClient(new Client({ connection, namespace: s.namespace }), connection, s.taskQueue, s.historyEventLimit, s.workflowIdPrefix ?? '');
  }

  /** Over a client someone else owns (an activity's), for workflows on `taskQueue`. */
  static over(client: Client, s: Omit<PullWorkflowSettings, keyof TemporalConnectionSettings | 'namespace'>): PullWorkflowClient {
    return new PullWorkflowClient(client, null, s.taskQueue, s.historyEventLimit, s.workflowIdPrefix ?? '');
  }

  /** The id of the pull request's workflow in this installation. */
  workflowId(key: PullKey): string {
    return pullWorkflowId(key, this.workflowIdPrefix);
  }

  private input(key: PullKey): PullWorkflowInput {
    const input: PullWorkflowInput = { key, revision: PULL_WORKFLOW_REVISION };
    if (this.historyEventLimit) input.historyEventLimit = this.historyEventLimit;
    return input;
  }

  private startOperation(key: PullKey) {
    return new WithStartWorkflowOperation(pullRequestWorkflow, {
      workflowId: this.workflowId(key),
      taskQueue: this.taskQueue,
      args: [this.input(key)],
      workflowIdConflictPolicy: 'USE_EXISTING',
      memo: { repoId: key.repoId, index: key.index },
    });
  }

  /**
   * Runs one operation in the pull request's workflow, starting it when needed, and returns the
   * workflow's answer. `updateId` names the operation: the same id sent again while its run lasts
   * gets the first answer back. An attempt is repeated only when its failure proves the update
   * never ran (the server rejected it unprocessed or aborted it before acceptance: the next attempt
   * may reach the next run) or the service was busy or unreachable (the same id joins the first
   * attempt if that got through), within the retry budget. A call that timed out or was cancelled
   * well before the deadline proves nothing: the outcome is then awaited by the update's id, never
   * sent again. Anything else, or the deadline, throws a PullUpdateError saying what is known.
   */
  async execute<A extends unknown[]>(
    key: PullKey,
    update: UpdateDefinition<OperationOutcome, A>,
    args: A,
    updateId: string,
    onRetry?: RetryListener,
  ): Promise<OperationOutcome> {
    return this.runUpdate(this.workflowId(key), () => this.startOperation(key), update, args, updateId, onRetry);
  }

  /** The id of a merge queue's workflow in this installation. */
  queueWorkflowId(key: QueueKey): string {
    return queueWorkflowId(key, this.workflowIdPrefix);
  }

  /** Runs a join or leave in the merge queue's workflow, starting it when needed (as execute). */
  async executeQueue<A extends unknown[]>(
    key: QueueKey, update: UpdateDefinition<OperationOutcome, A>, args: A, updateId: string, onRetry?: RetryListener,
  ): Promise<OperationOutcome> {
    const workflowId = this.queueWorkflowId(key);
    const input: QueueWorkflowInput = this.historyEventLimit ? { key, historyEventLimit: this.historyEventLimit } : { key };
    const start = () => new WithStartWorkflowOperation(mergeQueueWorkflow, {
      workflowId, taskQueue: this.taskQueue, args: [input], workflowIdConflictPolicy: 'USE_EXISTING', memo: { repoId: key.repoId, branch: key.branch },
    });
    return this.runUpdate(workflowId, start, update, args, updateId, onRetry);
  }

  /**
   * Tells a merge queue that something it depends on changed. A queue with no running workflow has
   * no entries to care: not found is not an error.
   */
  async nudgeQueue(key: QueueKey, reason: string): Promise<void> {
    try {
      await this.client.workflow.getHandle(this.queueWorkflowId(key)).signal(queueNudgeSignal, reason);
    } catch (err) {
      if ((err as Error).name !== 'WorkflowNotFoundError') throw err;
    }
  }

  private async runUpdate<A extends unknown[], W extends Workflow>(
    workflowId: string,
    startOperation: () => WithStartWorkflowOperation<W>,
    update: UpdateDefinition<OperationOutcome, A>,
    args: A,
    updateId: string,
    onRetry?: RetryListener,
  ): Promise<OperationOutcome> {
    const deadline = Date.now() + this.operationTimeoutMs;
    const retryUntil = Date.now() + this.retryBudgetMs;
    return this.inFlight.run(workflowId, async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.client.withDeadline(deadline, () => this.client.workflow.executeUpdateWithStart(update, {
            args,
            updateId,
            startWorkflowOperation: startOperation(),
          }));
        } catch (err) {
          const failure = classifyUpdateFailure(err);
          if (stoppedEarly(err, deadline)) {
            this.retried['no-answer']++;
            onRetry?.(failure, attempt, err);
            return await this.awaitOutcome(workflowId, updateId, deadline, new PullUpdateError(failure, attempt, err));
          }
          const pause = backoff(attempt);
          if (!worthRetrying(failure.kind) || Date.now() + pause > Math.min(retryUntil, deadline)) throw new PullUpdateError(failure, attempt, err);
          this.retried[failure.kind]++;
          onRetry?.(failure, attempt, err);
          await sleep(pause);
        }
      }
    });
  }

  /**
   * Waits for the outcome of an update that may be running, by its id, without sending it again
   * (so it can never run twice). An update the server does not know (never admitted, or its run has
   * ended and taken it along) or the deadline leaves `unanswered` as the answer.
   */
  private async awaitOutcome(workflowId: string, updateId: string, deadline: number, unanswered: PullUpdateError): Promise<OperationOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.client.withDeadline(deadline, () => this.client.workflow.getHandle(workflowId).getUpdateHandle<OperationOutcome>(updateId).result());
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError) throw new PullUpdateError(classifyUpdateFailure(err), unanswered.attempts, err);
        const pause = backoff(attempt);
        const again = stoppedEarly(err, deadline) || classifyUpdateFailure(err).kind === 'busy';
        if (!again || Date.now() + pause > deadline) throw unanswered;
        await sleep(pause);
      }
    }
  }

  /** Signal-with-start; a busy or unreachable service is retried within the retry budget. */
  async signal<A extends unknown[]>(key: PullKey, signal: SignalDefinition<A>, args: A): Promise<void> {
    const options = {
      workflowId: this.workflowId(key),
      taskQueue: this.taskQueue,
      args: [this.input(key)],
      signal: signal.name,
      signalArgs: args as unknown[],
      memo: { repoId: key.repoId, index: key.index },
    };
    const retryUntil = Date.now() + this.retryBudgetMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.workflow.signalWithStart(pullRequestWorkflow, options as never);
        return;
      } catch (err) {
        const pause = backoff(attempt);
        // (A signal sent twice only repeats a check: any busy answer is worth another try.)
        if (classifyUpdateFailure(err).kind !== 'busy' || Date.now() + pause > retryUntil) throw err;
        await sleep(pause);
      }
    }
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }
}

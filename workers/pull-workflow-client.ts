// Callers of the per-pull-request workflows: the API (Update-With-Start, so that the first
// operation starts the workflow, and signal-with-start for notifications) and activities that tell
// other pull requests a branch moved (through the worker's own client).
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import type { UpdateDefinition, SignalDefinition } from '@temporalio/common';
import { pullRequestWorkflow } from '../workflows/pull.js';
import { pullWorkflowId, type OperationOutcome, type PullKey, type PullWorkflowInput } from '../workflows/pull-messages.js';
import { connectionOptions, type TemporalConnectionSettings } from './temporal-connection.js';

export interface PullWorkflowSettings extends TemporalConnectionSettings {
  namespace: string;
  taskQueue: string;
  /** Given to workflows this client starts (TEMPORAL_HISTORY_EVENT_LIMIT); absent: the workflow's default. */
  historyEventLimit?: number;
  /** TEMPORAL_WORKFLOW_ID_PREFIX. */
  workflowIdPrefix?: string;
}

export class PullWorkflowClient {
  private constructor(
    readonly client: Client,
    /** Closed by close() when this object opened it. */
    private readonly connection: Connection | null,
    private readonly taskQueue: string,
    private readonly historyEventLimit: number | undefined,
    private readonly workflowIdPrefix: string,
  ) {}

  static async connect(s: PullWorkflowSettings): Promise<PullWorkflowClient> {
    const connection = await Connection.connect({ ...connectionOptions(s), connectTimeout: '5 seconds' });
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
    return this.historyEventLimit ? { key, historyEventLimit: this.historyEventLimit } : { key };
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
   * Runs one operation in the pull request's workflow, starting it when needed. The update id is
   * the request's idempotency key: a retried request gets the first answer back.
   */
  async execute<A extends unknown[]>(
    key: PullKey,
    update: UpdateDefinition<OperationOutcome, A>,
    args: A,
    idempotencyKey: string,
  ): Promise<OperationOutcome> {
    return this.client.workflow.executeUpdateWithStart(update, {
      args,
      updateId: idempotencyKey,
      startWorkflowOperation: this.startOperation(key),
    });
  }

  async signal<A extends unknown[]>(key: PullKey, signal: SignalDefinition<A>, args: A): Promise<void> {
    const options = {
      workflowId: this.workflowId(key),
      taskQueue: this.taskQueue,
      args: [this.input(key)],
      signal: signal.name,
      signalArgs: args as unknown[],
      memo: { repoId: key.repoId, index: key.index },
    };
    await this.client.workflow.signalWithStart(pullRequestWorkflow, options as never);
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }
}

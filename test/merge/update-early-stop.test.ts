// An update's call that times out long before the operation's deadline (the server's or a proxy's
// limit, a dropped stream) proves nothing about the update: the client waits for its outcome by id
// instead of answering 503, and never sends it again. The calls are really made to the real server;
// only their answers are replaced, on the way back, by a gRPC interceptor.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { InterceptingCall, status, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { PullUpdateError, PullWorkflowClient } from '../../workers/pull-workflow-client.js';
import { mergeUpdate } from '../../workflows/pull-messages.js';
import { pullWorld } from '../pulls/fixtures.js';
import { directMerge, mergesSince, openPull, refOf, widgetRepoId } from './world.js';

const UPDATE_CALLS = /\/(ExecuteMultiOperation|PollWorkflowExecutionUpdate)$/;

/**
 * Answers the next `count` update calls with DEADLINE_EXCEEDED: `afterServer` lets each reach the
 * server and drops its answer, otherwise the call never leaves this process.
 */
function earlyStops(): { interceptor: Interceptor; arm(count: number, afterServer: boolean): void; calls: string[] } {
  let left = 0;
  let afterServer = true;
  const calls: string[] = [];
  const deadlineExceeded = { code: status.DEADLINE_EXCEEDED, details: 'stopped early by the test', metadata: undefined as never };
  const interceptor: Interceptor = (options, nextCall) => {
    const method = options.method_definition.path;
    if (!UPDATE_CALLS.test(method)) return new InterceptingCall(nextCall(options));
    calls.push(method.slice(method.lastIndexOf('/') + 1));
    if (left === 0) return new InterceptingCall(nextCall(options));
    left--;
    if (!afterServer) {
      // Nothing is sent: the call ends on its own with the timeout (and its deadline timer with it).
      const unsent = nextCall(options);
      return new InterceptingCall(unsent, {
        start(metadata, listener) {
          unsent.cancelWithStatus(status.CANCELLED, 'not sent');
          setImmediate(() => listener.onReceiveStatus({ ...deadlineExceeded, metadata }));
        },
        sendMessage() {},
        halfClose() {},
      });
    }
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        // (The answer's message still passes: a unary call with a failed status drops it.)
        next(metadata, { onReceiveStatus(received, nextStatus) { nextStatus({ ...deadlineExceeded, metadata: received.metadata }); } });
      },
    });
  };
  return { interceptor, calls, arm(count, after) { left = count; afterServer = after; } };
}

t.test('an update call stopped early: the outcome is awaited by id, the update never sent again', async (t) => {
  const w = await pullWorld(t, { dbType: 'sqlite3' });
  const faults = earlyStops();
  const connection = await Connection.connect({ address: w.config.TEMPORAL_ADDRESS, interceptors: [faults.interceptor] });
  t.teardown(() => connection.close());
  const client = PullWorkflowClient.over(new Client({ connection, namespace: w.config.TEMPORAL_NAMESPACE }), {
    taskQueue: w.config.TEMPORAL_TASK_QUEUE, workflowIdPrefix: w.config.TEMPORAL_WORKFLOW_ID_PREFIX,
  });
  const repoId = await widgetRepoId(w);
  const request = directMerge(w);

  // The merge reaches the workflow and runs; its answer is lost twice on the way back.
  const p = await openPull(w, 'early-stop', { 'early-stop.txt': 'e\n' });
  const before = refOf(w, 'refs/heads/main')!;
  faults.arm(2, true);
  const outcome = await client.execute({ repoId, index: p }, mergeUpdate, [request], randomUUID());
  t.equal(outcome.status, 200, `the merge's own answer arrives: ${JSON.stringify(outcome)}`);
  t.equal(mergesSince(w, before), 1, 'one merge commit');
  t.equal(client.retried['no-answer'], 1, 'the first early stop is counted');
  t.same(faults.calls.slice(0, 3), ['ExecuteMultiOperation', 'PollWorkflowExecutionUpdate', 'PollWorkflowExecutionUpdate'], 'sent once, then polled by id until an answer came through');
  t.equal(faults.calls.filter((c) => c === 'ExecuteMultiOperation').length, 1, 'the update was sent once');

  // A call that never reached the server: the workflow does not know the update, so there is no
  // answer to wait for (503 for the client) and nothing ran.
  const q = await openPull(w, 'never-sent', { 'never-sent.txt': 'n\n' });
  const beforeQ = refOf(w, 'refs/heads/main')!;
  faults.calls.length = 0;
  faults.arm(1, false);
  const failure = await client.execute({ repoId, index: q }, mergeUpdate, [request], randomUUID()).then(() => null, (err: unknown) => err);
  t.ok(failure instanceof PullUpdateError, `no answer: ${String(failure)}`);
  t.equal((failure as PullUpdateError).failure.kind, 'no-answer', 'reported as no answer (may still complete), never retried as busy');
  t.equal(faults.calls.filter((c) => c === 'ExecuteMultiOperation').length, 1, 'not sent again');
  t.equal(mergesSince(w, beforeQ), 0, 'nothing merged');
  const row = await w.db('pull_requests').where({ base_repo_id: repoId, index: q }).first();
  t.notOk(row.has_merged, 'the pull request is still open');
});

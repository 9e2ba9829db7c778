// Auto-merge at repository scale (issue #24): 50 pull requests into one protected branch, all
// scheduled while the required check is pending, then every check turned green together. Each
// lands exactly once (50 merge commits, 50 files, one merge event each) and none is left waiting.
// How fast is measured by bench/auto-merge-scale.ts, not asserted here.
import t from 'tap';
import proto from '@temporalio/proto';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { assertLandedOnce, mainMerges, mergedCount, pullWorkflowHandle, scheduledBurst, turnGreen, waitFor } from './world.js';

const N = 50;
const WorkflowTaskFailedCause = proto.temporal.api.enums.v1.WorkflowTaskFailedCause;

t.test(`${N} auto-merges turning green together land exactly once`, async (t) => {
  const w = await pullWorld(t);
  const indexes = await scheduledBurst(w, N, 'burst');
  const before = mainMerges(w);
  t.ok((await turnGreen(w, indexes)).every((s) => s === 201), 'every status recorded');
  t.ok(await waitFor(async () => (await mergedCount(w)) === N, 120_000, 200), `all ${N} merged`);
  await assertLandedOnce(t, w, 'burst', N, before);
  // A run that ended in the workflow task of its merge had that task refused whenever a base-moved
  // signal arrived during the merge (nearly always, in a burst), and the merge ran again on replay.
  // Runs end a task later now; a signal can still race that short task. How often grows with how
  // long the task takes: 0 of 50 runs in most CI runs, 7 on a loaded 2-core machine whose workflow
  // tasks took 8 s (stop 51). A quarter still fails the old ending (36 of 50, 5f4f6fd) by far.
  const { refused, restarted } = await endsOfRuns(w, indexes);
  t.ok(refused <= N / 4, `workflow tasks refused for unhandled signals: ${refused} of ${N} runs`);
  // Nor does a base-moved signal that reaches a merged run restart its wait before it ends.
  t.equal(restarted, 0, 'no timer cancelled after a merge');
});

/** Over the runs' histories: workflow tasks refused for unhandled commands, timers cancelled after the merge. */
async function endsOfRuns(w: PullWorld, indexes: number[]): Promise<{ refused: number; restarted: number }> {
  let refused = 0;
  let restarted = 0;
  for (const index of indexes) {
    const handle = await pullWorkflowHandle(w, index);
    await waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 20_000, 100);
    const events = (await handle.fetchHistory()).events ?? [];
    refused += events.filter((e) => e.workflowTaskFailedEventAttributes?.cause === WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND).length;
    const merged = events.findLastIndex((e) => e.markerRecordedEventAttributes);
    restarted += events.slice(merged).filter((e) => e.timerCanceledEventAttributes).length;
  }
  return { refused, restarted };
}

// How a merged pull request's run tells the others that their base moved, read from its Temporal
// history: an auto-merge announces in a local activity (nobody waits for that workflow task) and
// ends in its merge's own task, without lingering; a merge request announces in a normal activity, after
// its caller was answered, and lingers for racing requests. Either way the pull requests into the
// base are checked again.
import t, { type Test } from 'tap';
import proto from '@temporalio/proto';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { merge, openPull, pullWorkflowHandle, refOf, waitFor } from './world.js';

const EventType = proto.temporal.api.enums.v1.EventType;

async function historyOf(t: Test, w: PullWorld, index: number) {
  const handle = await pullWorkflowHandle(w, index);
  t.ok(await waitFor(async () => (await handle.describe()).status.name === 'COMPLETED', 20_000, 100), `the run of #${index} completes`);
  return (await handle.fetchHistory()).events ?? [];
}

type Events = Awaited<ReturnType<typeof historyOf>>;

/** The history's steps in order: `activity:<type>`, `local:<type>` (a local activity's marker) and `timer:<ms>`. */
function steps(events: Events): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) out.push(`activity:${e.activityTaskScheduledEventAttributes!.activityType!.name}`);
    if (e.eventType === EventType.EVENT_TYPE_TIMER_STARTED) {
      const { seconds, nanos } = e.timerStartedEventAttributes!.startToFireTimeout!;
      out.push(`timer:${Number(seconds ?? 0) * 1000 + Math.round((nanos ?? 0) / 1e6)}`);
    }
    if (e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED) out.push(`local:${localActivityOf(e) ?? '?'}`);
  }
  return out;
}

/** The activity a local activity's marker records: the SDK names it in the marker's JSON data payload. */
function localActivityOf(e: Events[number]): string | undefined {
  const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type : undefined;
}

const checkedBase = async (w: PullWorld, index: number) => (await w.db('pull_requests').where({ index }).first())?.checked_base as string | null;

t.test('an auto-merge announces inside its own workflow task and ends; a merge request announces after answering and lingers', async (t) => {
  const w = await pullWorld(t);
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const auto = await openPull(w, 'announce-auto', { 'auto.txt': 'a\n' });
  const waiting = await openPull(w, 'announce-waiting', { 'waiting.txt': 'w\n' });
  t.equal((await merge(w, auto, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201);

  const green = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${refOf(w, `refs/pull/${auto}/head`)}`, as: 'alice', body: { state: 'success', context: 'ci' } });
  t.equal(green.statusCode, 201, green.body);
  const autoEvents = await historyOf(t, w, auto);
  const autoSteps = steps(autoEvents);
  const merged = autoSteps.lastIndexOf('local:mergePullRequest');
  t.ok(merged >= 0, `the auto-merge ran: ${autoSteps.join(' ')}`);
  t.same(autoSteps.slice(merged), ['local:mergePullRequest', 'local:announceBranchMoved'], 'announced as a local activity, without a timer after it');
  // Revision 3: the run ends in the workflow task that ran its merge (no task is scheduled after its marker).
  const mergeMarker = autoEvents.findLastIndex((e) => localActivityOf(e) === 'mergePullRequest');
  t.same(autoEvents.slice(mergeMarker).filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED), [], 'the run ended in its merge\'s own workflow task');
  t.notOk(autoSteps.includes('activity:announceBranchMoved'), 'no announcement went through the server as an activity');
  const mainAfterAuto = refOf(w, 'refs/heads/main');
  t.ok(await waitFor(async () => (await checkedBase(w, waiting)) === mainAfterAuto, 45_000, 200), 'the waiting pull request was checked against the moved base');

  // The waiting one's check is not required for a merge request by its admin: merge it by hand.
  const done = await merge(w, waiting, { do: 'merge', force_merge: true });
  t.equal(done.statusCode, 200, done.body);
  const manualSteps = steps(await historyOf(t, w, waiting));
  const manual = manualSteps.lastIndexOf('local:mergePullRequest');
  t.ok(manual >= 0, `the merge ran: ${manualSteps.join(' ')}`);
  t.same(manualSteps.slice(manual), ['local:mergePullRequest', 'activity:announceBranchMoved', 'timer:2000'], 'a merge request announces as an activity and lingers');
});

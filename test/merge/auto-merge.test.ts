// Auto-merge: scheduled while required checks are pending, fired by the success status on the
// current head (never one for an older head), cancelled on request.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { baseLog, merge, openPull, pullWorkflowHandle, refOf, waitFor } from './world.js';
import { PULL_WORKFLOW_REVISION, type PullWorkflowInput } from '../../workflows/pull-messages.js';

const baseLogSubject = (w: Parameters<typeof baseLog>[0]) => baseLog(w, 'refs/heads/main', 1)[0]!.subject;

t.test('auto-merge waits for the required checks of the current head', async (t) => {
  const w = await pullWorld(t);
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const status = (sha: string, state: string) => w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${sha}`, as: 'alice', body: { state, context: 'ci' } });
  const isMerged = async (index: number) => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${index}/merge`, as: 'alice' })).statusCode === 204;

  const p = await openPull(w, 'feature-auto', { 'auto.txt': 'a\n' });
  const oldHead = refOf(w, `refs/pull/${p}/head`)!;
  const scheduled = await merge(w, p, { do: 'squash', merge_when_checks_succeed: true, merge_title_field: 'auto merged' });
  t.equal(scheduled.statusCode, 201, scheduled.body);
  const twice = await merge(w, p, { do: 'merge', merge_when_checks_succeed: true });
  t.equal(twice.statusCode, 409);
  t.match(twice.json().message, /^pull request is already scheduled to auto merge when checks succeed \[pull_id: \d+\]$/);
  t.equal((await w.db('pull_auto_merges')).length, 1, 'the schedule is mirrored to the database');

  await status(oldHead, 'pending');
  await new Promise((r) => setTimeout(r, 500));
  t.notOk(await isMerged(p), 'a pending check does not fire it');

  // The head moves: a success for the old head must not count.
  const newHead = await w.pushBranch('feature-auto', { 'auto2.txt': 'b\n' });
  t.ok(await waitFor(async () => refOf(w, `refs/pull/${p}/head`) === newHead), 'the pull request head follows the push');
  await status(oldHead, 'success');
  await new Promise((r) => setTimeout(r, 1000));
  t.notOk(await isMerged(p), 'a status for an older head never counts');

  // How fast it fires is measured by bench/auto-merge.ts, not asserted here.
  await status(newHead, 'success');
  t.ok(await waitFor(() => isMerged(p), 20_000, 50), 'fires on the success status of the current head');
  const pr = (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}`, as: 'alice' })).json();
  t.equal(pr.merged_by.login, 'alice', 'merged as the user who scheduled it');
  t.equal((await w.db('pull_auto_merges')).length, 0, 'the schedule row is gone');
});

t.test('cancel, permissions, merging at once when nothing is pending, and scheduling again after a cancel', async (t) => {
  const w = await pullWorld(t);
  await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  const p = await openPull(w, 'feature-cancel', { 'cancel.txt': 'c\n' });
  const head = refOf(w, `refs/pull/${p}/head`)!;
  t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'alice' })).statusCode, 404, 'nothing scheduled');
  t.equal((await merge(w, p, { merge_when_checks_succeed: true }, 'dave')).statusCode, 201, 'a writer schedules it');
  const stranger = await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'carol' });
  t.equal(stranger.statusCode, 403);
  t.equal(stranger.json().message, 'user has no permission to cancel the scheduled auto merge');
  t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'alice' })).statusCode, 204, 'a repository admin may cancel');
  await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state: 'success', context: 'ci' } });
  await new Promise((r) => setTimeout(r, 1000));
  t.equal((await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'alice' })).statusCode, 404, 'a cancelled schedule never fires');

  const now = await merge(w, p, { merge_when_checks_succeed: true });
  t.equal(now.statusCode, 200, 'with the checks already green the merge happens at once');

  // Schedule, cancel and schedule again with the same body at once: scheduled twice, and it fires.
  const again = await openPull(w, 'feature-again', { 'again.txt': 'a\n' });
  const againRow = await w.db('pull_requests').where({ index: again }).first('id', 'issue_id');
  const schedules = async () => (await w.db('comments').where({ type: 'schedule_auto_merge', issue_id: againRow.issue_id })).length;
  const body = { do: 'merge', merge_when_checks_succeed: true };
  const cancelAgain = () => w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${again}/merge`, as: 'alice' });
  t.equal((await merge(w, again, body)).statusCode, 201, 'scheduled');
  t.equal((await merge(w, again, body)).statusCode, 409, 'a second schedule is told it is already scheduled');
  t.equal(await schedules(), 1, 'scheduled once');
  t.equal((await cancelAgain()).statusCode, 204, 'cancelled');
  // The same request again after the cancel is a new schedule.
  t.equal((await merge(w, again, body)).statusCode, 201, 'scheduled again');
  t.equal((await w.db('pull_auto_merges').where({ pull_id: againRow.id })).length, 1, 'the new schedule is recorded');
  t.equal(await schedules(), 2, 'two schedules in the timeline');
  await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${refOf(w, `refs/pull/${again}/head`)}`, as: 'alice', body: { state: 'success', context: 'ci' } });
  t.ok(await waitFor(async () => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${again}/merge`, as: 'alice' })).statusCode === 204, 20_000, 50), 'the second schedule fires');
  t.equal((await cancelAgain()).statusCode, 404, 'nothing left to cancel');
});

t.test('a new pull request\'s run: one activity to start, and scheduling answered in the merge\'s workflow task, described once', async (t) => {
  const w = await pullWorld(t);
  await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  const p = await openPull(w, 'feature-one-task', { 'one.txt': 'o\n' });
  t.equal((await merge(w, p, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201);
  const events = (await (await pullWorkflowHandle(w, p)).fetchHistory()).events!;
  // The merge's local activity is the marker; the answer follows in the same workflow task.
  const merged = events.findIndex((e) => e.markerRecordedEventAttributes);
  const answered = events.findIndex((e) => e.workflowExecutionUpdateCompletedEventAttributes);
  t.ok(merged > 0 && answered > merged, 'the scheduling update ran the merge and was answered');
  const between = events.slice(merged + 1, answered);
  t.equal(between.filter((e) => e.workflowTaskStartedEventAttributes).length, 0, 'no second workflow task before the answer');
  t.equal(between.filter((e) => e.workflowPropertiesModifiedEventAttributes).length, 1, 'the memo is written once');
  t.equal(between.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length, 0, 'no search attribute upsert: the operation is over');
  const activities = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  t.same(activities, ['loadPullSummary'], 'no activity of its own records the schedule, and the run checked mergeability in its first');
  const row = await w.db('pull_requests').where({ index: p }).first('id', 'issue_id');
  t.equal((await w.db('pull_auto_merges').where({ pull_id: row.id })).length, 1, 'the schedule is recorded');
  t.equal((await w.db('comments').where({ type: 'schedule_auto_merge', issue_id: row.issue_id })).length, 1, 'once, with one timeline comment');
});

t.test('auto-merge fires when the last condition met is an approval', async (t) => {
  const w = await pullWorld(t);
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, required_approvals: 1,
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const p = await openPull(w, 'feature-approve', { 'approve.txt': 'a\n' });
  const scheduled = await merge(w, p, { do: 'merge', merge_when_checks_succeed: true });
  t.equal(scheduled.statusCode, 201, 'no approval yet: scheduled');
  const isMerged = async () => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'alice' })).statusCode === 204;
  await new Promise((r) => setTimeout(r, 500));
  t.notOk(await isMerged(), 'waits for the approval');
  const review = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/reviews`, as: 'dave', body: { event: 'APPROVED', body: 'looks good' } });
  t.equal(review.statusCode, 200, review.body);
  t.ok(await waitFor(isMerged, 20_000, 50), 'the approval fires the scheduled merge');
});

t.test('a scheduled auto-merge survives its workflow continuing as new', async (t) => {
  // A tiny history limit makes the waiting workflow continue as new after a few status posts.
  const w = await pullWorld(t, { env: { TEMPORAL_HISTORY_EVENT_LIMIT: '60' } });
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const p = await openPull(w, 'feature-long', { 'long.txt': 'l\n' });
  const head = refOf(w, `refs/pull/${p}/head`)!;
  const scheduled = await merge(w, p, { do: 'squash', merge_when_checks_succeed: true, merge_title_field: 'after many runs' }, 'alice', { 'x-request-id': 'trace-me-42' });
  t.equal(scheduled.statusCode, 201);
  t.equal(scheduled.headers['x-request-id'], 'trace-me-42');

  const repoId = (await w.db('repositories').where({ lower_name: 'widget' }).orderBy('id').first('id')).id as number;
  const handle = w.pullWorkflows!.client.workflow.getHandle(w.pullWorkflows!.workflowId({ repoId, index: p }));
  const described = await handle.describe();
  t.match(described.memo, { lastOperation: 'schedule auto-merge', lastRequestId: 'trace-me-42' }, 'the memo names the API request that scheduled it');
  const firstRun = described.runId;
  const status = (state: string) => w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state, context: 'ci' } });
  let posts = 0;
  while ((await handle.describe()).runId === firstRun && posts < 60) {
    await status('pending');
    posts++;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.not((await handle.describe()).runId, firstRun, `continued as new after ${posts} pending statuses`);
  const isMerged = async () => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'alice' })).statusCode === 204;
  t.notOk(await isMerged(), 'still waiting for the check');
  // The new run writes its memo after its first activity: wait for it, within a bound.
  t.ok(await waitFor(async () => /^squash by user \d+$/.test(String((await handle.describe()).memo?.autoMerge ?? ''))), 'the new run carries the schedule');

  await status('success');
  t.ok(await waitFor(isMerged, 20_000, 50), 'the carried schedule fires on the success status');
  const log = baseLogSubject(w);
  t.equal(log, 'after many runs', 'with the style and title it was scheduled with');
  // The continued run took the current code revision, not the one its first run started under.
  const started = (await handle.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
  const input = JSON.parse(Buffer.from(started.input!.payloads![0]!.data!).toString('utf8')) as PullWorkflowInput;
  t.equal(input.revision, PULL_WORKFLOW_REVISION, 'the continued run has the current code revision');
  t.ok(input.carried, 'and is a continued run');
});


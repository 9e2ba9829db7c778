// Racing operations on one pull request (issue #26): many requests sent at once, none answered
// 5xx, and the repository left as one order of them would leave it. Each scenario runs one round on
// a fresh pull request of a shared world; the racing-*.test.ts files run them ten times each, on
// MariaDB and on SQLite.
import type { Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { repoDiskPath } from '../../core/repositories.js';
import type { PullWorld } from '../pulls/fixtures.js';
import { assertPullsAgree, assertRepositorySound } from '../faults/consistency.js';
import { baseLog, merge, openPull, refOf, waitFor } from './world.js';

export const ROUNDS = Number(process.env.RACING_ROUNDS ?? 10);

type Answer = Awaited<ReturnType<PullWorld['api']>>;

/** The requests' statuses as "status×count", for messages. */
function tally(answers: Answer[]): string {
  const counts = new Map<number, number>();
  for (const a of answers) counts.set(a.statusCode, (counts.get(a.statusCode) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
}

const count = (answers: Answer[], status: number) => answers.filter((a) => a.statusCode === status).length;

/** Sends every request at once (interleaved as given) and returns the answers in the same order. */
function atOnce(requests: Array<() => Promise<Answer>>): Promise<Answer[]> {
  return Promise.all(requests.map((send) => send()));
}

/**
 * Two kinds of request, 25 of each, interleaved and in flight together; one kind leads by `lead`
 * ms (the first kind in even rounds, the second in odd ones), so rounds see both orders. Returns
 * each kind's answers.
 */
async function twoKinds(round: number, first: () => Promise<Answer>, second: () => Promise<Answer>, lead = 40): Promise<[Answer[], Answer[]]> {
  const firstLeads = round % 2 === 0;
  const delayed = (send: () => Promise<Answer>, leads: boolean) => async () => {
    if (!leads) await new Promise((resolve) => setTimeout(resolve, lead));
    return send();
  };
  const answers = await atOnce(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? delayed(first, firstLeads) : delayed(second, !firstLeads))));
  return [answers.filter((_, i) => i % 2 === 0), answers.filter((_, i) => i % 2 === 1)];
}

function noServerErrors(t: Test, label: string, answers: Answer[]): void {
  const failed = answers.filter((a) => a.statusCode >= 500);
  t.equal(failed.length, 0, `${label}: no 5xx (${tally(answers)})${failed.length ? `: ${failed[0]!.body.slice(0, 300)}` : ''}`);
}

function git(w: PullWorld, args: string[]): string {
  return execFileSync('git', ['--git-dir', repoDiskPath(w.config, 'alice', 'widget'), ...args], { encoding: 'utf8' }).trim();
}

/** Merge commits main gained since `before`. */
function mergesSince(w: PullWorld, before: string) {
  return baseLog(w, `${before}..refs/heads/main`, 200).filter((c) => c.subject.startsWith('Merge pull request'));
}

async function pullState(w: PullWorld, index: number) {
  const pull = await w.db('pull_requests').where({ index }).first();
  const issue = await w.db('issues').where({ id: pull.issue_id }).first();
  const autoMerges = await w.db('pull_auto_merges').where({ pull_id: pull.id });
  const merger = pull.merger_id ? await w.db('users').where({ id: pull.merger_id }).first('name') : null;
  return { pull, merged: Boolean(pull.has_merged), closed: Boolean(issue.is_closed), autoMerges: autoMerges.length, mergedBy: merger?.name as string | undefined };
}

/** Merged exactly once: one merge commit on main, the one the row names, merging the head as it stands. */
async function assertMergedOnce(t: Test, w: PullWorld, label: string, index: number, branch: string, before: string): Promise<void> {
  const state = await pullState(w, index);
  const merges = mergesSince(w, before);
  t.ok(state.merged && state.closed, `${label}: merged and closed`);
  t.equal(merges.length, 1, `${label}: exactly one merge commit`);
  t.equal(state.pull.merge_commit_sha, refOf(w, 'refs/heads/main'), `${label}: the row names the merge commit at main's tip`);
  t.equal(git(w, ['rev-parse', `${state.pull.merge_commit_sha}^2`]), refOf(w, `refs/heads/${branch}`), `${label}: it merged the head as it finally stands`);
  t.equal(state.autoMerges, 0, `${label}: no auto-merge left scheduled`);
}

async function freshPull(w: PullWorld, name: string): Promise<{ index: number; before: string }> {
  const index = await openPull(w, name, { [`${name}.txt`]: `${name}\n` });
  return { index, before: refOf(w, 'refs/heads/main')! };
}

/** 50 identical merges: one 200, 49 × 405 (already merged), one merge commit. */
export async function identicalMerges(t: Test, w: PullWorld, round: number): Promise<void> {
  const label = `identical merges, round ${round}`;
  const { index, before } = await freshPull(w, `same-${round}`);
  const answers = await atOnce(Array.from({ length: 50 }, () => () => merge(w, index, { do: 'merge' })));
  noServerErrors(t, label, answers);
  t.equal(count(answers, 200), 1, `${label}: exactly one 200 (${tally(answers)})`);
  t.equal(count(answers, 405), 49, `${label}: the rest are told it is already merged`);
  await assertMergedOnce(t, w, label, index, `same-${round}`, before);
}

/** 25 merges racing 25 closes: merged (closes refused) or closed (merges refused), never both. */
export async function mergesAndCloses(t: Test, w: PullWorld, round: number): Promise<void> {
  const label = `merges racing closes, round ${round}`;
  const { index, before } = await freshPull(w, `close-${round}`);
  const close = () => w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { state: 'closed' } });
  const [merges, closes] = await twoKinds(round, () => merge(w, index, { do: 'merge' }), close);
  noServerErrors(t, label, [...merges, ...closes]);
  const state = await pullState(w, index);
  if (state.merged) {
    t.equal(count(merges, 200), 1, `${label}: merged by exactly one merge (${tally(merges)})`);
    t.equal(count(merges, 405), 24, `${label}: the other merges are told it is already merged`);
    t.equal(count(closes, 412), 25, `${label}: every close came after the merge and is refused (${tally(closes)})`);
    await assertMergedOnce(t, w, label, index, `close-${round}`, before);
  } else {
    t.ok(state.closed, `${label}: closed`);
    t.equal(count(closes, 201), 25, `${label}: the first close closed it, the others found it closed (${tally(closes)})`);
    t.equal(count(merges, 404), 25, `${label}: every merge came after the close and found nothing to merge (${tally(merges)})`);
    t.equal(mergesSince(w, before).length, 0, `${label}: no merge commit`);
  }
}

/** 25 auto-merge schedules (checks pending) racing 25 forced merges by an admin. */
export async function schedulesAndMerges(t: Test, w: PullWorld, round: number): Promise<void> {
  const label = `schedules racing merges, round ${round}`;
  const { index, before } = await freshPull(w, `sched-${round}`);
  const schedule = () => merge(w, index, { do: 'merge', merge_when_checks_succeed: true }, 'dave');
  const forced = () => merge(w, index, { do: 'merge', force_merge: true });
  const [schedules, merges] = await twoKinds(round, schedule, forced);
  noServerErrors(t, label, [...merges, ...schedules]);
  t.equal(count(merges, 200), 1, `${label}: exactly one merge (${tally(merges)})`);
  t.equal(count(merges, 405), 24, `${label}: the other merges are told it is already merged`);
  const scheduled = count(schedules, 201);
  t.ok(scheduled <= 1, `${label}: scheduled at most once (${tally(schedules)})`);
  if (scheduled === 0) t.equal(count(schedules, 409), 0, `${label}: nothing scheduled, so nothing was "already scheduled"`);
  t.equal(scheduled + count(schedules, 409) + count(schedules, 405), 25, `${label}: each schedule was scheduled, already scheduled, or came after the merge`);
  const state = await pullState(w, index);
  t.equal(state.mergedBy, 'alice', `${label}: merged by the forced merge, not by the schedule`);
  await assertMergedOnce(t, w, label, index, `sched-${round}`, before);
}

/** 25 update-branch requests racing 25 merges on a pull request behind its base. */
export async function updatesAndMerges(t: Test, w: PullWorld, round: number): Promise<void> {
  const label = `updates racing merges, round ${round}`;
  const branch = `behind-${round}`;
  const index = await openPull(w, branch, { [`${branch}.txt`]: `${branch}\n` });
  await w.pushBranch('main', { [`moved-${round}.txt`]: 'm\n' }, { from: 'main' });
  const before = refOf(w, 'refs/heads/main')!;
  const headBefore = refOf(w, `refs/heads/${branch}`)!;
  const update = () => w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${index}/update`, as: 'alice' });
  const [merges, updates] = await twoKinds(round, () => merge(w, index, { do: 'merge' }), update);
  noServerErrors(t, label, [...merges, ...updates]);
  t.equal(count(merges, 200), 1, `${label}: exactly one merge (${tally(merges)})`);
  t.equal(count(merges, 405), 24, `${label}: the other merges are told it is already merged`);
  t.equal(count(updates, 200) + count(updates, 422), 25, `${label}: each update ran before the merge or was refused after it (${tally(updates)})`);
  const updateCommits = git(w, ['rev-list', '--first-parent', `${headBefore}..refs/heads/${branch}`]).split('\n').filter(Boolean);
  t.equal(updateCommits.length, count(updates, 200) > 0 ? 1 : 0, `${label}: the head gained one update exactly when an update answered 200`);
  await assertMergedOnce(t, w, label, index, branch, before);
}

/** A scheduled auto-merge firing (its check succeeds) while 25 forced manual merges race it. */
export async function firingAutoMergeAndMerges(t: Test, w: PullWorld, round: number): Promise<void> {
  const label = `a firing auto-merge racing merges, round ${round}`;
  const { index, before } = await freshPull(w, `fire-${round}`);
  const scheduled = await merge(w, index, { do: 'merge', merge_when_checks_succeed: true }, 'dave');
  t.equal(scheduled.statusCode, 201, `${label}: scheduled while the check is pending`);
  const head = refOf(w, `refs/pull/${index}/head`)!;
  const success = () => w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state: 'success', context: 'ci' } });
  // The status leads in even rounds (the auto-merge tends to fire first), the merges in odd ones.
  const statusLeads = round % 2 === 0;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const [status, ...merges] = await atOnce([
    async () => { if (!statusLeads) await pause(40); return success(); },
    ...Array.from({ length: 25 }, () => async () => { if (statusLeads) await pause(150); return merge(w, index, { do: 'merge', force_merge: true }); }),
  ]);
  noServerErrors(t, label, [status!, ...merges]);
  t.equal(status.statusCode, 201, `${label}: the status is recorded`);
  const manual = count(merges, 200);
  t.ok(manual <= 1, `${label}: at most one manual merge (${tally(merges)})`);
  t.equal(count(merges, 405), 25 - manual, `${label}: the other merges are told it is already merged`);
  t.ok(await waitFor(async () => (await pullState(w, index)).merged, 20_000, 50), `${label}: merged`);
  const state = await pullState(w, index);
  t.equal(state.mergedBy, manual === 1 ? 'alice' : 'dave', `${label}: merged by ${manual === 1 ? 'the manual merge that answered 200' : 'the auto-merge (no manual merge answered 200)'}`);
  await assertMergedOnce(t, w, label, index, `fire-${round}`, before);
}

/** Requires the check the schedules wait for; dave (a writer) schedules, alice (admin) forces. */
export async function protectMain(t: Test, w: PullWorld): Promise<void> {
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  t.equal(rule.statusCode, 201, rule.body);
}

type Scenario = (t: Test, w: PullWorld, round: number) => Promise<void>;

/** ROUNDS rounds of a scenario, with the time they took in the test's output. */
async function rounds(t: Test, w: PullWorld, scenario: Scenario): Promise<void> {
  const started = Date.now();
  for (let round = 0; round < ROUNDS; round++) await scenario(t, w, round);
  t.comment(`${scenario.name}: ${ROUNDS} rounds in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Scenarios without a required check, ROUNDS times each; then every pull request's rows and refs agree. */
export async function raceMerges(t: Test, w: PullWorld): Promise<void> {
  await rounds(t, w, identicalMerges);
  await rounds(t, w, mergesAndCloses);
  await rounds(t, w, updatesAndMerges);
  await assertPullsAgree(t, w);
  assertRepositorySound(t, repoDiskPath(w.config, 'alice', 'widget'));
}

/** Scenarios around auto-merge (main requires a check), ROUNDS times each; then the same checks. */
export async function raceAutoMerges(t: Test, w: PullWorld): Promise<void> {
  await protectMain(t, w);
  await rounds(t, w, schedulesAndMerges);
  await rounds(t, w, firingAutoMergeAndMerges);
  await assertPullsAgree(t, w);
  assertRepositorySound(t, repoDiskPath(w.config, 'alice', 'widget'));
}

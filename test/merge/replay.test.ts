// Determinism of the pull request workflow: histories recorded by an earlier version of the code
// (test/fixtures/histories) must replay with this one, or running workflows would fail after an
// upgrade. A change that fails here goes behind a new code revision (see workflows/pull.ts).
//
// RECORD_HISTORIES=1 runs the scenarios below against the real parts and writes their histories
// there (do it when the workflow gains a path the fixtures do not cover, and commit them). Files
// are named by the code revision that recorded them (workflows/pull-messages.ts,
// PULL_WORKFLOW_REVISION; no suffix: revision 0), and older revisions' files are kept: runs
// started under them may still be open somewhere, and must replay on the paths they took.
import t from 'tap';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { pullWorld, settledMergeable, type PullWorld } from '../pulls/fixtures.js';
import { merge, openPull, pullWorkflowHandle as workflowOf, refOf, waitFor } from './world.js';
import { PULL_WORKFLOW_REVISION } from '../../workflows/pull-messages.js';

// Compiled to dist/test/merge; the fixtures stay in the source tree.
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/histories/', import.meta.url));
const History = proto.temporal.api.history.v1.History;
const WORKFLOWS = fileURLToPath(new URL('../../workflows/index.js', import.meta.url));

/** Waits until the pull request's workflow has ended (merged) and writes its history. */
async function record(w: PullWorld, index: number, name: string): Promise<void> {
  const handle = await workflowOf(w, index);
  await waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 20_000, 100);
  mkdirSync(FIXTURES, { recursive: true });
  // Protobuf's binary form: the SDK's JSON helpers trip over its two copies of protobufjs here.
  const revision = PULL_WORKFLOW_REVISION > 0 ? `.r${PULL_WORKFLOW_REVISION}` : '';
  writeFileSync(join(FIXTURES, `${name}${revision}.binpb`), History.encode(await handle.fetchHistory()).finish());
}

if (process.env.RECORD_HISTORIES === '1') {
  t.test('record histories', async (t) => {
    const w = await pullWorld(t);
    const status = (sha: string, state: string) => w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${sha}`, as: 'alice', body: { state, context: 'ci' } });

    // Checked, merged, its base move announced, a late merge refused.
    const merged = await openPull(w, 'rec-merge', { 'merge.txt': 'm\n' });
    t.equal(await settledMergeable(w, merged, true), true);
    t.equal((await merge(w, merged, { do: 'merge' })).statusCode, 200);
    // A late second merge, answered by the run while it lingers before ending.
    const lingering = await workflowOf(w, merged);
    t.ok(await waitFor(async () => (await lingering.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes), 10_000, 50), 'the merged run lingers');
    t.equal((await merge(w, merged, { do: 'merge' })).statusCode, 405);
    await record(w, merged, 'merge');

    // Behind its base, updated by merge, then squashed with its head branch deleted.
    const updated = await openPull(w, 'rec-update', { 'update.txt': 'u\n' });
    const other = await openPull(w, 'rec-other', { 'other.txt': 'o\n' });
    t.equal(await settledMergeable(w, other, true), true);
    t.equal((await merge(w, other, { do: 'rebase' })).statusCode, 200);
    t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${updated}/update`, as: 'alice' })).statusCode, 200);
    t.equal(await settledMergeable(w, updated, true), true);
    t.equal((await merge(w, updated, { do: 'squash', delete_branch_after_merge: true })).statusCode, 200);
    await record(w, updated, 'update-squash-delete-branch');
    await record(w, other, 'rebase');

    // Closed, reopened, retargeted, then merged by auto-merge when its check succeeds.
    const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: { rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'] } });
    t.equal(rule.statusCode, 201);
    await w.pushBranch('rec-develop', {});
    const auto = await openPull(w, 'rec-auto', { 'auto.txt': 'a\n' });
    const edit = (body: Record<string, unknown>) => w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${auto}`, as: 'alice', body });
    t.equal((await edit({ state: 'closed' })).statusCode, 201);
    t.equal((await edit({ state: 'open' })).statusCode, 201);
    t.equal((await edit({ base: 'rec-develop' })).statusCode, 201);
    t.equal((await edit({ base: 'main' })).statusCode, 201);
    t.equal((await merge(w, auto, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201);
    t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${auto}/merge`, as: 'alice' })).statusCode, 204);
    t.equal((await merge(w, auto, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201);
    await status(refOf(w, `refs/pull/${auto}/head`)!, 'success');
    t.ok(await waitFor(async () => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${auto}/merge`, as: 'alice' })).statusCode === 204, 20_000, 100));
    await record(w, auto, 'close-reopen-retarget-auto-merge');
  });
} else {
  t.test('recorded histories replay with this workflow code', async (t) => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.binpb')).sort();
    t.ok(files.length >= 4, `fixtures found: ${files.join(', ')}`);
    const workflowBundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never });
    for (const file of files) {
      const history = History.decode(readFileSync(join(FIXTURES, file)));
      t.ok((history.events?.length ?? 0) > 10, `${file} holds a real history`);
      await t.resolves(Worker.runReplayHistory({ workflowBundle }, history), `${file} replays`);
    }
  });
}

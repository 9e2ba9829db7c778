// Merge inputs read ahead by the API for this process's worker: used by the merge when the pull
// request's rows are as they were read, read afresh when an operation changed them in between.
// (Without a worker in the process nothing is read: test/faults/worker-crash.test.ts.)
import t from 'tap';
import { mergePrefetchStats, prefetchMergeInputs, takeMergeInputs } from '../../core/pulls/merge-prefetch.js';
import { mergePullRequest } from '../../core/pulls/merge.js';
import { pullWorld, settledMergeable } from '../pulls/fixtures.js';
import { merge, openPull, refOf } from './world.js';

t.test('with a worker here', async (t) => {
  const w = await pullWorld(t, { env: { ENABLE_METRICS: 'true' } });
  const repoId = (await w.db('repositories').where({ lower_name: 'widget', owner_id: w.users.alice.id }).first('id')).id as number;

  await t.test('a merge request uses what the API read while the update travelled', async (t) => {
    const index = await openPull(w, 'ahead', { 'ahead.txt': 'ahead\n' });
    t.equal(await settledMergeable(w, index, true), true);
    const before = mergePrefetchStats();
    const r = await merge(w, index, { do: 'merge' });
    t.equal(r.statusCode, 200, r.body);
    const after = mergePrefetchStats();
    t.equal(after.used, before.used + 1, 'the merge used the snapshot');
    t.equal(after.stale, before.stale);
    const metrics = await w.app.inject({ url: '/metrics' });
    t.match(metrics.body, new RegExp(`pullhost_merge_prefetches_total\\{result="used"\\} ${after.used}\\b`));
  });

  await t.test('a snapshot is given once, and only while the rows are unchanged', async (t) => {
    const index = await openPull(w, 'rows', { 'rows.txt': 'rows\n' });
    const key = { repoId, index };
    prefetchMergeInputs(w, key, w.users.alice.id, 'rows-1');
    const taken = await takeMergeInputs(w, key, 'rows-1');
    t.equal(taken?.ctx.pull.index, index, 'unchanged rows: the snapshot');
    t.ok(taken?.early && (await taken.early.refs)?.branchSha, 'with the references');
    t.equal(await takeMergeInputs(w, key, 'rows-1'), null, 'given once');

    prefetchMergeInputs(w, key, w.users.alice.id, 'rows-2');
    await new Promise((r) => setTimeout(r, 200));
    const edited = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { title: 'WIP: not yet' } });
    t.equal(edited.statusCode, 201, 'the title is edited');
    const staleBefore = mergePrefetchStats().stale;
    t.equal(await takeMergeInputs(w, key, 'rows-2'), null, 'an edited issue row: read afresh');
    t.equal(mergePrefetchStats().stale, staleBefore + 1);
  });

  await t.test('a merge read ahead before the pull request was closed answers as merging after the close does', async (t) => {
    const index = await openPull(w, 'closed-after', { 'closed-after.txt': 'x\n' });
    t.equal(await settledMergeable(w, index, true), true);
    const key = { repoId, index };
    const operationId = 'closed-after-op';
    prefetchMergeInputs(w, key, w.users.alice.id, operationId);
    await new Promise((r) => setTimeout(r, 200));
    const closed = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { state: 'closed' } });
    t.equal(closed.statusCode, 201, 'the pull request is closed');
    const main = refOf(w, 'refs/heads/main');
    const staleBefore = mergePrefetchStats().stale;
    const outcome = await mergePullRequest(w, key, {
      doerId: w.users.alice.id, style: 'merge', title: '', message: '', mergeCommitId: '', headCommitId: '', mergeWhenChecksSucceed: false,
      forceMerge: false, deleteBranchAfterMerge: null, operationId,
    });
    t.equal(outcome.status, 404, 'a closed pull request is not merged');
    t.equal(mergePrefetchStats().stale, staleBefore + 1, 'the snapshot was found out of date');
    t.equal(refOf(w, 'refs/heads/main'), main, 'main did not move');
    t.equal((await w.db('pull_requests').where({ base_repo_id: repoId, index }).first('has_merged')).has_merged ? 1 : 0, 0);
  });
});

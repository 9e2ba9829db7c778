// Merge inputs read ahead by the API for this process's worker: used by the merge when the pull
// request's rows are as they were read, read afresh when an operation changed them in between.
// (And the merge commit of a checked pull request known before git writes it.)
// (Without a worker in the process nothing is read: test/faults/worker-crash.test.ts.)
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { repoDiskPath } from '../../core/repositories.js';
import { mergePrefetchStats, prefetchMergeInputs, takeMergeInputs } from '../../core/pulls/merge-prefetch.js';
import { mergeCommitStats, mergePullRequest } from '../../core/pulls/merge.js';
import { pullWorld, settledMergeable } from '../pulls/fixtures.js';
import { baseLog, merge, openPull, refOf, routeRows } from './world.js';

const MERGE = { style: 'merge' as const, title: '', message: '' };

t.test('with a worker here', async (t) => {
  const w = await pullWorld(t, { env: { ENABLE_METRICS: 'true' } });
  const repoId = (await w.db('repositories').where({ lower_name: 'widget', owner_id: w.users.alice.id }).first('id')).id as number;

  await t.test('a merge request uses what the API read while the update travelled', async (t) => {
    const index = await openPull(w, 'ahead', { 'ahead.txt': 'ahead\n' });
    t.equal(await settledMergeable(w, index, true), true);
    const before = mergePrefetchStats();
    const commitsBefore = mergeCommitStats();
    const r = await merge(w, index, { do: 'merge' });
    t.equal(r.statusCode, 200, r.body);
    t.same(mergeCommitStats(), { ...commitsBefore, writtenAhead: commitsBefore.writtenAhead + 1 }, 'the merge commit was written while the update travelled');
    const [merged] = baseLog(w);
    t.same(merged!.parents.length, 2, 'and it is the merge commit main moved to');
    t.equal(merged!.subject, `Merge pull request 'change ahead' (#${index}) from ahead into main`);
    const after = mergePrefetchStats();
    t.equal(after.used, before.used + 1, 'the merge used the snapshot');
    t.equal(after.stale, before.stale);
    const metrics = await w.app.inject({ url: '/metrics' });
    t.match(metrics.body, new RegExp(`pullhost_merge_prefetches_total\\{result="used"\\} ${after.used}\\b`));
    t.match(metrics.body, new RegExp(`pullhost_merge_commits_total\\{written="writtenAhead"\\} ${mergeCommitStats().writtenAhead}\\b`));
  });

  await t.test('nothing is read or written ahead for a caller who may not write to the repository', async (t) => {
    const index = await openPull(w, 'reader', { 'reader.txt': 'reader\n' });
    t.equal(await settledMergeable(w, index, true), true);
    const path = repoDiskPath(w.config, 'alice', 'widget');
    const objects = () => execFileSync('git', ['--git-dir', path, 'count-objects'], { encoding: 'utf8' });
    const [statsBefore, objectsBefore] = [mergePrefetchStats(), objects()];
    const r = await merge(w, index, { do: 'merge' }, 'bob');
    t.equal(r.statusCode, 405, 'a reader may not merge');
    t.same(mergePrefetchStats(), statsBefore, 'no snapshot was taken');
    t.equal(objects(), objectsBefore, 'no object was written in the repository');
  });

  await t.test('a commit written ahead is used only when the merge plans the very same commit', async (t) => {
    const index = await openPull(w, 'planned', { 'planned.txt': 'planned\n' });
    t.equal(await settledMergeable(w, index, true), true);
    const key = { repoId, index };
    const merge = (title: string, operationId: string) => mergePullRequest(w, key, {
      doerId: w.users.alice.id, style: 'merge', title, message: '', mergeCommitId: '', headCommitId: '', mergeWhenChecksSucceed: false,
      forceMerge: false, deleteBranchAfterMerge: null, operationId,
    });
    prefetchMergeInputs(w, key, w.users.alice, 'planned-op', await routeRows(w, key), { ...MERGE, title: 'Ahead of time' });
    const ahead = await (await takeMergeInputs(w, key, 'planned-op'))?.ahead?.commit;
    t.match(ahead, /^[0-9a-f]{40}$/, 'the read-ahead wrote a commit');
    t.equal(refOf(w, `${ahead}^{commit}`), ahead, 'an object in the base repository');
    t.not(refOf(w, 'refs/heads/main'), ahead, 'that no branch points to');

    // Nothing is written ahead for a pull request whose stored check is known to be out of date.
    const pullId = (await w.db('pull_requests').where({ base_repo_id: repoId, index }).first('id')).id as number;
    for (const stale of [{ recheck_requested_unix: 1 }, { head_commit_id: 'f'.repeat(40) }]) {
      const saved = await w.db('pull_requests').where({ id: pullId }).first('recheck_requested_unix', 'head_commit_id');
      await w.db('pull_requests').where({ id: pullId }).update(stale);
      prefetchMergeInputs(w, key, w.users.alice, 'stale-op', await routeRows(w, key), MERGE);
      t.equal(await (await takeMergeInputs(w, key, 'stale-op'))?.ahead?.commit, null, `no commit written ahead with ${JSON.stringify(stale)}`);
      await w.db('pull_requests').where({ id: pullId }).update(saved);
    }

    // Nor when the base's reference shows it moved since the check, though nobody said so.
    const main = refOf(w, 'refs/heads/main')!;
    const path = repoDiskPath(w.config, 'alice', 'widget');
    const side = execFileSync('git', ['--git-dir', path, 'commit-tree', '-p', main, '-m', 'moved quietly', `${main}^{tree}`], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'q', GIT_AUTHOR_EMAIL: 'q@example.com', GIT_COMMITTER_NAME: 'q', GIT_COMMITTER_EMAIL: 'q@example.com' } }).trim();
    execFileSync('git', ['--git-dir', path, 'update-ref', 'refs/heads/main', side, main]);
    prefetchMergeInputs(w, key, w.users.alice, 'moved-op', await routeRows(w, key), MERGE);
    t.equal(await (await takeMergeInputs(w, key, 'moved-op'))?.ahead?.commit, null, 'no commit written ahead on a base the check did not see');
    execFileSync('git', ['--git-dir', path, 'update-ref', 'refs/heads/main', main, side]);

    // Another title: another commit, written by the merge itself.
    prefetchMergeInputs(w, key, w.users.alice, 'planned-op-2', await routeRows(w, key), { ...MERGE, title: 'Ahead of time' });
    const before = mergeCommitStats();
    const outcome = await merge('Asked for at merge time', 'planned-op-2');
    t.equal(outcome.status, 200);
    t.equal(mergeCommitStats().writtenAhead, before.writtenAhead, 'the commit written ahead was not used');
    const [merged] = baseLog(w);
    t.equal(merged!.subject, 'Asked for at merge time');
    t.not(merged!.sha, ahead);
  });

  await t.test('a snapshot is given once, and only while the rows are unchanged', async (t) => {
    const index = await openPull(w, 'rows', { 'rows.txt': 'rows\n' });
    const key = { repoId, index };
    prefetchMergeInputs(w, key, w.users.alice, 'rows-1', await routeRows(w, key), MERGE);
    const taken = await takeMergeInputs(w, key, 'rows-1');
    t.equal(taken?.ctx.pull.index, index, 'unchanged rows: the snapshot');
    t.ok(taken?.early && (await taken.early.refs)?.branchSha, 'with the references');
    t.equal(await takeMergeInputs(w, key, 'rows-1'), null, 'given once');

    prefetchMergeInputs(w, key, w.users.alice, 'rows-2', await routeRows(w, key), MERGE);
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
    prefetchMergeInputs(w, key, w.users.alice, operationId, await routeRows(w, key), MERGE);
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

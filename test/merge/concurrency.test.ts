// Concurrency: merges of different pull requests racing into one base, from two workers, all land
// and none overwrites another; simultaneous merge, base change, update and close requests on one
// pull request end as some one-at-a-time order would leave them.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { repoDiskPath } from '../../core/repositories.js';
import { pullWorld, settledMergeable, type PullWorld } from '../pulls/fixtures.js';
import { assertPullsAgree, assertRepositorySound } from '../faults/consistency.js';
import { startWorkerProcess } from '../faults/worker-process.js';
import { baseLog, merge, openPull, refOf } from './world.js';

function git(w: PullWorld, args: string[]): string {
  return execFileSync('git', ['--git-dir', repoDiskPath(w.config, 'alice', 'widget'), ...args], { encoding: 'utf8' }).trim();
}

function isAncestor(w: PullWorld, commit: string, of: string): boolean {
  try {
    git(w, ['merge-base', '--is-ancestor', commit, of]);
    return true;
  } catch {
    return false;
  }
}

t.test('merges of different pull requests racing into one base from two workers: every one lands, none overwrites', async (t) => {
  const w = await pullWorld(t);
  // A second worker in its own process: the in-process lock no longer orders the merges, the compare-and-swap does.
  const other = startWorkerProcess(w.config);
  t.teardown(() => other.stop());
  const indexes: number[] = [];
  for (let i = 0; i < 10; i++) indexes.push(await openPull(w, `race-${i}`, { [`race-${i}.txt`]: `race ${i}\n` }));
  for (const index of indexes) t.equal(await settledMergeable(w, index, true), true, `#${index} is mergeable`);
  const before = refOf(w, 'refs/heads/main')!;

  const answers = await Promise.all(indexes.map((index) => merge(w, index, { do: 'merge' })));
  t.same(answers.map((a) => a.statusCode), indexes.map(() => 200), `every merge answers 200: ${answers.filter((a) => a.statusCode !== 200).map((a) => a.body).join(' | ')}`);
  const firstParents = git(w, ['rev-list', '--first-parent', `${before}..refs/heads/main`]).split('\n');
  t.equal(firstParents.length, 10, 'ten merge commits, one after another on main');
  t.equal(baseLog(w, `${before}..refs/heads/main`, 50).filter((c) => c.subject.startsWith('Merge pull request')).length, 10);
  const files = git(w, ['ls-tree', '--name-only', 'refs/heads/main']).split('\n');
  for (let i = 0; i < 10; i++) t.ok(files.includes(`race-${i}.txt`), `race-${i}.txt is on main`);
  for (const index of indexes) t.ok(isAncestor(w, refOf(w, `refs/pull/${index}/head`)!, 'refs/heads/main'), `#${index}'s head is in main`);
  await assertPullsAgree(t, w);
  assertRepositorySound(t, repoDiskPath(w.config, 'alice', 'widget'));
});

t.test('merge, base change, update and close at once on one pull request end as one order of them would', async (t) => {
  const w = await pullWorld(t);
  for (let round = 0; round < 4; round++) {
    const p = await openPull(w, `mix-${round}`, { [`mix-${round}.txt`]: `mix ${round}\n` });
    await w.pushBranch(`target-${round}`, { [`target-${round}.txt`]: 't\n' }, { from: 'main' });
    t.equal(await settledMergeable(w, p, true), true);
    await w.pushBranch('main', { [`main-moved-${round}.txt`]: 'm\n' }, { from: 'main' });
    const url = `/api/v1/repos/alice/widget/pulls/${p}`;
    const requests = [
      () => merge(w, p, { do: 'merge' }, 'alice', { 'idempotency-key': `mix-merge-${round}` }),
      () => w.api({ method: 'PATCH', url, as: 'alice', body: { base: `target-${round}` } }),
      () => w.api({ method: 'POST', url: `${url}/update`, as: 'alice', headers: { 'idempotency-key': `mix-update-${round}` } }),
      () => w.api({ method: 'PATCH', url, as: 'alice', body: { state: 'closed' } }),
    ];
    // A different one leads each round, the others a few milliseconds behind, all in flight together.
    const order = [0, 1, 2, 3].map((i) => (i + round) % 4);
    const answers: Array<Awaited<ReturnType<(typeof requests)[number]>>> = [];
    await Promise.all(order.map(async (i, k) => {
      await new Promise((resolve) => setTimeout(resolve, k * 15));
      answers[i] = await requests[i]!();
    }));
    const [merged, rebased, updated, closed] = answers.map((a) => a!.statusCode);
    const label = `round ${round}: merge ${merged}, base ${rebased}, update ${updated}, close ${closed}`;
    t.ok(answers.every((a) => a!.statusCode < 500), `${label}: no server errors`);

    const row = await w.db('pull_requests').where({ index: p }).first();
    const issue = await w.db('issues').where({ id: row.issue_id }).first();
    t.ok(issue.is_closed, `${label}: the pull request ends merged or closed`);
    t.equal(Boolean(row.has_merged), merged === 200, `${label}: merged exactly when the merge answered 200`);
    // (Gitea answers an edit with 201.)
    t.equal(row.base_branch, rebased === 201 ? `target-${round}` : 'main', `${label}: the base is the new one exactly when the change answered 201`);
    if (row.has_merged) {
      // Whatever came before the merge, it merged the pull request as it then stood, into its base of the time.
      t.ok(isAncestor(w, row.merge_commit_sha, `refs/heads/${row.base_branch}`), `${label}: the merge commit is on the final base`);
      t.equal(git(w, ['rev-parse', `${row.merge_commit_sha}^2`]), refOf(w, `refs/heads/mix-${round}`), `${label}: it merged the head as it finally stands`);
      const otherBase = row.base_branch === 'main' ? `target-${round}` : 'main';
      t.notOk(isAncestor(w, row.merge_commit_sha, `refs/heads/${otherBase}`), `${label}: and nothing went into the other branch`);
      t.not(closed, 201, `${label}: a close after the merge is refused`);
    } else {
      t.equal(closed, 201, `${label}: not merged means the close came first`);
      t.not(merged, 200);
    }
    if (updated === 200 && row.has_merged) {
      t.equal(baseLog(w, `refs/heads/mix-${round}`, 1)[0]!.subject.startsWith('Merge branch'), true, `${label}: the update came before the merge and was merged with it`);
    }
  }
});

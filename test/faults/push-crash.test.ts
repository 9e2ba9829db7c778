// A push whose post-receive work a crash cut short: the API process dies after git moved the branch
// and before the pull requests heard of it. The next API process to start catches up: a pull request
// from the branch names its new head again, and a status posted on that head lands its auto-merge
// (statuses find their pull requests by the recorded head); a pull request into the branch checks
// its mergeability against the new base.
import t, { type Test as Tap } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullWorld } from '../pulls/fixtures.js';
import { cloneUrl, fixtureToken } from '../repos/fixtures.js';
import { baseLog, openPull, refOf, scheduledBurst, waitFor, widgetRepoId } from '../merge/world.js';
import { startApiProcess } from './worker-process.js';
import type { PullWorld } from '../pulls/fixtures.js';

/** Runs git in alice's clone; throws on failure, returns its output. */
function aliceGit(w: PullWorld) {
  return async (args: string[]) => {
    const r = await w.git(args, w.clones.alice);
    if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
}

/** An API process that dies in the post-receive work of the first push it takes. */
async function crashingApi(t: Tap, w: PullWorld) {
  const faults = mkdtempSync(join(tmpdir(), 'pullhost-push-crash-'));
  t.teardown(() => rmSync(faults, { recursive: true, force: true }));
  const crashing = await startApiProcess(t, w.config, { PULLHOST_FAULTS: 'push:before-followers', PULLHOST_FAULTS_DIR: faults });
  const pushUrl = cloneUrl(crashing.base, '/alice/widget.git', 'alice', (await fixtureToken(w.app, 'alice'))!);
  return { ...crashing, pushUrl };
}

t.test('a push cut short by a crash is followed by the next API process; its auto-merge then lands', async (t) => {
  const w = await pullWorld(t);
  const [index] = await scheduledBurst(w, 1, 'crash');
  const repoId = await widgetRepoId(w);
  const row = async () => w.db('pull_requests').where({ base_repo_id: repoId, index }).first();
  const oldHead = refOf(w, `refs/pull/${index}/head`)!;
  t.equal((await row()).head_commit_id, oldHead, 'the pull request names its head');

  const crashing = await crashingApi(t, w);

  // A fix pushed to the branch, through the process that will die in its post-receive work.
  const git = aliceGit(w);
  await git(['checkout', '-q', '-B', 'crash-0', 'origin/crash-0']);
  writeFileSync(join(w.clones.alice, 'crash-0.txt'), 'crash-0, fixed\n');
  await git(['commit', '-q', '-am', 'fix crash-0']);
  const newHead = await git(['rev-parse', 'HEAD']);
  await w.git(['push', '-q', crashing.pushUrl, 'HEAD:refs/heads/crash-0'], w.clones.alice);
  t.equal(await crashing.api.exited, 137, 'the API process died in the push\'s post-receive work');
  t.equal(refOf(w, 'refs/heads/crash-0'), newHead, 'git had moved the branch');
  t.equal(refOf(w, `refs/pull/${index}/head`), oldHead, 'the pull request\'s head reference had not followed');
  t.equal((await row()).head_commit_id, oldHead, 'nor had its row');

  // The next API process to start catches up.
  const next = await startApiProcess(t, w.config);
  t.ok(await waitFor(async () => (await row()).head_commit_id === newHead, 30_000, 100), 'the row names the new head');
  t.equal(refOf(w, `refs/pull/${index}/head`), newHead, 'and so does the head reference');
  const logged = await waitFor(async () => next.api.output().includes('caught up pushes a crash left unfollowed'), 5_000, 50);
  t.ok(logged, logged ? 'the catch-up is logged' : `the catch-up is logged: ${next.api.output().slice(-500)}`);

  // The check of the new head turns green: the auto-merge scheduled before the crash lands it.
  const posted = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${newHead}`, as: 'alice', body: { state: 'success', context: 'ci' } });
  t.equal(posted.statusCode, 201, posted.statusCode === 201 ? 'the status is stored' : posted.body);
  t.ok(await waitFor(async () => Boolean((await row()).has_merged), 60_000, 200), 'the auto-merge landed');
  const [mergeCommit] = baseLog(w, 'refs/heads/main', 1);
  t.same(mergeCommit!.parents.slice(1), [newHead], 'it merged the fixed head');
});

t.test('a push to a base cut short by a crash: the pull requests into it check again at the next start', async (t) => {
  const w = await pullWorld(t);
  const index = await openPull(w, 'reword', { 'README.md': 'reworded by the pull request\n' });
  const repoId = await widgetRepoId(w);
  const row = async () => w.db('pull_requests').where({ base_repo_id: repoId, index }).first();
  const oldBase = refOf(w, 'refs/heads/main')!;
  const checked = await waitFor(async () => {
    const r = await row();
    return r.status === 'mergeable' && r.checked_base === oldBase;
  }, 30_000, 100);
  t.ok(checked, 'the pull request is checked mergeable against main');

  // main changes the same file, pushed through the process that will die in its post-receive work.
  const crashing = await crashingApi(t, w);
  const git = aliceGit(w);
  await git(['fetch', '-q', 'origin']);
  await git(['checkout', '-q', '-B', 'main', 'origin/main']);
  writeFileSync(join(w.clones.alice, 'README.md'), 'reworded on main\n');
  await git(['commit', '-q', '-am', 'reword on main']);
  const newBase = await git(['rev-parse', 'HEAD']);
  await w.git(['push', '-q', crashing.pushUrl, 'HEAD:refs/heads/main'], w.clones.alice);
  t.equal(await crashing.api.exited, 137, 'the API process died in the push\'s post-receive work');
  t.equal(refOf(w, 'refs/heads/main'), newBase, 'git had moved main');
  const stale = await row();
  t.same([stale.status, stale.checked_base], ['mergeable', oldBase], 'the pull request still shows its check of the old main');

  // The next API process to start asks it to check again: the new main conflicts with it.
  const next = await startApiProcess(t, w.config);
  const rechecked = await waitFor(async () => {
    const r = await row();
    return r.status === 'conflict' && r.checked_base === newBase;
  }, 30_000, 100);
  t.ok(rechecked, 'the pull request is checked against the new main, and conflicts');
  const shown = await w.api({ url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice' });
  t.equal(shown.json().mergeable, false, 'the API shows it not mergeable');
  const logged = await waitFor(async () => next.api.output().includes('caught up pushes a crash left unfollowed'), 5_000, 50);
  t.ok(logged, logged ? 'the catch-up is logged' : `the catch-up is logged: ${next.api.output().slice(-500)}`);
});

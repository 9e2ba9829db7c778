// A push whose post-receive work a crash cut short: the API process dies after git moved the branch
// and before the pull request from it followed. The next API process to start catches up: the pull
// request names its new head again, and a status posted on that head lands its auto-merge (statuses
// find their pull requests by the recorded head).
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullWorld } from '../pulls/fixtures.js';
import { cloneUrl, fixtureToken } from '../repos/fixtures.js';
import { baseLog, refOf, scheduledBurst, waitFor, widgetRepoId } from '../merge/world.js';
import { startApiProcess } from './worker-process.js';

t.test('a push cut short by a crash is followed by the next API process; its auto-merge then lands', async (t) => {
  const w = await pullWorld(t);
  const [index] = await scheduledBurst(w, 1, 'crash');
  const repoId = await widgetRepoId(w);
  const row = async () => w.db('pull_requests').where({ base_repo_id: repoId, index }).first();
  const oldHead = refOf(w, `refs/pull/${index}/head`)!;
  t.equal((await row()).head_commit_id, oldHead, 'the pull request names its head');

  const faults = mkdtempSync(join(tmpdir(), 'pullhost-push-crash-'));
  t.teardown(() => rmSync(faults, { recursive: true, force: true }));
  const crashing = await startApiProcess(t, w.config, { PULLHOST_FAULTS: 'push:before-followers', PULLHOST_FAULTS_DIR: faults });

  // A fix pushed to the branch, through the process that will die in its post-receive work.
  const dir = w.clones.alice;
  const git = async (args: string[]) => {
    const r = await w.git(args, dir);
    if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  await git(['checkout', '-q', '-B', 'crash-0', 'origin/crash-0']);
  writeFileSync(join(dir, 'crash-0.txt'), 'crash-0, fixed\n');
  await git(['commit', '-q', '-am', 'fix crash-0']);
  const newHead = await git(['rev-parse', 'HEAD']);
  await w.git(['push', '-q', cloneUrl(crashing.base, '/alice/widget.git', 'alice', (await fixtureToken(w.app, 'alice'))!), 'HEAD:refs/heads/crash-0'], dir);
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

// A push whose post-receive work a crash cut short: the API process dies after git moved the branch
// and before the pull requests heard of it. The next API process to start catches up: a pull request
// from the branch names its new head again, and a status posted on that head lands its auto-merge
// (statuses find their pull requests by the recorded head); a pull request into the branch checks
// its mergeability against the new base. A post-receive step that fails without a crash is caught up
// by the running process's next sweeps. Webhook events a crash kept from being recorded (a push's,
// an API tag's) are recorded by the next catch-up, once (core/push-journal.ts), also when a later
// push has moved the reference on, or the push was sent again after a try git never applied. A push
// whose branch another write moved on before its own process looked records its events itself.
import t, { type Test as Tap } from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullWorld } from '../pulls/fixtures.js';
import { cloneUrl, fixtureToken } from '../repos/fixtures.js';
import { baseLog, openPull, refOf, scheduledBurst, waitFor, widgetRepoId } from '../merge/world.js';
import { startApiProcess } from './worker-process.js';
import { followMissedPushes } from '../../core/push-recovery.js';
import { announcePush, journalledPushes, journalledWrite, journalPush, UNAPPLIED_PUSH_KEPT_SECONDS } from '../../core/push-journal.js';
import { nowUnix } from '../../db/time.js';
import { reposStore } from '../../db/repos.js';
import { afterPush } from '../../core/push.js';
import { zeroSha } from '../../git/index.js';
import { repoDiskPath } from '../../core/repositories.js';
import type { PullWorld } from '../pulls/fixtures.js';

/** Runs git in alice's clone; throws on failure, returns its output. */
function aliceGit(w: PullWorld) {
  return async (args: string[]) => {
    const r = await w.git(args, w.clones.alice);
    if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
}

/**
 * Commits `content` to `file` on the server's `branch` in alice's clone and pushes it to `url`;
 * returns the new commit. The push's own outcome is not checked: the process taking it may die.
 */
async function pushChange(w: PullWorld, url: string, branch: string, file: string, content: string): Promise<string> {
  const git = aliceGit(w);
  await git(['fetch', '-q', 'origin']);
  await git(['checkout', '-q', '-B', branch, `origin/${branch}`]);
  writeFileSync(join(w.clones.alice, file), content);
  await git(['commit', '-q', '-am', `change ${file} on ${branch}`]);
  const sha = await git(['rev-parse', 'HEAD']);
  await w.git(['push', '-q', url, `HEAD:refs/heads/${branch}`], w.clones.alice);
  return sha;
}

/** An API process of its own, and the address alice pushes to through it. */
async function apiProcess(t: Tap, w: PullWorld, env: Record<string, string>) {
  const api = await startApiProcess(t, w.config, env);
  return { ...api, pushUrl: cloneUrl(api.base, '/alice/widget.git', 'alice', (await fixtureToken(w.app, 'alice'))!) };
}

/**
 * An API process that dies in the post-receive work of the first push it takes, at `point`, with a
 * temporary directory of its own (`tmp`: what a killed process leaves there shows).
 */
async function crashingApi(t: Tap, w: PullWorld, point = 'push:before-followers') {
  const faults = mkdtempSync(join(tmpdir(), 'pullhost-push-crash-'));
  const tmp = mkdtempSync(join(tmpdir(), 'pullhost-push-crash-tmp-'));
  t.teardown(() => [faults, tmp].forEach((d) => rmSync(d, { recursive: true, force: true })));
  return { ...await apiProcess(t, w, { PULLHOST_FAULTS: point, PULLHOST_FAULTS_DIR: faults, TMPDIR: tmp }), tmp };
}

/** A hook on alice/widget that hears pushes and branch creation: ref events are recorded only when one does. */
async function pushHook(t: Tap, w: PullWorld): Promise<void> {
  const hook = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/hooks', as: 'alice', body: { type: 'gitea', active: true, config: { url: 'http://127.0.0.1:9/', content_type: 'json' }, events: ['push', 'create'] } });
  t.equal(hook.statusCode, 201, hook.statusCode === 201 ? 'a hook hears pushes' : hook.body);
}

/** How many `event` events the outbox holds for a reference moved to `sha`. */
async function refEvents(w: PullWorld, event: string, sha: string): Promise<number> {
  return (await w.db('webhook_events').where({ event }).andWhere('detail', 'like', `%"after":"${sha}"%`).select('id')).length;
}

async function journalled(w: PullWorld): Promise<number> {
  return (await w.db('push_journal').select('id')).length;
}

t.test('a push cut short by a crash is followed by the next API process; its auto-merge then lands', async (t) => {
  const w = await pullWorld(t);
  const [index] = await scheduledBurst(w, 1, 'crash');
  const repoId = await widgetRepoId(w);
  const row = async () => w.db('pull_requests').where({ base_repo_id: repoId, index }).first();
  const oldHead = refOf(w, `refs/pull/${index}/head`)!;
  t.equal((await row()).head_commit_id, oldHead, 'the pull request names its head');
  await pushHook(t, w);

  const crashing = await crashingApi(t, w);

  // A fix pushed to the branch, through the process that will die in its post-receive work.
  const newHead = await pushChange(w, crashing.pushUrl, 'crash-0', 'crash-0.txt', 'crash-0, fixed\n');
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
  t.equal(await refEvents(w, 'push', newHead), 1, 'the push\'s event, recorded before the crash, is not recorded again');
  t.equal(await journalled(w), 0, 'no push is left in the journal');

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
  const newBase = await pushChange(w, crashing.pushUrl, 'main', 'README.md', 'reworded on main\n');
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

t.test('a push whose post-receive work failed is caught up by the sweeps of the running process', async (t) => {
  const w = await pullWorld(t);
  const index = await openPull(w, 'swept', { 'swept.txt': 'one\n' });
  const repoId = await widgetRepoId(w);
  const row = async () => w.db('pull_requests').where({ base_repo_id: repoId, index }).first();
  const failing = await apiProcess(t, w, { PULLHOST_FAILING: 'push:before-followers', PUSH_CATCH_UP_SECONDS: '1' });
  let exited = false;
  void failing.api.exited.then(() => (exited = true));

  const newHead = await pushChange(w, failing.pushUrl, 'swept', 'swept.txt', 'two\n');
  t.equal(refOf(w, 'refs/heads/swept'), newHead, 'the push moved the branch');
  // Logged before the answer ends, but read through the process's stdout, which may come later.
  const failed = await waitFor(async () => failing.api.output().includes('post-receive failed'), 5_000, 50);
  t.ok(failed, 'its post-receive work failed');

  const followed = await waitFor(async () => (await row()).head_commit_id === newHead, 20_000, 100);
  t.ok(followed, 'a sweep of the same process moves the pull request to the new head');
  t.equal(refOf(w, `refs/pull/${index}/head`), newHead, 'and its head reference');
  const logged = await waitFor(async () => failing.api.output().includes('caught up pushes whose post-receive work failed'), 5_000, 50);
  t.ok(logged, logged ? 'the catch-up is logged' : `the catch-up is logged: ${failing.api.output().slice(-500)}`);
  t.notOk(exited, 'the process kept running');
});

t.test('a sweep replays only the differences the sweep before also found', async (t) => {
  const w = await pullWorld(t);
  const index = await openPull(w, 'twice', { 'twice.txt': 'one\n' });
  const repoId = await widgetRepoId(w);
  const row = async () => w.db('pull_requests').where({ base_repo_id: repoId, index }).first();
  const services = { db: w.db, config: w.config, pullWorkflows: w.pullWorkflows };
  // The branch moved behind the service's back, as a push whose post-receive work failed leaves it.
  const oldHead = refOf(w, 'refs/heads/twice')!;
  const bare = ['--git-dir', repoDiskPath(w.config, 'alice', 'widget')];
  const newHead = await aliceGit(w)([...bare, 'commit-tree', '-p', oldHead, '-m', 'moved', `${oldHead}^{tree}`]);
  await aliceGit(w)([...bare, 'update-ref', 'refs/heads/twice', newHead, oldHead]);

  const first = await followMissedPushes(services, { onlyIfSeen: new Set() });
  t.same(first.replayed, [], 'a difference found for the first time is left alone');
  t.equal((await row()).head_commit_id, oldHead, 'the pull request still names the old head');
  t.ok(first.differences.size > 0, 'the difference is remembered');

  const second = await followMissedPushes(services, { onlyIfSeen: first.differences });
  t.same(second.replayed, [`${repoId}:twice`], 'found again, it is replayed');
  t.equal((await row()).head_commit_id, newHead, 'the pull request names the new head');
  t.same(second.problems, [], 'without problems');

  // A push's events are recorded by whoever takes its journal row: its own process or a catch-up.
  await pushHook(t, w);
  const update = { ref: 'refs/heads/claimed', oldSha: zeroSha(newHead), newSha: newHead };
  const claimed = await journalPush(w.db, repoId, w.users.alice.id, [update]);
  t.equal(await announcePush(w.db, claimed, repoId, w.users.alice.id, [update]), true, 'the first to take a push\'s row records its events');
  t.equal(await announcePush(w.db, claimed, repoId, w.users.alice.id, [update]), false, 'the second finds it taken');
  t.same([await refEvents(w, 'create', newHead), await refEvents(w, 'push', newHead)], [1, 1], 'and its events are recorded once');

  // A journalled push that git did not apply may still be sending its pack: it is kept, for a while.
  const unapplied = await journalPush(w.db, repoId, w.users.alice.id, [{ ref: 'refs/heads/uploading', oldSha: zeroSha(newHead), newSha: newHead }]);
  const third = await followMissedPushes(services);
  t.same(third.announced, [], 'nothing is recorded for a push git did not apply');
  t.equal(await journalled(w), 1, 'the push is kept');
  await w.db('push_journal').where({ id: unapplied }).update({ created_unix: nowUnix() - UNAPPLIED_PUSH_KEPT_SECONDS - 1 });
  await followMissedPushes(services);
  t.equal(await journalled(w), 0, 'and dropped once older than a push can take');
});

t.test('a journalled push whose branch later pushes moved on: its events are recorded, the later head kept', async (t) => {
  const w = await pullWorld(t);
  await pushHook(t, w);
  const index = await openPull(w, 'onward', { 'onward.txt': 'one\n' });
  const repoId = await widgetRepoId(w);
  const repo = (await reposStore(w.db).byId(repoId))!;
  const services = { db: w.db, config: w.config, pullWorkflows: w.pullWorkflows };
  const bare = ['--git-dir', repoDiskPath(w.config, 'alice', 'widget')];
  const git = aliceGit(w);
  const commitOn = (parent: string, message: string) => git([...bare, 'commit-tree', '-p', parent, '-m', message, `${parent}^{tree}`]);
  const onward = 'refs/heads/onward';
  /** A push whose process died after git applied it, before its events were recorded. */
  const diedAfterGit = async (oldSha: string, newSha: string) => {
    await journalPush(w.db, repoId, w.users.alice.id, [{ ref: onward, oldSha, newSha }]);
    await git([...bare, 'update-ref', onward, newSha, oldSha]);
  };
  /** A push whose work was all done. */
  const pushed = async (oldSha: string, newSha: string) => {
    await git([...bare, 'update-ref', onward, newSha, oldSha]);
    t.same((await afterPush(services, repo, { updates: [{ ref: onward, oldSha, newSha }], pusherId: w.users.alice.id })).problems, [], 'a later push\'s own post-receive work ran');
  };
  const start = refOf(w, onward)!;
  // Push A died after git; push B built on it. Push C died after git; push D force-pushed past it.
  const a = await commitOn(start, 'push A');
  const b = await commitOn(a, 'push B');
  const c = await commitOn(b, 'push C');
  const d = await commitOn(b, 'push D, forced past C');
  await diedAfterGit(start, a);
  await pushed(a, b);
  await diedAfterGit(b, c);
  await pushed(c, d);
  // Pushes git never applied: one whose pack never arrived, one rewinding the branch, still to come.
  const never = await commitOn(start, 'never applied');
  await journalPush(w.db, repoId, w.users.alice.id, [{ ref: onward, oldSha: start, newSha: never }]);
  await journalPush(w.db, repoId, w.users.alice.id, [{ ref: onward, oldSha: d, newSha: start }]);

  const caught = await followMissedPushes(services);
  t.same(caught.announced, [`${repoId}:${onward}`, `${repoId}:${onward}`], 'the catch-up records pushes A and C, and only them');
  t.same(caught.problems, [], 'without problems');
  t.same(await Promise.all([a, b, c, d].map((sha) => refEvents(w, 'push', sha))), [1, 1, 1, 1], 'each push has its event, once');
  t.same(caught.replayed, [], 'no branch is replayed');
  const row = await w.db('pull_requests').where({ base_repo_id: repoId, index }).first();
  t.equal(row.head_commit_id, d, 'the pull request keeps the latest push\'s head');
  t.equal(refOf(w, `refs/pull/${index}/head`), d, 'and so does refs/pull/N/head');
  t.equal(await journalled(w), 2, 'the pushes git never applied are kept');
  const again = await followMissedPushes(services);
  t.same(again.announced, [], 'a catch-up after it records nothing');
  t.same([await refEvents(w, 'push', a), await refEvents(w, 'push', c)], [1, 1], 'the events are there once');
});

t.test('a push whose branch another write moved on before its own process looked: its events are recorded at once', async (t) => {
  const w = await pullWorld(t);
  await pushHook(t, w);
  const bare = repoDiskPath(w.config, 'alice', 'widget');
  // The other write (a merge into main, a second push) lands between git's update and the push
  // process's reading of the branch: played by git's post-receive hook, which runs in between.
  const hook = join(bare, 'hooks', 'post-receive');
  writeFileSync(hook, [
    '#!/bin/sh',
    'export GIT_AUTHOR_NAME=hook GIT_AUTHOR_EMAIL=hook@example.com GIT_COMMITTER_NAME=hook GIT_COMMITTER_EMAIL=hook@example.com',
    'while read old new ref; do',
    '  [ "$ref" = refs/heads/main ] || continue',
    '  next=$(git commit-tree -p "$new" -m "moved on" "$new^{tree}") && git update-ref refs/heads/main "$next" "$new" && echo "$next" > "$GIT_DIR/moved-on"',
    'done', '',
  ].join('\n'), { mode: 0o755 });
  t.teardown(() => rmSync(hook, { force: true }));
  const url = cloneUrl(w.baseUrl, '/alice/widget.git', 'alice', (await fixtureToken(w.app, 'alice'))!);
  const sha = await pushChange(w, url, 'main', 'README.md', 'moved on at once\n');
  const movedOn = readFileSync(join(bare, 'moved-on'), 'utf8').trim();
  t.equal(refOf(w, 'refs/heads/main'), movedOn, 'main was moved on before the push process looked');
  t.equal(await refEvents(w, 'push', sha), 1, 'the push event is recorded by the push itself');
  t.equal(await journalled(w), 0, 'and the journal holds nothing for a catch-up');
});

t.test('a push sent again after its first try died before git applied it: its events are recorded once', async (t) => {
  const w = await pullWorld(t);
  await pushHook(t, w);
  const repoId = await widgetRepoId(w);
  const services = { db: w.db, config: w.config, pullWorkflows: w.pullWorkflows };
  const bare = ['--git-dir', repoDiskPath(w.config, 'alice', 'widget')];
  const main = refOf(w, 'refs/heads/main')!;
  const commitOn = (parent: string, message: string) => aliceGit(w)([...bare, 'commit-tree', '-p', parent, '-m', message, `${parent}^{tree}`]);
  const create = async (ref: string, sha: string) => { await aliceGit(w)([...bare, 'update-ref', ref, sha, zeroSha(sha)]); return true; };

  // The first try's row: its process died mid-pack, before git moved anything.
  const sha = await commitOn(main, 'sent twice');
  const update = { ref: 'refs/heads/retried', oldSha: zeroSha(sha), newSha: sha };
  await journalPush(w.db, repoId, w.users.alice.id, [update]);
  t.same((await followMissedPushes(services)).announced, [], 'not applied: nothing to record yet');
  // The client sends it again, and this time it lands.
  const retry = await journalledWrite(w.db, repoId, w.users.alice.id, [update], () => create(update.ref, sha));
  t.equal(await announcePush(w.db, retry, repoId, w.users.alice.id, [update]), true, 'the retry records its events');
  t.equal(await journalled(w), 0, 'and takes the first try\'s row, the same update, with its own');
  t.same((await followMissedPushes(services)).announced, [], 'a catch-up after it has nothing to record');
  t.same([await refEvents(w, 'create', sha), await refEvents(w, 'push', sha)], [1, 1], 'the branch\'s events are recorded once');

  // A first try of two branches, then each pushed on its own: each takes its update out of the first try's row.
  const one = await commitOn(main, 'first of two');
  const two = await commitOn(main, 'second of two');
  const first = { ref: 'refs/heads/first', oldSha: zeroSha(one), newSha: one };
  const second = { ref: 'refs/heads/second', oldSha: zeroSha(two), newSha: two };
  await journalPush(w.db, repoId, w.users.alice.id, [first, second]);
  for (const [update, sha] of [[first, one], [second, two]] as const) {
    const id = await journalledWrite(w.db, repoId, w.users.alice.id, [update], () => create(update.ref, sha));
    t.equal(await announcePush(w.db, id, repoId, w.users.alice.id, [update]), true, `${update.ref} is announced`);
    if (update === first) t.same((await journalledPushes(w.db)).map((p) => p.updates), [[second]], 'the update not sent again stays in the first try\'s row');
  }
  t.equal(await journalled(w), 0, 'the row goes with its last update');
  t.same((await followMissedPushes(services)).announced, [], 'and a catch-up has nothing to record');
  t.same([await refEvents(w, 'push', one), await refEvents(w, 'push', two)], [1, 1], 'each update\'s events once');
});

t.test('a push whose webhook events a crash kept from being recorded: the next API process records them, once', async (t) => {
  const w = await pullWorld(t);
  await pushHook(t, w);
  const crashing = await crashingApi(t, w, 'push:before-announce');
  const sha = await pushChange(w, crashing.pushUrl, 'main', 'README.md', 'announced late\n');
  t.equal(await crashing.api.exited, 137, 'the API process died before recording the push\'s events');
  t.equal(refOf(w, 'refs/heads/main'), sha, 'git had moved main');
  t.equal(await refEvents(w, 'push', sha), 0, 'no push event was recorded');
  t.equal(await journalled(w), 1, 'the push is in the journal');
  // git ran (the push) with the private home under the data directory, which outlives the process.
  t.same(readdirSync(crashing.tmp).filter((n) => n.startsWith('pullhost-git-home-')), [], 'the killed process left no git home in its temporary directory');
  t.equal(statSync(join(w.config.APP_DATA_PATH, 'git-home')).mode & 0o777, 0o700, 'its git home is the private one under the data directory');

  const next = await startApiProcess(t, w.config);
  t.ok(await waitFor(async () => (await refEvents(w, 'push', sha)) === 1, 30_000, 100), 'the next API process records the push event');
  t.equal(await journalled(w), 0, 'and takes the push out of the journal');
  const logged = await waitFor(async () => next.api.output().includes('caught up pushes a crash left unfollowed'), 5_000, 50);
  t.ok(logged, logged ? 'the catch-up is logged' : `the catch-up is logged: ${next.api.output().slice(-500)}`);
  const again = await followMissedPushes({ db: w.db, config: w.config, pullWorkflows: w.pullWorkflows });
  t.same(again.announced, [], 'a catch-up after it finds nothing to record');
  t.equal(await refEvents(w, 'push', sha), 1, 'the event is there once');
});

t.test('a tag the API created just before a crash: the next API process records its event', async (t) => {
  const w = await pullWorld(t);
  await pushHook(t, w);
  const crashing = await crashingApi(t, w, 'push:before-announce');
  const token = (await w.tokenHeader('alice')).authorization!;
  await fetch(`${crashing.base}/api/v1/repos/alice/widget/tags`, {
    method: 'POST', headers: { authorization: token, 'content-type': 'application/json' }, body: JSON.stringify({ tag_name: 'v1.0', message: 'first release' }),
  }).catch(() => null); // the process dies before it answers
  t.equal(await crashing.api.exited, 137, 'the API process died before recording the tag\'s events');
  const tag = refOf(w, 'refs/tags/v1.0');
  t.ok(tag, 'git had written the tag');
  t.equal(await refEvents(w, 'create', tag!), 0, 'no create event was recorded');

  await startApiProcess(t, w.config);
  t.ok(await waitFor(async () => (await refEvents(w, 'create', tag!)) === 1, 30_000, 100), 'the next API process records the tag\'s create event');
  t.equal(await journalled(w), 0, 'and empties the journal');
});

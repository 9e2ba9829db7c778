// POST /repos/{owner}/{repo}/pulls: one test per spec rule (1-11), the full record, the pull ref
// written in the base repository (also for a fork's head), archived and blocked refusals.
import t from 'tap';
import { pullWorld } from './fixtures.js';
import { repoDiskPath } from '../../core/repositories.js';
import { createMilestone } from '../../core/milestones.js';
import { createLabel } from '../../core/labels.js';
import { reposStore } from '../../db/repos.js';
import { resolveRef } from '../../git/index.js';

t.test('creating pull requests', async (t) => {
  const w = await pullWorld(t);
  const { api, db, config, users } = w;
  const url = '/api/v1/repos/alice/widget/pulls';
  const basePath = repoDiskPath(config, 'alice', 'widget');
  const featSha = await w.pushBranch('feat', { 'feat.txt': 'feature\n' });
  const bobSha = await w.pushBranch('bob-feat', { 'bob.txt': 'from the fork\n' }, { repo: 'bob' });
  const mainSha = await resolveRef(basePath, 'refs/heads/main');

  await t.test('rule 1: head equal to base is 422 with Gitea\'s message', async (t) => {
    const r = await api({ method: 'POST', url, as: 'alice', body: { head: 'main', base: 'main', title: 'x' } });
    t.equal(r.statusCode, 422);
    t.equal(r.json().message, 'Invalid PullRequest: There are no changes between the head and the base');
    const same = await api({ method: 'POST', url, as: 'alice', body: { head: 'alice:main', base: 'main', title: 'x' } });
    t.equal(same.statusCode, 422, 'owner:branch naming the same branch too');
  });

  await t.test('rule 2: a head user that does not exist is 404', async (t) => {
    const r = await api({ method: 'POST', url, as: 'alice', body: { head: 'nobody:feat', base: 'main', title: 'x' } });
    t.equal(r.statusCode, 404, r.body);
  });

  await t.test('rule 3: the base branch must exist', async (t) => {
    const r = await api({ method: 'POST', url, as: 'alice', body: { head: 'feat', base: 'nope', title: 'x' } });
    t.equal(r.statusCode, 404, r.body);
  });

  await t.test('rule 4: a head user without a fork is 404', async (t) => {
    const r = await api({ method: 'POST', url, as: 'alice', body: { head: 'carol:feat', base: 'main', title: 'x' } });
    t.equal(r.statusCode, 404, r.body);
    const unrelated = await api({ method: 'POST', url: '/api/v1/user/repos', as: 'carol', body: { name: 'other', auto_init: true } });
    t.equal(unrelated.statusCode, 201);
    const r2 = await api({ method: 'POST', url, as: 'alice', body: { head: 'carol/other:main', base: 'main', title: 'x' } });
    t.equal(r2.statusCode, 404, 'a repository outside the fork network is not a head');
  });

  await t.test('rule 5: a repository the caller cannot read is 404', async (t) => {
    const secret = await api({ method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'secret', private: true, auto_init: true } });
    t.equal(secret.statusCode, 201);
    const r = await api({ method: 'POST', url: '/api/v1/repos/alice/secret/pulls', as: 'carol', body: { head: 'x', base: 'main', title: 'x' } });
    t.equal(r.statusCode, 404);
    const anon = await api({ method: 'POST', url, body: { head: 'feat', base: 'main', title: 'x' } });
    t.equal(anon.statusCode, 401, 'anonymous callers must sign in');
  });

  await t.test('rule 6: the head branch must exist in the head repository', async (t) => {
    t.equal((await api({ method: 'POST', url, as: 'alice', body: { head: 'missing', base: 'main', title: 'x' } })).statusCode, 404);
    t.equal((await api({ method: 'POST', url, as: 'alice', body: { head: 'bob:missing', base: 'main', title: 'x' } })).statusCode, 404);
  });

  await t.test('rule 8: a missing milestone is 404', async (t) => {
    const r = await api({ method: 'POST', url, as: 'alice', body: { head: 'feat', base: 'main', title: 'x', milestone: 9999 } });
    t.equal(r.statusCode, 404, r.body);
  });

  await t.test('rule 9: unknown and unassignable assignees are 422', async (t) => {
    const ghost = await api({ method: 'POST', url, as: 'alice', body: { head: 'feat', base: 'main', title: 'x', assignees: ['ghost'] } });
    t.equal(ghost.statusCode, 422);
    t.equal(ghost.json().message, 'Assignee does not exist: [name: ghost]');
    const carol = await api({ method: 'POST', url, as: 'alice', body: { head: 'feat', base: 'main', title: 'x', assignee: 'carol' } });
    t.equal(carol.statusCode, 422, 'carol cannot write to the repository');
  });

  await t.test('rule 10: a poster blocked by the owner is 403', async (t) => {
    await db('user_blocks').insert({ blocker_id: users.alice.id, blockee_id: users.carol.id, note: '', created_unix: 1 });
    const r = await api({ method: 'POST', url, as: 'carol', body: { head: 'feat', base: 'main', title: 'x' } });
    t.equal(r.statusCode, 403, r.body);
    await db('user_blocks').where({ blocker_id: users.alice.id }).delete();
  });

  let featIndex = 0;
  await t.test('rules 7 and 11: created by the caller, with the full record; a duplicate is 409', async (t) => {
    const milestone = await createMilestone(db, (await reposStore(db).byOwnerAndName(users.alice.id, 'widget'))!.id, { title: 'v1' });
    const label = await createLabel(db, { repoId: milestone.repo_id }, { name: 'bug', color: 'ee0701' });
    const r = await api({
      method: 'POST', url, as: 'dave',
      body: { head: 'feat', base: 'main', title: 'Add feature', body: 'Please merge', assignees: ['alice', 'dave'], labels: [label.id], milestone: milestone.id, due_date: '2030-01-02T03:04:05Z' },
    });
    t.equal(r.statusCode, 201, r.body);
    const pr = r.json();
    featIndex = pr.number;
    t.match(pr, {
      number: 1, title: 'Add feature', body: 'Please merge', state: 'open', user: { login: 'dave' }, draft: false, merged: false,
      merged_at: null, merge_commit_sha: null, merged_by: null, comments: 0, is_locked: false, pin_order: 0, content_version: 0,
      html_url: `${config.APP_URL}alice/widget/pulls/1`, url: `${config.APP_URL}alice/widget/pulls/1`,
      diff_url: `${config.APP_URL}alice/widget/pulls/1.diff`, patch_url: `${config.APP_URL}alice/widget/pulls/1.patch`,
      base: { label: 'main', ref: 'main', sha: mainSha, repo: { full_name: 'alice/widget' } },
      head: { label: 'feat', ref: 'feat', sha: featSha, repo: { full_name: 'alice/widget' } },
      merge_base: mainSha, labels: [{ id: label.id, name: 'bug', color: 'ee0701' }], milestone: { id: milestone.id, title: 'v1' },
      assignee: { login: 'alice' }, due_date: '2030-01-02T03:04:05Z', additions: 1, deletions: 0, changed_files: 1,
      allow_maintainer_edit: false, closed_at: null,
    });
    t.same(pr.assignees.map((u: { login: string }) => u.login).sort(), ['alice', 'dave']);
    t.equal(await resolveRef(basePath, 'refs/pull/1/head'), featSha, 'refs/pull/1/head written in the base repository');

    const dup = await api({ method: 'POST', url, as: 'alice', body: { head: 'feat', base: 'main', title: 'again' } });
    t.equal(dup.statusCode, 409);
    t.match(dup.json().message, /^pull request already exists for these targets \[id: \d+, issue_id: \d+, head_repo_id: \d+, base_repo_id: \d+, head_branch: feat, base_branch: main\]$/);
  });

  await t.test('the three head forms; a fork head is copied into the base repository', async (t) => {
    const fromFork = await api({ method: 'POST', url, as: 'bob', body: { head: 'bob:bob-feat', base: 'main', title: 'From the fork' } });
    t.equal(fromFork.statusCode, 201, fromFork.body);
    const pr = fromFork.json();
    t.match(pr, { user: { login: 'bob' }, head: { label: 'bob-feat', ref: 'bob-feat', sha: bobSha, repo: { full_name: 'bob/widget' } }, base: { repo: { full_name: 'alice/widget' } } });
    t.equal(await resolveRef(basePath, `refs/pull/${pr.number}/head`), bobSha, 'the fork head is fetched into alice/widget');
    const again = await api({ method: 'POST', url, as: 'bob', body: { head: 'bob/widget:bob-feat', base: 'main', title: 'again' } });
    t.equal(again.statusCode, 409, 'owner/repo:branch names the same head');
  });

  await t.test('identical creations racing: exactly one wins, the others are 409', async (t) => {
    await w.pushBranch('race', { 'race.txt': 'race\n' });
    const headers = await w.tokenHeader('alice');
    const all = await Promise.all(Array.from({ length: 6 }, () => api({ method: 'POST', url, headers, body: { head: 'race', base: 'main', title: 'race' } })));
    t.same(all.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409]);
  });

  await t.test('a repository with pull requests disabled answers 404', async (t) => {
    const repo = (await reposStore(db).byOwnerAndName(users.alice.id, 'widget'))!;
    await reposStore(db).update(repo.id, { has_pull_requests: false });
    t.equal((await api({ url, as: 'alice' })).statusCode, 404);
    await reposStore(db).update(repo.id, { has_pull_requests: true });
  });

  await t.test('an archived base repository is 423', async (t) => {
    await w.pushBranch('late', { 'late.txt': 'late\n' });
    const repo = (await reposStore(db).byOwnerAndName(users.alice.id, 'widget'))!;
    await reposStore(db).update(repo.id, { is_archived: true });
    const r = await api({ method: 'POST', url, as: 'alice', body: { head: 'late', base: 'main', title: 'x' } });
    t.equal(r.statusCode, 423);
    await reposStore(db).update(repo.id, { is_archived: false });
  });

  await t.test('hostile input is a 4xx', async (t) => {
    for (const head of ['-x', '../../etc', 'a b', 'bob:', ':main', 'bob/../x:main', 'x'.repeat(700)]) {
      const r = await api({ method: 'POST', url, as: 'alice', body: { head, base: 'main', title: 'x' } });
      t.ok(r.statusCode >= 400 && r.statusCode < 500, `${head.slice(0, 20)} -> ${r.statusCode}`);
    }
    t.equal((await api({ method: 'POST', url, as: 'alice', body: { head: 'late', base: 'main' } })).statusCode, 422, 'title is required');
    t.equal((await api({ method: 'POST', url, as: 'alice', body: { head: 'late', base: 'main', title: '   ' } })).statusCode, 422);
  });

  t.ok(featIndex > 0);
});

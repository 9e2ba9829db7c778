// Mergeability is checked once on creation (the answer carries it, as Gitea's does) and kept up to
// date by the pull request's workflow; it shows in `mergeable`; WIP titles are drafts and never
// mergeable; pushes and deletions keep the record true.
import t from 'tap';
import { pullWorld, type PullWorld } from './fixtures.js';
import { repoDiskPath } from '../../core/repositories.js';
import { markHeadBranchDeleted, notifyDependentPulls } from '../../core/pulls/state.js';
import { waitFor } from '../merge/world.js';
import { createIssue } from '../../core/issues.js';
import { loadRepository } from '../../core/permissions.js';
import { pullsStore } from '../../db/pulls.js';
import { resolveRef } from '../../git/index.js';

async function settledStatus(w: PullWorld, index: number, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await w.db('pull_requests').where({ index }).first('status');
    if (row.status !== 'checking' || Date.now() > deadline) return row.status as string;
    await new Promise((r) => setTimeout(r, 150));
  }
}

t.test('mergeability and keeping the record true', async (t) => {
  const w = await pullWorld(t);
  const { api, config } = w;
  const url = '/api/v1/repos/alice/widget/pulls';
  await w.pushBranch('main', { 'shared.txt': 'base line\n' });
  await w.pushBranch('clean', { 'clean.txt': 'clean\n' });
  await w.pushBranch('clash', { 'shared.txt': 'head version\n' });
  await w.pushBranch('drafty', { 'draft.txt': 'draft\n' });
  await w.pushBranch('main', { 'shared.txt': 'base moved on\n' });
  const create = async (head: string, title: string, mergeable: boolean) => {
    const r = await api({ method: 'POST', url, as: 'alice', body: { head, base: 'main', title } });
    t.equal(r.statusCode, 201, r.body);
    t.equal(r.json().mergeable, mergeable, `the creation answer says ${mergeable ? '' : 'not '}mergeable`);
    return r.json().number as number;
  };
  const clean = await create('clean', 'Clean change', true);
  const clash = await create('clash', 'Conflicting change', false);
  const wip = await create('drafty', 'WIP: not ready', false);
  t.equal((await w.db('pull_requests').where({ index: clash }).first('status')).status, 'conflict', 'the first check ran on the request path');

  await t.test('a clean pull request becomes mergeable', async (t) => {
    t.equal(await settledStatus(w, clean), 'mergeable');
    t.equal((await api({ url: `${url}/${clean}` })).json().mergeable, true);
  });
  await t.test('a conflicting one settles as not mergeable', async (t) => {
    t.equal(await settledStatus(w, clash), 'conflict');
    t.equal((await api({ url: `${url}/${clash}` })).json().mergeable, false);
  });
  await t.test('a WIP title is a draft and not mergeable whatever the status', async (t) => {
    await settledStatus(w, wip);
    const r = (await api({ url: `${url}/${wip}` })).json();
    t.equal(r.draft, true);
    t.equal(r.mergeable, false);
    const lower = await api({ method: 'PATCH', url: `${url}/${wip}`, as: 'alice', body: { title: '[wip] lower case counts' } });
    t.equal(lower.json().draft, true, 'prefixes match case-insensitively');
    const done = await api({ method: 'PATCH', url: `${url}/${wip}`, as: 'alice', body: { title: 'ready' } });
    t.equal(done.json().draft, false);
  });

  await t.test('a push to the head moves refs/pull/N/head and the record', async (t) => {
    const sha = await w.pushBranch('clean', { 'more.txt': 'more\n' });
    const path = repoDiskPath(config, 'alice', 'widget');
    t.equal(await resolveRef(path, `refs/pull/${clean}/head`), sha);
    const r = (await api({ url: `${url}/${clean}` })).json();
    t.equal(r.head.sha, sha);
    t.equal(r.additions, 2, 'stats follow the new head');
  });

  await t.test('a deleted head branch shows as refs/pull/N/head', async (t) => {
    const del = await w.git(['push', '-q', 'origin', ':clash'], w.clones.alice);
    t.equal(del.code, 0, del.stderr);
    const r = (await api({ url: `${url}/${clash}` })).json();
    t.equal(r.head.ref, `refs/pull/${clash}/head`);
    t.ok(r.head.sha, 'the last head is kept');
    const row = (await w.db('pull_requests').where({ index: clash }).first()) as { base_repo_id: number };
    t.equal(await markHeadBranchDeleted(w.db, row.base_repo_id, 'clash'), 1, 'push and branch code can mark it');
    const pull = (await pullsStore(w.db).byIndex(row.base_repo_id, clash))!;
    t.equal(pull.head_branch_deleted, true);
  });

  await t.test('a re-created head branch is followed again; dependents are found', async (t) => {
    const sha = await w.pushBranch('clash', { 'again.txt': 'again\n' });
    const row = (await w.db('pull_requests').where({ index: clash }).first()) as { base_repo_id: number };
    const record = () => pullsStore(w.db).byIndex(row.base_repo_id, clash);
    t.ok(await waitFor(async () => (await record())?.head_branch_deleted === false), 'the workflow\'s check finds the branch again');
    const after = (await record())!;
    t.match(after, { head_commit_id: sha, head_branch_deleted: false });
    const r = (await api({ url: `${url}/${clash}` })).json();
    t.match(r.head, { ref: 'clash', sha }, 'the answer names the branch again');
    t.equal(await resolveRef(repoDiskPath(config, 'alice', 'widget'), `refs/pull/${clash}/head`), sha);
    const ctx = await loadRepository(w.db, { ownerName: 'alice', repoName: 'widget', doer: w.users.alice });
    const blocker = await createIssue(w.db, ctx, w.users.alice, { title: 'blocker' });
    await w.db('issue_dependencies').insert({ issue_id: after.issue_id, dependency_id: blocker.id, created_unix: 1 });
    t.same(await notifyDependentPulls(w.db, w.pullWorkflows, blocker.id), [{ repoId: row.base_repo_id, index: clash }]);
  });
});

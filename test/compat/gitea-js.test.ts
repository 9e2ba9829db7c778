// The gitea-js client, unchanged, drives the service end to end: admin-created users, a repository,
// pull requests opened, edited, listed, fetched and merged, auto-merge scheduled behind a required
// status check and cancelled, markdown rendered, tokens created, listed and deleted. The only steps
// outside the client: the first site administrator (Gitea makes it with `gitea admin user create`)
// and the push, done with the git binary.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { giteaApi, type Api, type HttpResponse } from 'gitea-js';
import { startTestServices } from '../helper.js';
import { basic, cloneUrl, gitSandbox, makeUser } from '../repos/fixtures.js';

const PASSWORD = 'client-password-1';

/** The client throws the Response on non-2xx; tests want the status either way. */
async function settle<T>(p: Promise<HttpResponse<T, unknown>>): Promise<HttpResponse<T, unknown>> {
  try {
    return await p;
  } catch (res) {
    if (res instanceof Response) return res as HttpResponse<T, unknown>;
    throw res;
  }
}

t.test('gitea-js drives users, repository, pull requests, auto-merge, markdown and tokens', async (t) => {
  const s = await startTestServices(t, { temporal: true, listen: true });
  const base = s.baseUrl.replace(/\/$/, '');
  await makeUser(s.db, 'root', { admin: true });
  // Token endpoints take Basic auth only, so these calls go through a client with no token.
  const anonymous = giteaApi(base, { customFetch: fetch });
  const rootToken = await anonymous.users.userCreateToken('root', { name: 'admin', scopes: ['write:admin', 'write:user'] }, { headers: basic('root') });
  t.equal(rootToken.status, 201);
  const admin = giteaApi(base, { token: rootToken.data.sha1!, customFetch: fetch });

  for (const username of ['alice', 'bob']) {
    const made = await admin.admin.adminCreateUser({ username, email: `${username}@example.com`, password: PASSWORD, must_change_password: false });
    t.equal(made.status, 201);
    t.match(made.data, { login: username, email: `${username}@example.com` });
  }

  const aliceBasic = { headers: basic('alice', PASSWORD) };
  const created = await anonymous.users.userCreateToken('alice', { name: 'compat', scopes: ['write:repository', 'write:issue', 'write:user', 'write:misc'] }, aliceBasic);
  t.equal(created.status, 201);
  t.match(created.data, { name: 'compat', sha1: /^[0-9a-f]{40}$/, token_last_eight: String });
  const spare = await anonymous.users.userCreateToken('alice', { name: 'spare', scopes: ['read:user'] }, aliceBasic);
  t.equal(spare.status, 201);
  const listed = await anonymous.users.userGetTokens('alice', {}, aliceBasic);
  t.same(listed.data.map((tk) => tk.name).sort(), ['compat', 'spare']);
  const alice: Api<unknown> = giteaApi(base, { token: created.data.sha1!, customFetch: fetch });

  const repo = await alice.user.createCurrentUserRepo({ name: 'gadget', auto_init: true, default_branch: 'main' });
  t.equal(repo.status, 201);
  t.match(repo.data, { full_name: 'alice/gadget', default_branch: 'main' });

  // The push: the one step no API client can take.
  const { home, git } = gitSandbox(t);
  const dir = `${home}/gadget`;
  t.equal((await git(['clone', '-q', cloneUrl(s.baseUrl, '/alice/gadget.git', 'alice', PASSWORD), dir])).code, 0);
  for (const branch of ['one', 'two', 'three']) {
    t.equal((await git(['checkout', '-q', '-b', branch, 'origin/main'], dir)).code, 0);
    writeFileSync(join(dir, `${branch}.txt`), `${branch} work\n`);
    for (const args of [['add', `${branch}.txt`], ['commit', '-q', '-m', `${branch} work`], ['push', '-q', 'origin', `HEAD:refs/heads/${branch}`]]) {
      const r = await git(args, dir);
      t.equal(r.code, 0, r.stderr);
    }
  }

  for (const [i, head] of ['one', 'two'].entries()) {
    const pr = await alice.repos.repoCreatePullRequest('alice', 'gadget', { head, base: 'main', title: `PR ${head}`, body: `body ${head}` });
    t.equal(pr.status, 201);
    t.match(pr.data, { number: i + 1, state: 'open', head: { ref: head }, base: { ref: 'main' } });
  }
  const edited = await alice.repos.repoEditPullRequest('alice', 'gadget', 1, { title: 'PR one, edited', body: 'edited body' });
  t.equal(edited.status, 201);
  t.match(edited.data, { title: 'PR one, edited', body: 'edited body' });
  const pulls = await alice.repos.repoListPullRequests('alice', 'gadget', { state: 'open', sort: 'oldest', limit: 10, page: 1 });
  t.same(pulls.data.map((p) => p.number), [1, 2]);
  t.equal(pulls.headers.get('x-total-count'), '2');

  // The mergeability check runs in the pull request's workflow: wait for it through the client.
  for (let i = 0; i < 40; i++) {
    if ((await alice.repos.repoGetPullRequest('alice', 'gadget', 1)).data.mergeable) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const merged = await settle(alice.repos.repoMergePullRequest('alice', 'gadget', 1, { Do: 'merge', MergeTitleField: 'Merge one' }));
  t.equal(merged.status, 200);
  const after = await alice.repos.repoGetPullRequest('alice', 'gadget', 1);
  t.match(after.data, { merged: true, state: 'closed', merge_commit_sha: /^[0-9a-f]{40}$/ });
  t.equal((await alice.repos.repoPullRequestIsMerged('alice', 'gadget', 1)).status, 204);

  const protection = await alice.repos.repoCreateBranchProtection('alice', 'gadget', { rule_name: 'main', enable_status_check: true, status_check_contexts: ['ci/test'] });
  t.equal(protection.status, 201);
  t.match(protection.data, { rule_name: 'main', enable_status_check: true, status_check_contexts: ['ci/test'] });
  const scheduled = await settle(alice.repos.repoMergePullRequest('alice', 'gadget', 2, { Do: 'merge', merge_when_checks_succeed: true }));
  t.equal(scheduled.status, 201, 'auto-merge scheduled while ci/test is missing');
  t.equal((await alice.repos.repoGetPullRequest('alice', 'gadget', 2)).data.merged, false);
  const cancelled = await settle(alice.repos.repoCancelScheduledAutoMerge('alice', 'gadget', 2));
  t.equal(cancelled.status, 204);
  // Cancelled means a passing check no longer merges it.
  const head = (await alice.repos.repoGetPullRequest('alice', 'gadget', 2)).data.head!.sha!;
  const status = await alice.repos.repoCreateStatus('alice', 'gadget', head, { context: 'ci/test', state: 'success' });
  t.equal(status.status, 201);
  await new Promise((r) => setTimeout(r, 2500));
  t.equal((await alice.repos.repoGetPullRequest('alice', 'gadget', 2)).data.merged, false, 'the cancelled auto-merge does not fire');

  // And a scheduled auto-merge fires once the required check passes on the head.
  const third = await alice.repos.repoCreatePullRequest('alice', 'gadget', { head: 'three', base: 'main', title: 'PR three' });
  t.equal(third.status, 201);
  t.equal((await settle(alice.repos.repoMergePullRequest('alice', 'gadget', 3, { Do: 'squash', merge_when_checks_succeed: true }))).status, 201);
  t.equal((await alice.repos.repoCreateStatus('alice', 'gadget', third.data.head!.sha!, { context: 'ci/test', state: 'success' })).status, 201);
  let fired = false;
  for (let i = 0; i < 80 && !fired; i++) {
    fired = (await alice.repos.repoGetPullRequest('alice', 'gadget', 3)).data.merged === true;
    if (!fired) await new Promise((r) => setTimeout(r, 250));
  }
  t.ok(fired, 'the auto-merge fired after the success status');

  // What happened to each, read back as Gitea clients read it: the timeline.
  const events = async (index: number) => (await alice.repos.issueGetCommentsAndTimeline('alice', 'gadget', index)).data.map((c) => [c.type, c.user?.login]);
  t.same(await events(1), [['merge_pull', 'alice']]);
  t.same(await events(2), [['pull_scheduled_merge', 'alice'], ['pull_cancel_scheduled_merge', 'alice']]);
  t.same(await events(3), [['pull_scheduled_merge', 'alice'], ['merge_pull', 'alice']], 'the auto-merge is recorded as a merge by who scheduled it');

  const html = await alice.markdown.renderMarkdown({ Text: '# Title\n\nSee #1', Mode: 'gfm', Context: 'alice/gadget' }, { format: 'text' });
  t.equal(html.status, 200);
  t.match(html.data, /<h1 id="user-content-title">Title<\/h1>/);

  const deleted = await settle(anonymous.users.userDeleteAccessToken('alice', 'spare', aliceBasic));
  t.equal(deleted.status, 204);
  const remaining = await anonymous.users.userGetTokens('alice', {}, aliceBasic);
  t.same(remaining.data.map((tk) => tk.name), ['compat']);
});

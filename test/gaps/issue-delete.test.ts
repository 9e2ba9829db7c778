// Deleting issues and pull requests against the real app, MariaDB, git and Temporal: who may
// delete, what goes with the issue, numbers never reused, and a pull request with a scheduled
// auto-merge deleted through its workflow: the run ends and no merge follows. Also an issue's ref.
import t from 'tap';
import { makeUser } from '../repos/fixtures.js';
import { scopedToken } from '../people/world.js';
import { pullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf, waitFor } from '../merge/world.js';

t.test('deleting issues and pull requests', async (t) => {
  const w = await pullWorld(t);
  await makeUser(w.db, 'site', { admin: true });
  await makeUser(w.db, 'erin');
  await w.api({ method: 'PUT', url: '/api/v1/repos/alice/widget/collaborators/erin', as: 'alice', body: { permission: 'admin' } });
  const issues = '/api/v1/repos/alice/widget/issues';
  const newIssue = async (title: string, body: Record<string, unknown> = {}) => {
    const r = await w.api({ method: 'POST', url: issues, as: 'alice', body: { title, ...body } });
    t.equal(r.statusCode, 201, r.body);
    return r.json() as { id: number; number: number; ref: string };
  };

  await t.test('an issue\'s ref is stored on creation and edit', async (t) => {
    const issue = await newIssue('about a branch', { ref: 'refs/heads/main' });
    t.equal(issue.ref, 'refs/heads/main');
    const edit = (ref: unknown, as = 'alice') => w.api({ method: 'PATCH', url: `${issues}/${issue.number}`, as, body: { ref, title: 'about a branch', assignees: null, milestone: null, due_date: null, unset_due_date: null } });
    t.equal((await edit('main')).json().ref, 'main');
    t.equal((await w.api({ url: `${issues}/${issue.number}` })).json().ref, 'main', 'stored');
    t.equal((await edit(null)).json().ref, 'main', 'null leaves it');
    t.equal((await edit('')).json().ref, '', '"" clears it');
    t.equal((await edit('v1', 'carol')).statusCode, 403, 'neither poster nor writer');
  });

  await t.test('who may delete an issue', async (t) => {
    const issue = await newIssue('to be deleted');
    const url = `${issues}/${issue.number}`;
    t.equal((await w.api({ method: 'DELETE', url })).statusCode, 401, 'anonymous: token required');
    for (const who of ['dave', 'carol']) {
      const r = await w.api({ method: 'DELETE', url, as: who });
      t.equal(r.statusCode, 403, `${who} (writer, outsider) may not`);
      t.equal(r.json().message, 'user should be an owner or a collaborator with admin write of a repository');
    }
    const readIssue = await scopedToken(w.app, 'alice', ['read:issue']);
    t.equal((await w.api({ method: 'DELETE', url, headers: readIssue })).statusCode, 403, 'read:issue does not delete');
    t.equal((await w.api({ method: 'DELETE', url: `${issues}/999999`, as: 'alice' })).statusCode, 404);
    t.equal((await w.api({ method: 'DELETE', url: `${issues}/999999`, as: 'dave' })).statusCode, 403, 'the permission is checked before the issue is looked up, as in Gitea');

    const label = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/labels', as: 'alice', body: { name: 'doomed', color: '#ff0000' } })).json();
    for (const [status, c] of [
      [201, { method: 'POST', url: `${url}/comments`, as: 'dave', body: { body: 'a comment' } }],
      [201, { method: 'PATCH', url, as: 'alice', body: { assignees: ['dave'] } }],
      [200, { method: 'POST', url: `${url}/labels`, as: 'alice', body: { labels: [label.id] } }],
      [201, { method: 'POST', url: `${url}/reactions`, as: 'dave', body: { content: '+1' } }],
    ] as const) t.equal((await w.api(c as Parameters<typeof w.api>[0])).statusCode, status, `${c.method} ${c.url}`);
    t.equal((await w.api({ method: 'DELETE', url, as: 'erin' })).statusCode, 204, 'a repository admin deletes');
    t.equal((await w.api({ url })).statusCode, 404, 'gone');
    t.equal((await w.db('comments').where({ issue_id: issue.id })).length, 0, 'its comments went with it');
    for (const table of ['issue_assignees', 'issue_labels', 'reactions']) t.equal((await w.db(table).where({ issue_id: issue.id })).length, 0, `and its ${table}`);
    t.equal((await w.api({ url: `/api/v1/repos/alice/widget/labels/${label.id}` })).statusCode, 200, 'the label itself stays');
    t.equal((await w.api({ method: 'DELETE', url, as: 'alice' })).statusCode, 404, 'deleting again: not found');
    t.ok((await newIssue('after')).number > issue.number, 'numbers are not reused');
    const bySite = await newIssue('site admin deletes');
    t.equal((await w.api({ method: 'DELETE', url: `${issues}/${bySite.number}`, as: 'site' })).statusCode, 204, 'a site admin deletes');
  });

  await t.test('a pull request with a scheduled auto-merge: the workflow ends, nothing merges afterwards', async (t) => {
    await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
      rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
    } });
    const p = await openPull(w, 'feature-doomed', { 'doomed.txt': 'd\n' });
    const head = refOf(w, `refs/pull/${p}/head`)!;
    const mainBefore = refOf(w, 'refs/heads/main');
    t.equal((await merge(w, p, { do: 'merge', merge_when_checks_succeed: true })).statusCode, 201, 'auto-merge scheduled');
    const pullRow = await w.db('pull_requests').where({ index: p }).first('id', 'issue_id');
    t.equal((await w.db('pull_auto_merges').where({ pull_id: pullRow.id })).length, 1);

    t.equal((await w.api({ method: 'DELETE', url: `${issues}/${p}`, as: 'dave' })).statusCode, 403, 'a writer may not delete a pull request');
    t.equal((await w.api({ method: 'DELETE', url: `${issues}/${p}`, as: 'alice' })).statusCode, 204);
    t.equal((await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}`, as: 'alice' })).statusCode, 404, 'the pull request is gone');
    t.equal(await w.db('pull_requests').where({ id: pullRow.id }).first(), undefined);
    t.equal((await w.db('pull_auto_merges').where({ pull_id: pullRow.id })).length, 0, 'its schedule with it');
    t.equal(refOf(w, `refs/pull/${p}/head`), null, 'its head ref is removed');

    const handle = w.pullWorkflows!.client.workflow.getHandle(w.pullWorkflows!.workflowId({ repoId: Number((await w.db('repositories').where({ lower_name: 'widget', owner_id: w.users.alice.id }).first('id')).id), index: p }));
    t.ok(await waitFor(async () => (await handle.describe()).status.name === 'COMPLETED', 10_000, 50), 'the workflow run ended');

    await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state: 'success', context: 'ci' } });
    const mergeAfter = await merge(w, p, { do: 'merge' });
    t.equal(mergeAfter.statusCode, 404, 'a merge request afterwards finds nothing');
    await new Promise((r) => setTimeout(r, 1000));
    t.equal(refOf(w, 'refs/heads/main'), mainBefore, 'the base branch never moved');
    t.equal((await handle.describe()).status.name, 'COMPLETED', 'no new run was started');
  });

  await t.test('a merged pull request can be deleted; its merge stays', async (t) => {
    await w.api({ method: 'DELETE', url: '/api/v1/repos/alice/widget/branch_protections/main', as: 'alice' });
    const p = await openPull(w, 'feature-kept', { 'kept.txt': 'k\n' });
    const merged = await merge(w, p, { do: 'merge' });
    t.equal(merged.statusCode, 200, merged.body);
    const mainAfterMerge = refOf(w, 'refs/heads/main');
    t.equal((await w.api({ method: 'DELETE', url: `${issues}/${p}`, as: 'erin' })).statusCode, 204);
    t.equal((await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}`, as: 'alice' })).statusCode, 404);
    t.equal(refOf(w, 'refs/heads/main'), mainAfterMerge, 'the merge commit stays on the base branch');
  });
});

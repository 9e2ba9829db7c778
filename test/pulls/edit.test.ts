// PATCH /repos/{owner}/{repo}/pulls/{index}: one test per spec rule (1-10). State and base changes
// run through the pull request's workflow (real Temporal).
import t from 'tap';
import { pullWorld } from './fixtures.js';
import { createIssue } from '../../core/issues.js';
import { createLabel } from '../../core/labels.js';
import { createMilestone } from '../../core/milestones.js';
import { loadRepository } from '../../core/permissions.js';

t.test('editing pull requests', async (t) => {
  const w = await pullWorld(t);
  const { api, db, users } = w;
  const url = '/api/v1/repos/alice/widget/pulls';
  await w.pushBranch('feat', { 'feat.txt': 'feature\n' });
  await w.pushBranch('dev', { 'dev.txt': 'dev\n' });
  await w.pushBranch('carol-topic', { 'c.txt': 'c\n' });
  await w.pushBranch('fork-topic', { 'f.txt': 'f\n' }, { repo: 'bob' });
  const create = async (as: string, body: Record<string, unknown>) => {
    const r = await api({ method: 'POST', url, as, body });
    t.equal(r.statusCode, 201, r.body);
    return r.json().number as number;
  };
  const feat = await create('alice', { head: 'feat', base: 'main', title: 'Feature', body: 'v0' });
  const carolPr = await create('carol', { head: 'carol-topic', base: 'main', title: 'Carol' });
  const forkPr = await create('bob', { head: 'bob:fork-topic', base: 'main', title: 'Fork' });
  const patch = (index: number, as: string | null, body: unknown) => api({ method: 'PATCH', url: `${url}/${index}`, as, body });
  const ctx = await loadRepository(db, { ownerName: 'alice', repoName: 'widget', doer: users.alice });

  await t.test('rule 1: only the poster or a writer; else 403 with an empty body', async (t) => {
    const r = await patch(feat, 'carol', { title: 'hijack' });
    t.equal(r.statusCode, 403);
    t.equal(r.body, '', 'empty body');
    t.equal((await patch(carolPr, 'carol', { title: 'Carol edited' })).statusCode, 201, 'the poster (a reader) may edit');
    t.equal((await patch(feat, 'dave', { title: 'Feature' })).statusCode, 201, 'a writer may edit');
    t.equal((await patch(feat, null, { title: 'x' })).statusCode, 401);
  });

  await t.test('rule 2: a non-empty title changes it; an empty one does not', async (t) => {
    t.equal((await patch(feat, 'alice', { title: 'Renamed' })).json().title, 'Renamed');
    const r = await patch(feat, 'alice', { title: '' });
    t.equal(r.statusCode, 201);
    t.equal(r.json().title, 'Renamed');
  });

  await t.test('rule 3: body with content_version; a concurrent change is 400 and changes nothing', async (t) => {
    const r = await patch(feat, 'alice', { body: 'v1', content_version: 0 });
    t.equal(r.statusCode, 201, r.body);
    t.match(r.json(), { body: 'v1', content_version: 1 });
    const stale = await patch(feat, 'dave', { body: 'overwrite', title: 'should not apply', content_version: 0 });
    t.equal(stale.statusCode, 400);
    t.match(stale.json().message, /changed concurrently/);
    const now = (await api({ url: `${url}/${feat}`, as: 'alice' })).json();
    t.match(now, { body: 'v1', title: 'Renamed', content_version: 1 }, 'nothing changed');
    const empty = await patch(feat, 'alice', { body: '' });
    t.match(empty.json(), { body: '', content_version: 2 }, 'an empty string is a value; every body change counts');
  });

  await t.test('rule 4: deadline is the end of the given day in the given zone; cleared by unset or zero time', async (t) => {
    t.equal((await patch(feat, 'alice', { due_date: '2030-05-06T10:00:00+02:00' })).json().due_date, '2030-05-06T21:59:59Z');
    t.equal((await patch(feat, 'alice', { due_date: '2030-05-07T01:00:00-05:00' })).json().due_date, '2030-05-08T04:59:59Z');
    t.equal((await patch(feat, 'alice', { due_date: '2030-05-06' })).json().due_date, '2030-05-06T23:59:59Z');
    t.equal((await patch(feat, 'alice', { unset_due_date: true })).json().due_date, null);
    await patch(feat, 'alice', { due_date: '2030-05-06' });
    t.equal((await patch(feat, 'alice', { due_date: '0001-01-01T00:00:00Z' })).json().due_date, null, 'zero time clears');
    t.equal((await patch(feat, 'alice', { due_date: 'soon' })).statusCode, 422);
  });

  await t.test('rule 5: assignees replaced and cleared; unknown 422; blocked 403', async (t) => {
    const set = await patch(feat, 'alice', { assignees: ['dave', 'alice'] });
    t.same(set.json().assignees.map((u: { login: string }) => u.login).sort(), ['alice', 'dave']);
    t.same((await patch(feat, 'alice', { assignees: ['dave'] })).json().assignees.map((u: { login: string }) => u.login), ['dave']);
    const cleared = await patch(feat, 'alice', { assignees: [] });
    t.same(cleared.json().assignees, []);
    t.equal(cleared.json().assignee, null);
    const ghost = await patch(feat, 'alice', { assignees: ['ghost'] });
    t.equal(ghost.statusCode, 422);
    t.equal(ghost.json().message, 'Assignee does not exist: [name: ghost]');
    await db('user_blocks').insert({ blocker_id: users.dave.id, blockee_id: users.alice.id, note: '', created_unix: 1 });
    t.equal((await patch(feat, 'alice', { assignees: ['dave'] })).statusCode, 403, 'dave blocked alice');
    await db('user_blocks').where({ blocker_id: users.dave.id }).delete();
    t.same((await patch(carolPr, 'carol', { assignees: ['alice'] })).json().assignees, [], 'a non-writer poster cannot assign');
  });

  await t.test('rule 6: milestone changed by writers; a missing one is 404', async (t) => {
    const m = await createMilestone(db, ctx.repo.id, { title: 'v2' });
    t.equal((await patch(feat, 'alice', { milestone: m.id })).json().milestone.id, m.id);
    t.equal((await patch(feat, 'alice', { milestone: 99999 })).statusCode, 404);
    t.equal((await patch(feat, 'alice', { milestone: 0 })).json().milestone.id, m.id, 'zero leaves it');
  });

  await t.test('rule 7: labels replaced', async (t) => {
    const a = await createLabel(db, { repoId: ctx.repo.id }, { name: 'a', color: '111111' });
    const b = await createLabel(db, { repoId: ctx.repo.id }, { name: 'b', color: '222222' });
    t.same((await patch(feat, 'alice', { labels: [a.id, b.id] })).json().labels.map((l: { name: string }) => l.name), ['a', 'b']);
    t.same((await patch(feat, 'alice', { labels: [b.id] })).json().labels.map((l: { name: string }) => l.name), ['b']);
    t.same((await patch(feat, 'alice', { labels: [] })).json().labels, []);
  });

  await t.test('rule 10: allow_maintainer_edit by the poster or a writer of the head repository', async (t) => {
    t.equal((await patch(forkPr, 'dave', { allow_maintainer_edit: true })).statusCode, 403, 'dave cannot write to bob/widget');
    const r = await patch(forkPr, 'bob', { allow_maintainer_edit: true });
    t.equal(r.statusCode, 201);
    t.equal(r.json().allow_maintainer_edit, true);
  });

  await t.test('rule 8: state through the workflow; unknown, merged and open dependencies are 412', async (t) => {
    t.equal((await patch(feat, 'alice', { state: 'weird' })).statusCode, 412);
    const blocker = await createIssue(db, ctx, users.alice, { title: 'blocker' });
    const featIssue = await db('issues').where({ repo_id: ctx.repo.id, index: feat }).first();
    await db('issue_dependencies').insert({ issue_id: featIssue.id, dependency_id: blocker.id, created_unix: 1 });
    const blocked = await patch(feat, 'alice', { state: 'closed' });
    t.equal(blocked.statusCode, 412, blocked.body);
    await db('issue_dependencies').where({ issue_id: featIssue.id }).delete();
    // The same request as the refused one, judged afresh now that the dependency is gone.
    const closed = await patch(feat, 'alice', { state: 'closed' });
    t.equal(closed.statusCode, 201, closed.body);
    t.equal(closed.json().state, 'closed');
    t.ok(closed.json().closed_at);
    const reopened = await patch(feat, 'alice', { state: 'open' });
    t.equal(reopened.json().state, 'open');
    const merged = await create('alice', { head: 'dev', base: 'main', title: 'Dev' });
    await db('pull_requests').where({ base_repo_id: ctx.repo.id, index: merged }).update({ has_merged: true });
    const r = await patch(merged, 'alice', { state: 'closed' });
    t.equal(r.statusCode, 412);
    t.equal(r.json().message, 'cannot change state of this pull request, it was already merged');
  });

  await t.test('rule 9: base change through the workflow: 404, 409 duplicate, 422 closed, 409 merged', async (t) => {
    t.equal((await patch(feat, 'alice', { base: 'nope' })).statusCode, 404);
    t.equal((await patch(feat, 'alice', { base: 'nope' })).json().message, "new base 'nope' not exist");
    const toDev = await create('alice', { head: 'feat', base: 'dev', title: 'feat into dev' });
    const dup = await patch(toDev, 'alice', { base: 'main' });
    t.equal(dup.statusCode, 409, dup.body);
    await w.pushBranch('other', { 'o.txt': 'o\n' });
    const moved = await patch(toDev, 'alice', { base: 'other' });
    t.equal(moved.statusCode, 201, moved.body);
    t.match(moved.json(), { base: { ref: 'other', label: 'other' }, mergeable: false });
    t.equal((await patch(toDev, 'alice', { state: 'closed' })).statusCode, 201);
    const closedBase = await api({ method: 'PATCH', url: `${url}/${toDev}`, as: 'alice', body: { base: 'main' }, headers: { 'idempotency-key': 'base-when-closed' } });
    t.equal(closedBase.statusCode, 422, closedBase.body);
    const devPr = await db('pull_requests').where({ base_repo_id: ctx.repo.id, has_merged: true }).first();
    t.equal((await patch(devPr.index, 'alice', { base: 'other' })).statusCode, 409, 'merged');
  });
});

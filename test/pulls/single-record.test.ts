// The single pull request and the list entry of the same pull request must be the same record (the
// single one adds its statistics), on MariaDB and on SQLite, and the route's 404s keep their order;
// with pull requests disabled every pull request route, merging and the merge queue included, is 404.
import t from 'tap';
import { statementCount } from '../../db/connection.js';
import { pullWorld } from './fixtures.js';

for (const dbType of ['mysql', 'sqlite3'] as const) {
  t.test(`the single record shows what the list shows (${dbType})`, async (t) => {
    const w = await pullWorld(t, { dbType, temporal: false });
    const repo = '/api/v1/repos/alice/widget';
    await w.pushBranch('feature', { 'feature.txt': 'f\n' });
    const created = await w.api({ method: 'POST', url: `${repo}/pulls`, as: 'alice', body: { head: 'feature', base: 'main', title: 'Feature' } });
    t.equal(created.statusCode, 201, created.body);
    const labelIds: number[] = [];
    for (const name of ['bug', 'docs', 'ui']) {
      const label = await w.api({ method: 'POST', url: `${repo}/labels`, as: 'alice', body: { name, color: '#00aabb' } });
      t.equal(label.statusCode, 201, label.body);
      labelIds.push(label.json().id);
    }
    // Added out of order: both views list them by id.
    const labelled = await w.api({ method: 'POST', url: `${repo}/issues/1/labels`, as: 'alice', body: { labels: [labelIds[2], labelIds[0]] } });
    t.equal(labelled.statusCode, 200, labelled.body);
    const assigned = await w.api({ method: 'PATCH', url: `${repo}/pulls/1`, as: 'alice', body: { assignees: ['dave', 'alice'] } });
    t.equal(assigned.statusCode, 201, assigned.body);

    const single = await w.api({ url: `${repo}/pulls/1`, as: 'alice' });
    t.equal(single.statusCode, 200, single.body);
    const listed = (await w.api({ url: `${repo}/pulls?state=all`, as: 'alice' })).json()[0];
    const record = single.json();
    t.same(record.labels.map((l: { name: string }) => l.name), ['bug', 'ui']);
    t.same(record.labels, listed.labels);
    t.same(record.assignees.map((u: { login: string }) => u.login), listed.assignees.map((u: { login: string }) => u.login));
    t.equal(record.assignees.length, 2);
    t.same(record.assignee, listed.assignee);
    t.notOk('merge_queue' in record, 'not queued: no merge_queue field');
    const { additions, deletions, changed_files, ...rest } = record;
    t.same({ additions, deletions, changed_files }, { additions: 1, deletions: 0, changed_files: 1 });
    t.same(rest, listed, 'apart from its statistics, the single record is the list entry');

    // Queued: the entry read with the rows is the one the list shows.
    const [pull] = await w.db('pull_requests').where({ index: 1 }).select('id', 'base_repo_id', 'head_commit_id');
    const now = Math.floor(Date.now() / 1000);
    await w.db('merge_queue_entries').insert({
      repo_id: pull.base_repo_id, base_branch: 'main', pull_id: pull.id, pull_index: 1, doer_id: w.users.alice.id, head_sha: pull.head_commit_id,
      position: 3, state: 'waiting', queued_unix: now, updated_unix: now,
    });
    const queued = (await w.api({ url: `${repo}/pulls/1`, as: 'alice' })).json();
    t.match(queued.merge_queue, { branch: 'main', position: 3, state: 'waiting' });
    t.same(queued.merge_queue, (await w.api({ url: `${repo}/pulls?state=all`, as: 'alice' })).json()[0].merge_queue);

    // Another poster, a requested reviewer and a merger: the accounts read with the row (the poster's
    // and merger's join the owner's table twice more) are each their own, as in the list.
    await w.pushBranch('other', { 'other.txt': 'o\n' });
    const byDave = await w.api({ method: 'POST', url: `${repo}/pulls`, as: 'dave', body: { head: 'other', base: 'main', title: 'Other' } });
    t.equal(byDave.statusCode, 201, byDave.body);
    const requested = await w.api({ method: 'POST', url: `${repo}/pulls/2/requested_reviewers`, as: 'alice', body: { reviewers: ['carol'] } });
    t.equal(requested.statusCode, 201, requested.body);
    await w.db('pull_requests').where({ index: 2 }).update({ has_merged: true, merger_id: w.users.bob.id, merged_unix: now, merge_commit_sha: pull.head_commit_id });
    const other = (await w.api({ url: `${repo}/pulls/2`, as: 'alice' })).json();
    t.equal(other.user.login, 'dave');
    t.same(other.requested_reviewers.map((u: { login: string }) => u.login), ['carol']);
    t.equal(other.merged_by.login, 'bob');
    t.equal(other.base.repo.owner.login, 'alice', 'the owner stays the owner');
    // The head is left out: a list may share a branch listing up to a second old, and 'other' is newer.
    const { additions: _a, deletions: _d, changed_files: _c, head: _h, ...otherRest } = other;
    const { head: _lh, ...otherListed } = (await w.api({ url: `${repo}/pulls?state=all`, as: 'alice' })).json().find((p: { number: number }) => p.number === 2);
    t.same(otherRest, otherListed);

    // A record with neither assignees nor reviews is one statement: the row with everything beside it.
    await w.pushBranch('plain', { 'plain.txt': 'p\n' });
    t.equal((await w.api({ method: 'POST', url: `${repo}/pulls`, as: 'alice', body: { head: 'plain', base: 'main', title: 'Plain' } })).statusCode, 201);
    t.equal((await w.api({ url: `${repo}/pulls/3`, as: 'alice' })).statusCode, 200, 'read once, so the token lookup is kept');
    const before = statementCount();
    const plain = await w.api({ url: `${repo}/pulls/3`, as: 'alice' });
    t.equal(statementCount() - before, 1, 'one statement');
    t.equal(plain.json().user.login, 'alice');

    // 404s in the route's order: the repository's own, then the pull request's.
    const missing = await w.api({ url: `${repo}/pulls/99`, as: 'alice' });
    t.equal(missing.statusCode, 404);
    t.match(missing.json().message, /pull request does not exist/);
    t.equal((await w.api({ url: '/api/v1/repos/alice/nothing/pulls/1', as: 'alice' })).statusCode, 404);
    t.equal((await w.api({ url: '/api/v1/repos/nobody/widget/pulls/1', as: 'alice' })).statusCode, 404);
    const off = await w.api({ method: 'PATCH', url: repo, as: 'alice', body: { has_pull_requests: false } });
    t.equal(off.statusCode, 200, off.body);
    const disabled = await w.api({ url: `${repo}/pulls/1`, as: 'alice' });
    t.equal(disabled.statusCode, 404);
    t.match(disabled.json().message, /disabled/);
    // Every pull request route answers so, the merge routes and the merge queue included (Gitea's mustAllowPulls).
    const routes: Array<['GET' | 'POST' | 'DELETE', string]> = [
      ['GET', 'pulls/1/merge'], ['POST', 'pulls/1/merge'], ['DELETE', 'pulls/1/merge'], ['POST', 'pulls/1/update'], ['GET', 'merge_queue/main'],
      ['GET', 'pulls/1/files'], ['GET', 'pulls/1/commits'], ['GET', 'pulls/1.diff'], ['GET', 'pulls/1/reviews'], ['GET', 'pulls'],
    ];
    for (const [method, path] of routes) {
      const r = await w.api({ method, url: `${repo}/${path}`, as: 'alice', body: method === 'GET' ? undefined : { Do: 'merge', merge_when_checks_succeed: true } });
      t.equal(r.statusCode, 404, `${method} ${path} with pull requests disabled`);
      t.match(r.json().message, /disabled/, `${method} ${path} says why`);
    }
  });
}

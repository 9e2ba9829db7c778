// Plain issues: the shared index under concurrency, the Issue JSON, list filters, edits (closing,
// content versions), comments and dependencies, with their permission and error statuses.
import t from 'tap';
import { allocateIssueIndex } from '../../core/issue-index.js';
import { openDependencies } from '../../core/dependencies.js';
import { addComment } from '../../core/comments.js';
import { reposStore } from '../../db/repos.js';
import { startWorld } from './world.js';

t.test('issues over HTTP', async (t) => {
  const w = await startWorld(t);
  const issues = '/api/v1/repos/alice/demo/issues';

  // 40 creations at once: indexes 1..40, no gaps, no duplicates.
  const created = await Promise.all(Array.from({ length: 40 }, (_, i) => w.api({ method: 'POST', url: issues, as: i % 2 ? 'rita' : 'walt', body: { title: `issue ${i}` } })));
  t.same(created.map((r) => r.statusCode), Array(40).fill(201), created.find((r) => r.statusCode !== 201)?.body ?? '');
  const numberBy = (login: string) => created.map((r) => r.json()).find((i) => i.user.login === login)!.number as number;
  t.same(created.map((r) => r.json().number).sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));

  // Direct allocation shares the sequence (pull requests call it).
  const repo = (await reposStore(w.db).byOwnerAndName((await w.db('users').where({ lower_name: 'alice' }).first()).id, 'demo'))!;
  t.equal(await w.db.transaction((trx) => allocateIssueIndex(trx, repo.id)), 41);
  await t.rejects(w.db.transaction(async (trx) => { await allocateIssueIndex(trx, repo.id); throw new Error('rolled back'); }));
  t.equal(await w.db.transaction((trx) => allocateIssueIndex(trx, repo.id)), 42, 'a rolled back allocation leaves no gap');

  const label = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/labels', as: 'walt', body: { name: 'bug', color: 'ff0000' } })).json();
  const milestone = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/milestones', as: 'walt', body: { title: 'v1' } })).json();
  const full = await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: 'full', body: 'text', labels: [label.id], milestone: milestone.id, assignees: ['walt'], due_date: '2030-05-06' } });
  t.equal(full.statusCode, 201, full.body);
  const issue = full.json();
  t.equal(issue.number, 43);
  t.match(issue, {
    title: 'full', body: 'text', state: 'open', comments: 0, closed_at: null, pull_request: null, is_locked: false,
    url: `${w.config.APP_URL}api/v1/repos/alice/demo/issues/43`, html_url: `${w.config.APP_URL}alice/demo/issues/43`,
    repository: { name: 'demo', owner: 'alice', full_name: 'alice/demo' }, due_date: '2030-05-06T23:59:59Z', content_version: 0,
  });
  t.equal(issue.user.login, 'walt');
  t.same(issue.labels.map((l: { name: string; color: string }) => [l.name, l.color]), [['bug', 'ff0000']]);
  t.equal(issue.milestone.title, 'v1');
  t.equal(issue.assignee.login, 'walt');
  t.equal(issue.assignees.length, 1);
  t.equal(created[0]!.json().assignees, null, 'no assignees is null as in Gitea');
  t.same(created[0]!.json().labels, []);

  // A reader's labels are ignored, as Gitea ignores them.
  const readers = await w.api({ method: 'POST', url: issues, as: 'rita', body: { title: 'r', labels: [label.id] } });
  t.same(readers.json().labels, []);
  // Hostile and wrong input.
  t.equal((await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: '' } })).statusCode, 422);
  t.equal((await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: 'x'.repeat(256) } })).statusCode, 422);
  t.equal((await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: 'x', labels: ['abc'] } })).statusCode, 422, 'label ids are integers');
  t.equal((await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: 'x', labels: [999999] } })).statusCode, 422, 'unknown label');
  t.equal((await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: 'x', assignees: ['sam'] } })).statusCode, 422, 'unassignable');
  t.equal((await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: 'x', milestone: 999999 } })).statusCode, 404);
  t.equal((await w.api({ method: 'POST', url: issues, body: { title: 'x' } })).statusCode, 401);
  t.equal((await w.api({ method: 'POST', url: '/api/v1/repos/alice/secret/issues', as: 'sam', body: { title: 'x' } })).statusCode, 404);
  t.equal((await w.api({ url: `${issues}/abc` })).statusCode, 404, 'an index ParseInt refuses is 0: no such issue (as Gitea)');
  t.equal((await w.api({ url: `${issues}/9999` })).statusCode, 404);

  // List and filters.
  const page = await w.api({ url: `${issues}?limit=10&page=2` });
  t.equal(page.headers['x-total-count'], '42');
  t.equal(page.json().length, 10);
  t.match(String(page.headers.link), /rel="prev"/);
  t.same((await w.api({ url: `${issues}?labels=bug` })).json().map((i: { number: number }) => i.number), [43]);
  t.same((await w.api({ url: `${issues}?milestones=v1` })).json().map((i: { number: number }) => i.number), [43]);
  t.same((await w.api({ url: `${issues}?q=full` })).json().map((i: { number: number }) => i.number), [43]);
  t.equal((await w.api({ url: `${issues}?created_by=rita&limit=50` })).json().length, 21);
  t.equal((await w.api({ url: `${issues}?type=pulls` })).json().length, 0);
  t.equal((await w.api({ url: `${issues}?state=nope` })).statusCode, 200, 'an unknown state is the default, as Gitea reads it');
  t.equal((await w.api({ url: `${issues}/43` })).json().title, 'full');

  // Edit: poster or writer; 201; closing sets closed_at; reopening clears it.
  const one = `${issues}/${numberBy('rita')}`;
  t.equal((await w.api({ method: 'PATCH', url: one, as: 'sam', body: { title: 'nope' } })).statusCode, 403, 'a stranger may read a public repository, not edit its issues');
  const closed = await w.api({ method: 'PATCH', url: one, as: 'rita', body: { state: 'closed', title: 'renamed' } });
  t.equal(closed.statusCode, 201, closed.body);
  t.match(closed.json(), { state: 'closed', title: 'renamed' });
  t.type(closed.json().closed_at, 'string');
  t.equal((await w.api({ method: 'PATCH', url: one, as: 'walt', body: { state: 'open' } })).json().closed_at, null);
  t.equal((await w.api({ method: 'PATCH', url: one, as: 'walt', body: { state: 'shut' } })).statusCode, 412, 'Gitea\'s unknown state');
  t.equal((await w.api({ method: 'PATCH', url: `${issues}/${numberBy('walt')}`, as: 'rita', body: { title: 'not mine' } })).statusCode, 403, 'reader, not the poster');
  const v1 = await w.api({ method: 'PATCH', url: one, as: 'rita', body: { body: 'first', content_version: 0 } });
  t.equal(v1.json().content_version, 1);
  t.equal((await w.api({ method: 'PATCH', url: one, as: 'walt', body: { body: 'stale edit', content_version: 0 } })).statusCode, 400, 'body changed meanwhile');
  const unset = await w.api({ method: 'PATCH', url: `${issues}/43`, as: 'walt', body: { unset_due_date: true, milestone: 0, assignees: [] } });
  t.match(unset.json(), { due_date: null, milestone: null, assignees: null });

  // Comments, on 43 (closed and reopened above: those events are timeline rows, not comments).
  const comments = `${issues}/43/comments`;
  const c = await w.api({ method: 'POST', url: comments, as: 'rita', body: { body: 'hello' } });
  t.equal(c.statusCode, 201, c.body);
  t.same(Object.keys(c.json()), ['id', 'html_url', 'pull_request_url', 'issue_url', 'user', 'original_author', 'original_author_id', 'body', 'assets', 'created_at', 'updated_at']);
  t.match(c.json(), { body: 'hello', issue_url: `${w.config.APP_URL}alice/demo/issues/43`, pull_request_url: '' });
  t.equal((await w.api({ method: 'POST', url: comments, as: 'rita', body: { body: '  ' } })).statusCode, 422);
  t.equal((await w.api({ method: 'POST', url: comments, body: { body: 'x' } })).statusCode, 401);
  const issue43 = (await w.db('issues').where({ repo_id: repo.id, index: 43 }).first()).id;
  await w.db.transaction((trx) => addComment(trx, { issueId: Number(issue43), posterId: null, type: 'delete_branch', content: 'deleted branch x' }));
  const listed = await w.api({ url: comments });
  t.equal(listed.headers['x-total-count'], '1');
  t.same(listed.json().map((x: { body: string }) => x.body), ['hello'], 'events (close, reopen, a deleted branch) are listed by the timeline only, as in Gitea');
  t.equal((await w.api({ url: `${issues}/43` })).json().comments, 1, 'only real comments are counted');

  // Dependencies: 4 is blocked by 5.
  const deps = `${issues}/4/dependencies`;
  const added = await w.api({ method: 'POST', url: deps, as: 'walt', body: { owner: 'alice', repo: 'demo', index: 5 } });
  t.equal(added.statusCode, 201, added.body);
  t.equal(added.json().number, 4, 'answers the path issue');
  t.equal((await w.api({ method: 'POST', url: deps, as: 'walt', body: { index: 5 } })).statusCode, 409, 'duplicate');
  t.equal((await w.api({ method: 'POST', url: `${issues}/5/dependencies`, as: 'walt', body: { index: 4 } })).statusCode, 422, 'circular');
  t.equal((await w.api({ method: 'POST', url: deps, as: 'walt', body: { index: 4 } })).statusCode, 422, 'self');
  t.equal((await w.api({ method: 'POST', url: deps, as: 'walt', body: { index: 9999 } })).statusCode, 404);
  t.equal((await w.api({ method: 'POST', url: deps, as: 'rita', body: { index: 6 } })).statusCode, 403, 'reader');
  t.equal((await w.api({ method: 'POST', url: deps, as: 'sam', body: { owner: 'alice', repo: 'secret', index: 1 } })).statusCode, 403);
  t.same((await w.api({ url: deps })).json().map((i: { number: number }) => i.number), [5]);
  const id4 = Number((await w.db('issues').where({ repo_id: repo.id, index: 4 }).first()).id);
  t.equal((await openDependencies(w.db, id4)).length, 1);
  t.equal((await w.api({ method: 'PATCH', url: `${issues}/4`, as: 'walt', body: { state: 'closed' } })).statusCode, 412, 'open dependency blocks closing');
  await w.api({ method: 'PATCH', url: `${issues}/5`, as: 'walt', body: { state: 'closed' } });
  t.equal((await openDependencies(w.db, id4)).length, 0);
  const removed = await w.api({ method: 'DELETE', url: deps, as: 'walt', body: { index: 5 } });
  t.equal(removed.statusCode, 201, 'DELETE answers 201 as Gitea');
  t.equal((await w.api({ method: 'DELETE', url: deps, as: 'walt', body: { index: 5 } })).statusCode, 404);

  t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/demo', as: 'alice', body: { archived: true } })).statusCode, 200);
  t.equal((await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: 'late' } })).statusCode, 423);
  t.equal((await w.api({ method: 'POST', url: comments, as: 'walt', body: { body: 'late' } })).statusCode, 423);
  t.equal((await w.api({ method: 'PATCH', url: one, as: 'walt', body: { title: 'late' } })).statusCode, 423);
  t.equal((await w.api({ method: 'POST', url: deps, as: 'walt', body: { index: 6 } })).statusCode, 423);
});

t.test('the index and the list on SQLite', async (t) => {
  const w = await startWorld(t, { dbType: 'sqlite3' });
  const issues = '/api/v1/repos/alice/demo/issues';
  const created = await Promise.all(Array.from({ length: 20 }, (_, i) => w.api({ method: 'POST', url: issues, as: 'walt', body: { title: `100% done_${i}` } })));
  t.same(created.map((r) => r.statusCode), Array(20).fill(201));
  t.same(created.map((r) => r.json().number).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
  t.equal((await w.api({ url: `${issues}?q=${encodeURIComponent('done_1')}&limit=50` })).json().length, 11, 'underscore taken literally');
  t.equal((await w.api({ url: `${issues}?q=${encodeURIComponent('%')}&limit=50` })).json().length, 20);
  t.equal((await w.api({ url: `${issues}?q=${encodeURIComponent('x%')}` })).json().length, 0, 'percent taken literally');
  const label = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/labels', as: 'walt', body: { name: 'bug', color: 'ff0000' } })).json();
  const edited = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/demo/labels/${label.id}`, as: 'walt', body: { exclusive: true } });
  t.equal(edited.json().exclusive, true, 'booleans come back as booleans');
  const status = await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/statuses/${w.headSha}`, as: 'walt', body: { state: 'success' } });
  t.equal(status.statusCode, 201);
  t.equal((await w.api({ url: '/api/v1/repos/alice/demo/commits/main/status' })).json().state, 'success');
});

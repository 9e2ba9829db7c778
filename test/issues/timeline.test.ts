// The timeline (GET .../issues/{index}/timeline): every comment row of an issue or pull request in
// Gitea's TimelineComment shape and type names, oldest first, paged, filtered by since/before, and
// hidden exactly as the comments list is.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf } from '../merge/world.js';
import { startWorld } from './world.js';

interface Entry {
  id: number;
  type: string;
  user: { login: string; email: string };
  body: string;
  html_url: string;
  issue_url: string;
  pull_request_url: string;
  old_ref: string;
  new_ref: string;
  ref_commit_sha: string;
  created_at: string;
  updated_at: string;
}

// Gitea's TimelineComment, field for field, in its order.
const GITEA_FIELDS = [
  'id', 'type', 'html_url', 'pull_request_url', 'issue_url', 'user', 'body', 'created_at', 'updated_at',
  'old_project_id', 'project_id', 'old_milestone', 'milestone', 'tracked_time', 'old_title', 'new_title', 'old_ref', 'new_ref',
  'ref_issue', 'ref_comment', 'ref_action', 'ref_commit_sha', 'review_id', 'label', 'assignee', 'assignee_team',
  'removed_assignee', 'resolve_doer', 'dependent_issue',
];

const summary = (entries: Entry[]) => entries.map((e) => [e.type, e.user.login, e.body]);

t.test('an issue: comments, close and reopen, paging, since/before, who may read it', async (t) => {
  const w = await startWorld(t);
  const issues = '/api/v1/repos/alice/demo/issues';
  const created = await w.api({ method: 'POST', url: issues, as: 'walt', body: { title: 'timeline' } });
  t.equal(created.statusCode, 201, created.body);
  const n = created.json().number as number;
  const timeline = `${issues}/${n}/timeline`;

  t.same((await w.api({ url: timeline })).json(), [], 'nothing happened yet');
  t.equal((await w.api({ method: 'POST', url: `${issues}/${n}/comments`, as: 'rita', body: { body: 'first' } })).statusCode, 201);
  t.equal((await w.api({ method: 'PATCH', url: `${issues}/${n}`, as: 'walt', body: { state: 'closed' } })).statusCode, 201);
  t.equal((await w.api({ method: 'PATCH', url: `${issues}/${n}`, as: 'walt', body: { state: 'closed' } })).statusCode, 201, 'closing again changes nothing');
  t.equal((await w.api({ method: 'PATCH', url: `${issues}/${n}`, as: 'walt', body: { state: 'open' } })).statusCode, 201);
  for (const [as, body] of [['rita', 'second'], ['walt', 'third']]) {
    t.equal((await w.api({ method: 'POST', url: `${issues}/${n}/comments`, as, body: { body } })).statusCode, 201);
  }

  const all = await w.api({ url: timeline, as: 'walt' });
  t.equal(all.statusCode, 200, all.body);
  const entries = all.json() as Entry[];
  t.same(summary(entries), [
    ['comment', 'rita', 'first'], ['close', 'walt', ''], ['reopen', 'walt', ''], ['comment', 'rita', 'second'], ['comment', 'walt', 'third'],
  ], 'oldest first, with Gitea\'s type names and the poster; one close for two requests');
  t.equal(all.headers['x-total-count'], '5');
  t.notOk(all.headers.link, 'one page: no Link');
  t.same(Object.keys(entries[0]!), GITEA_FIELDS);
  const issueHtml = `${w.config.APP_URL}alice/demo/issues/${n}`;
  t.match(entries[1], {
    html_url: `${issueHtml}#issuecomment-${entries[1]!.id}`, issue_url: issueHtml, pull_request_url: '',
    old_ref: '', new_ref: '', ref_action: 'none', ref_commit_sha: '', review_id: 0, milestone: null, tracked_time: null, assignee_team: null,
  });
  t.equal(entries[0]!.user.email, 'rita@noreply.127.0.0.1', 'the poster as Gitea converts it for nobody in particular: no real e-mail');
  t.equal((await w.api({ url: `${issues}/${n}` })).json().comments, 3, 'events are not counted as comments');

  // Paging: Gitea's page/limit, X-Total-Count over all pages, and Link.
  const page2 = await w.api({ url: `${timeline}?limit=2&page=2` });
  t.same(summary(page2.json()), [['reopen', 'walt', ''], ['comment', 'rita', 'second']]);
  t.equal(page2.headers['x-total-count'], '5');
  const link = (page: number) => `<${w.config.APP_URL}api/v1/repos/alice/demo/issues/${n}/timeline?limit=2&page=${page}>`;
  t.equal(page2.headers.link, `${link(3)}; rel="next",${link(3)}; rel="last",${link(1)}; rel="first",${link(1)}; rel="prev"`);
  const page3 = await w.api({ url: `${timeline}?limit=2&page=3` });
  t.same(summary(page3.json()), [['comment', 'walt', 'third']]);
  t.equal(page3.headers.link, `${link(1)}; rel="first",${link(2)}; rel="prev"`);
  t.same((await w.api({ url: `${timeline}?limit=2&page=9` })).json(), [], 'past the end');
  t.equal((await w.api({ url: `${timeline}?limit=0` })).json().length, 5, 'limit 0 means the default page size');

  // since/before bound when a row was last updated (Gitea's rule); the order stays by creation.
  // The rows get known times an hour apart; the first was edited after the others.
  const start = Date.UTC(2030, 0, 1) / 1000;
  for (const [i, e] of entries.entries()) await w.db('comments').where({ id: e.id }).update({ created_unix: start + i * 3600, updated_unix: start + i * 3600 });
  await w.db('comments').where({ id: entries[0]!.id }).update({ updated_unix: start + 5 * 3600 });
  const since = await w.api({ url: `${timeline}?since=2030-01-01T02:00:00Z` });
  t.same(summary(since.json()), [['comment', 'rita', 'first'], ['reopen', 'walt', ''], ['comment', 'rita', 'second'], ['comment', 'walt', 'third']]);
  t.equal(since.headers['x-total-count'], '4', 'the count follows the filter');
  t.match(since.json()[0], { created_at: '2030-01-01T00:00:00Z', updated_at: '2030-01-01T05:00:00Z' });
  const before = await w.api({ url: `${timeline}?before=2030-01-01T01:00:00Z` });
  t.same(summary(before.json()), [['close', 'walt', '']], 'both bounds are inclusive; the edited first comment is newer');
  const both = await w.api({ url: `${timeline}?since=${encodeURIComponent('2030-01-01T03:00:00+02:00')}&before=2030-01-01T03:00:00Z&limit=1&page=2` });
  t.same(summary(both.json()), [['reopen', 'walt', '']], 'an offset is honoured, and paging applies after the filter');
  t.equal(both.headers['x-total-count'], '3');
  const bad = await w.api({ url: `${timeline}?since=yesterday` });
  t.equal(bad.statusCode, 422);
  t.same(Object.keys(bad.json()).sort(), ['message', 'url']);

  // Who may read it: as the comments list.
  const secret = await w.api({ method: 'POST', url: '/api/v1/repos/alice/secret/issues', as: 'walt', body: { title: 'hidden' } });
  const secretTimeline = `/api/v1/repos/alice/secret/issues/${secret.json().number as number}/timeline`;
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/secret/issues/${secret.json().number as number}/comments`, as: 'walt', body: { body: 'psst' } })).statusCode, 201);
  for (const as of ['sam', null]) {
    const hidden = await w.api({ url: secretTimeline, as });
    t.equal(hidden.statusCode, 404, `a private repository is not found by ${as ?? 'anonymous'}`);
    t.same(hidden.json(), { message: 'not found', url: `${w.config.APP_URL}api/swagger` });
  }
  t.same(summary((await w.api({ url: secretTimeline, as: 'rita' })).json()), [['comment', 'walt', 'psst']], 'a reader sees it');
  const missing = await w.api({ url: `${issues}/9999/timeline` });
  t.equal(missing.statusCode, 404);
  t.same(Object.keys(missing.json()).sort(), ['message', 'url']);
  t.equal((await w.api({ url: `${issues}/abc/timeline` })).statusCode, 404);

  // Tokens need the issue scope.
  const token = async (scopes: string[]) => {
    const r = await w.api({ method: 'POST', url: '/api/v1/users/rita/tokens', as: 'rita', body: { name: scopes.join('+'), scopes } });
    if (r.statusCode !== 201) throw new Error(`token: ${r.statusCode} ${r.body}`);
    return { authorization: `token ${r.json().sha1 as string}` };
  };
  t.equal((await w.api({ url: secretTimeline, headers: await token(['read:issue']) })).statusCode, 200);
  const wrongScope = await w.api({ url: secretTimeline, headers: await token(['read:repository']) });
  t.equal(wrongScope.statusCode, 403);
  t.match(wrongScope.json().message, /read:issue/);
});

t.test('a pull request: auto-merge scheduled and cancelled, merge, branch deletion, base change', async (t) => {
  const w = await pullWorld(t);
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const timelineOf = async (index: number) => {
    const r = await w.api({ url: `/api/v1/repos/alice/widget/issues/${index}/timeline` });
    t.equal(r.statusCode, 200, r.statusCode === 200 ? `timeline of #${index}` : r.body);
    return r.json() as Entry[];
  };

  const p = await openPull(w, 'timeline-auto', { 'timeline.txt': 'a\n' });
  const scheduled = await merge(w, p, { do: 'merge', merge_when_checks_succeed: true }, 'dave');
  t.equal(scheduled.statusCode, 201, scheduled.body);
  const cancelled = await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'alice' });
  t.equal(cancelled.statusCode, 204, cancelled.body);
  const afterCancel = await timelineOf(p);
  t.same(summary(afterCancel), [['pull_scheduled_merge', 'dave', ''], ['pull_cancel_scheduled_merge', 'alice', '']],
    'scheduled by the writer, cancelled by the owner; Gitea\'s events carry no body');
  const pullHtml = `${w.config.APP_URL}alice/widget/pulls/${p}`;
  t.match(afterCancel[0], { html_url: `${pullHtml}#issuecomment-${afterCancel[0]!.id}`, pull_request_url: pullHtml, issue_url: '' });

  const head = refOf(w, `refs/pull/${p}/head`)!;
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state: 'success', context: 'ci' } })).statusCode, 201);
  const merged = await merge(w, p, { do: 'merge', delete_branch_after_merge: true });
  t.equal(merged.statusCode, 200, merged.body);
  const afterMerge = await timelineOf(p);
  t.same(summary(afterMerge).slice(2), [['merge_pull', 'alice', ''], ['delete_branch', 'alice', '']]);
  t.match(afterMerge[2], { ref_commit_sha: '', old_ref: '' }, 'Gitea records no commit on the merge event');
  t.match(afterMerge[3], { old_ref: 'timeline-auto', new_ref: '' }, 'the deleted branch is old_ref');

  // A base change, then close and reopen through the pull request's workflow.
  await w.pushBranch('release', { 'release.txt': 'r\n' });
  const q = await openPull(w, 'timeline-base', { 'base.txt': 'b\n' });
  for (const body of [{ base: 'release' }, { state: 'closed' }, { state: 'open' }]) {
    const r = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${q}`, as: 'alice', body });
    t.equal(r.statusCode, 201, r.statusCode === 201 ? `edited: ${JSON.stringify(body)}` : r.body);
  }
  const moved = await timelineOf(q);
  t.same(summary(moved), [['change_target_branch', 'alice', ''], ['close', 'alice', ''], ['reopen', 'alice', '']]);
  t.match(moved[0], { old_ref: 'main', new_ref: 'release' });
});

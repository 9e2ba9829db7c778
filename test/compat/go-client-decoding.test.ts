// What Go clients (the Gitea SDK, tea) send, on the real routes, answered as Gitea 1.26.4 answers it
// (each case was sent to both): every option field with null for unset and "" for unset strings,
// JSON content types on empty bodies, empty query values, and path ids that are any ParseInt integer.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { basic } from '../repos/fixtures.js';

t.test('Go clients\' requests get Gitea\'s answers', async (t) => {
  const w = await pullWorld(t);
  const repo = '/api/v1/repos/alice/widget';
  const auth = await w.tokenHeader('alice');
  const raw = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: string, headers: Record<string, string> = auth) =>
    w.app.inject({ method, url, headers: { ...headers, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(payload !== undefined ? { payload } : {}) });
  await w.pushBranch('feature', { 'feature.txt': 'a feature\n' });
  await w.pushBranch('second', { 'second.txt': 'another\n' });

  t.test('POST /user/repos with the SDK\'s empty strings and nulls', async (t) => {
    const zeroes = await w.api({ method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: {
      name: 'sdk-repo', description: '', private: false, issue_labels: '', auto_init: true, template: false, gitignores: '', license: '', readme: '',
      default_branch: '', trust_model: '', object_format_name: '',
    } });
    t.equal(zeroes.statusCode, 201, zeroes.body);
    t.match(zeroes.json(), { name: 'sdk-repo', default_branch: 'main', object_format_name: 'sha1' });
    const nulls = await w.api({ method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'sdk-nulls', description: null, private: null, auto_init: null, default_branch: null, trust_model: null, object_format_name: null } });
    t.equal(nulls.statusCode, 201, nulls.body);
    for (const name of ['', null]) {
      const res = await w.api({ method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name } });
      t.equal(res.statusCode, 422, `name ${JSON.stringify(name)} is still required`);
      t.match(res.json(), { message: '[name]: Required' });
    }
  });

  t.test('issues and pull requests with null lists and empty titles', async (t) => {
    const issue = await w.api({ method: 'POST', url: `${repo}/issues`, as: 'alice', body: { title: 'An issue', body: '', ref: '', assignee: '', assignees: null, labels: null, milestone: null, due_date: null, closed: false } });
    t.equal(issue.statusCode, 201, issue.body);
    const pull = await w.api({ method: 'POST', url: `${repo}/pulls`, as: 'alice', body: {
      head: 'feature', base: 'main', title: 'A pull', body: '', assignee: '', assignees: null, labels: null, reviewers: null, team_reviewers: null, milestone: 0, due_date: null,
    } });
    t.equal(pull.statusCode, 201, pull.body);
    const n = pull.json().number;
    const edited = await w.api({ method: 'PATCH', url: `${repo}/pulls/${n}`, as: 'alice', body: {
      title: '', body: null, base: '', assignee: '', assignees: null, labels: null, milestone: 0, state: null, due_date: null, unset_due_date: null, allow_maintainer_edit: null,
    } });
    t.equal(edited.statusCode, 201, edited.body);
    t.match(edited.json(), { title: 'A pull', body: '', state: 'open', base: { ref: 'main' }, due_date: null }, 'an empty title keeps the title; nulls change nothing');
    const issueEdit = await w.api({ method: 'PATCH', url: `${repo}/issues/${issue.json().number}`, as: 'alice', body: { title: '', body: null, milestone: null, due_date: null, assignees: null, state: null } });
    t.equal(issueEdit.statusCode, 201, issueEdit.body);
    t.equal(issueEdit.json().title, 'An issue', 'an empty title on an issue edit keeps the title');
    for (const state of ['', 'bogus']) {
      const res = await w.api({ method: 'PATCH', url: `${repo}/issues/${issue.json().number}`, as: 'alice', body: { state } });
      t.equal(res.statusCode, 412, `state ${JSON.stringify(state)} on an issue is Gitea's 412`);
      t.equal(res.json().message, `unknown state: ${state}`);
    }
    const review = await w.api({ method: 'POST', url: `${repo}/pulls/${n}/reviews`, as: 'dave', body: { event: 'COMMENT', body: 'looks fine', commit_id: '', comments: null } });
    t.equal(review.statusCode, 200, review.body);
    t.equal(review.json().state, 'COMMENT');
  });

  t.test('labels, milestones and teams', async (t) => {
    const label = await w.api({ method: 'POST', url: `${repo}/labels`, as: 'alice', body: { name: 'bug', color: '#ff0000', description: '', exclusive: false, is_archived: false } });
    t.equal(label.statusCode, 201, label.body);
    const id = label.json().id;
    const unchanged = await w.api({ method: 'PATCH', url: `${repo}/labels/${id}`, as: 'alice', body: { name: null, color: null, description: null, exclusive: null, is_archived: null } });
    t.equal(unchanged.statusCode, 200, unchanged.body);
    t.match(unchanged.json(), { name: 'bug', color: 'ff0000' });

    const milestone = await w.api({ method: 'POST', url: `${repo}/milestones`, as: 'alice', body: { title: 'v1', description: '', state: '', due_on: null } });
    t.equal(milestone.statusCode, 201, milestone.body);
    t.equal(milestone.json().state, 'open', 'state "" is the default');
    const mid = milestone.json().id;
    const kept = await w.api({ method: 'PATCH', url: `${repo}/milestones/${mid}`, as: 'alice', body: { title: '', description: null, due_on: null, state: null } });
    t.equal(kept.statusCode, 200, kept.body);
    t.match(kept.json(), { title: 'v1', state: 'open' }, 'an empty title keeps the title');
    const dated = await w.api({ method: 'PATCH', url: `${repo}/milestones/${mid}`, as: 'alice', body: { due_on: '2030-01-02T03:04:05Z' } });
    t.equal(dated.json().due_on, '2030-01-02T03:04:05Z');
    t.equal((await w.api({ method: 'PATCH', url: `${repo}/milestones/${mid}`, as: 'alice', body: { description: 'x', due_on: null } })).json().due_on, null,
      'an edit without a deadline clears it, as Gitea\'s EditMilestone does');
    t.equal((await w.api({ method: 'PATCH', url: `${repo}/milestones/${mid}`, as: 'alice', body: { state: 'closed' } })).json().state, 'closed');
    t.equal((await w.api({ method: 'PATCH', url: `${repo}/milestones/${mid}`, as: 'alice', body: { state: 'bogus' } })).json().state, 'open', 'any state but closed opens it, as in Gitea');

    const org = await w.api({ method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'decoders', full_name: '', email: '', description: '', website: '', location: '', visibility: '' } });
    t.equal(org.statusCode, 201, org.body);
    const team = await w.api({ method: 'POST', url: '/api/v1/orgs/decoders/teams', as: 'alice', body: { name: 'readers', description: '', permission: 'read', units: null, units_map: null, includes_all_repositories: false, can_create_org_repo: false } });
    t.equal(team.statusCode, 201, team.body);
  });

  t.test('a JSON content type on an empty body is no body', async (t) => {
    const token = await w.api({ method: 'POST', url: '/api/v1/users/alice/tokens', headers: basic('alice'), body: { name: 'doomed', scopes: ['read:user'] } });
    t.equal(token.statusCode, 201);
    t.equal((await raw('DELETE', '/api/v1/users/alice/tokens/doomed', '', basic('alice'))).statusCode, 204, 'deleting a token');
    const label = await w.api({ method: 'POST', url: `${repo}/labels`, as: 'alice', body: { name: 'gone', color: '00ff00' } });
    t.equal((await raw('DELETE', `${repo}/labels/${label.json().id}`, '')).statusCode, 204, 'deleting a label');
    t.equal((await w.api({ method: 'POST', url: `${repo}/branch_protections`, as: 'alice', body: { rule_name: 'second', status_check_contexts: null, push_whitelist_usernames: null } })).statusCode, 201);
    t.equal((await raw('DELETE', `${repo}/branch_protections/second`, '')).statusCode, 204, 'deleting a branch protection');
    const pulls = (await w.api({ url: `${repo}/pulls`, as: 'alice' })).json();
    t.equal((await raw('POST', `${repo}/pulls/${pulls[0].number}/update`, '')).statusCode, 200, 'updating a pull request');
    t.equal((await raw('DELETE', '/api/v1/nothing/here', '')).statusCode, 404, 'an unknown route is 404, not 400');
    const malformed = await raw('POST', `${repo}/issues`, '{"title":');
    t.equal(malformed.statusCode, 422, 'a malformed body is 422, as Gitea answers');
    t.match(malformed.json(), { message: /^\[\]: /, url: String });
  });

  t.test('query strings and path ids', async (t) => {
    const defaults = await w.api({ url: `${repo}/issues?type=&state=&labels=&milestones=&q=&page=&limit=`, as: 'alice' });
    t.equal(defaults.statusCode, 200, defaults.body);
    const open = await w.api({ url: `${repo}/issues`, as: 'alice' });
    t.same(defaults.json().map((i: { number: number }) => i.number), open.json().map((i: { number: number }) => i.number), 'empty values are the defaults');
    t.ok(open.json().length >= 2);
    for (const qs of ['state=bogus', 'type=bogus', 'page=abc&limit=abc', 'limit=1e12']) {
      const res = await w.api({ url: `${repo}/issues?${qs}`, as: 'alice' });
      t.equal(res.statusCode, 200, `${qs} is ignored, as Gitea ignores it`);
      t.same(res.json().map((i: { number: number }) => i.number), open.json().map((i: { number: number }) => i.number));
    }
    const since = await w.api({ url: `${repo}/issues?since=yesterday`, as: 'alice' });
    t.equal(since.statusCode, 422, 'a malformed time is still refused');
    t.equal((await w.api({ url: `${repo}/pulls?state=&sort=&milestone=abc`, as: 'alice' })).statusCode, 200);

    const theirs = await w.api({ method: 'POST', url: '/api/v1/repos/bob/widget/labels', as: 'bob', body: { name: 'bobs', color: '0000ff' } });
    t.equal((await raw('DELETE', `${repo}/labels/${theirs.json().id}`)).statusCode, 204, 'another repository\'s label id names nothing here: 204');
    t.equal((await w.api({ url: `/api/v1/repos/bob/widget/labels/${theirs.json().id}`, as: 'bob' })).statusCode, 200, 'and it is still there');
    for (const id of ['0', 'abc', '-1', '99999999999999999999']) {
      t.equal((await raw('DELETE', `${repo}/labels/${id}`)).statusCode, 204, `DELETE labels/${id} deletes nothing and answers 204, as Gitea`);
      t.equal((await raw('GET', `${repo}/labels/${id}`)).statusCode, 404, `GET labels/${id} is 404`);
    }
    for (const index of ['1.0', 'abc', '1e3', '0', '-1', '1.diffx']) {
      const res = await raw('GET', `${repo}/pulls/${index}`);
      t.equal(res.statusCode, 404, `GET pulls/${index} is 404`);
      t.match(res.json(), { message: String, url: String });
    }
    const first = (await w.api({ url: `${repo}/pulls?state=all&sort=oldest`, as: 'alice' })).json()[0].number;
    t.equal((await raw('GET', `${repo}/pulls/+${first}`)).json().number, first, 'a signed index is the index (ParseInt)');
    t.equal((await raw('GET', `${repo}/pulls/00${first}`)).json().number, first, 'so is one with leading zeros');
    t.equal((await raw('GET', `${repo}/pulls/${first}.0.diff`)).statusCode, 404, '`1.0.diff` is no index');
    t.match((await raw('GET', `${repo}/pulls/${first}.diff`)).body, /^diff --git/);
  });
});

// The gitea-js client, unchanged, against the real server: create, list, get and edit pull requests.
import t from 'tap';
import { giteaApi } from 'gitea-js';
import { pullWorld } from './fixtures.js';
import { basic } from '../repos/fixtures.js';

t.test('gitea-js creates, lists, gets and edits pull requests', async (t) => {
  const w = await pullWorld(t);
  await w.pushBranch('client-feature', { 'client.txt': 'from gitea-js\n' });
  const tokenResponse = await w.api({
    method: 'POST', url: '/api/v1/users/alice/tokens', headers: basic('alice'), body: { name: 'client', scopes: ['write:repository', 'write:issue', 'read:user'] },
  });
  t.equal(tokenResponse.statusCode, 201, tokenResponse.body);
  const api = giteaApi(w.baseUrl.replace(/\/$/, ''), { token: tokenResponse.json().sha1 as string, customFetch: fetch });

  const created = await api.repos.repoCreatePullRequest('alice', 'widget', { head: 'client-feature', base: 'main', title: 'Client PR', body: 'made by gitea-js' });
  t.equal(created.status, 201);
  t.match(created.data, { number: 1, title: 'Client PR', state: 'open', head: { ref: 'client-feature' }, base: { ref: 'main' }, user: { login: 'alice' } });

  const listed = await api.repos.repoListPullRequests('alice', 'widget', { state: 'open', sort: 'oldest', page: 1, limit: 10 });
  t.equal(listed.status, 200);
  t.same(listed.data.map((p) => p.number), [1]);
  t.equal(listed.headers.get('x-total-count'), '1');

  const got = await api.repos.repoGetPullRequest('alice', 'widget', 1);
  t.match(got.data, { number: 1, additions: 1, deletions: 0, changed_files: 1, diff_url: `${w.baseUrl}alice/widget/pulls/1.diff` });

  const edited = await api.repos.repoEditPullRequest('alice', 'widget', 1, { title: 'Client PR, edited', body: 'new body', due_date: '2031-02-03T12:00:00Z' });
  t.equal(edited.status, 201);
  t.match(edited.data, { title: 'Client PR, edited', body: 'new body', due_date: '2031-02-03T23:59:59Z' });
});

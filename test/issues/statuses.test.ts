// Commit statuses: create and list shapes, the combined state rules, permissions, archived 423,
// and that posting a status with Temporal connected never fails for lack of a pull request.
import t from 'tap';
import { combineStates } from '../../core/commit-statuses.js';
import { startWorld } from './world.js';

t.test('combined state follows Gitea latest main', async (t) => {
  t.equal(combineStates([]), 'pending');
  t.equal(combineStates(['success', 'warning', 'skipped']), 'success');
  t.equal(combineStates(['success', 'pending']), 'pending');
  t.equal(combineStates(['success', 'failure', 'pending']), 'failure');
  t.equal(combineStates(['error', 'success']), 'failure');
  t.equal(combineStates(['warning']), 'success');
});

t.test('statuses over HTTP', async (t) => {
  const w = await startWorld(t, { temporal: true });
  const sha = w.headSha;
  const url = `/api/v1/repos/alice/demo/statuses/${sha}`;

  const first = await w.api({ method: 'POST', url, as: 'walt', body: { state: 'pending', context: 'ci/build', target_url: 'https://ci/1', description: 'building' } });
  t.equal(first.statusCode, 201, first.body);
  const s1 = first.json();
  t.equal(s1.id, 1, 'id is the per-sha index');
  t.equal(s1.status, 'pending', 'response key is status');
  t.notOk('state' in s1);
  t.equal(s1.context, 'ci/build');
  t.equal(s1.url, `${w.config.APP_URL}api/v1/repos/alice/demo/statuses/${sha}`);
  t.equal(s1.creator.login, 'walt');
  t.equal(s1.created_at, s1.updated_at);

  let combined = (await w.api({ url: `/api/v1/repos/alice/demo/commits/main/status`, as: 'rita' })).json();
  t.equal(combined.state, 'pending');
  t.equal(combined.sha, sha);
  t.equal(combined.total_count, 1);
  t.equal(combined.repository.full_name, 'alice/demo');
  t.equal(combined.url, `${w.config.APP_URL}api/v1/repos/alice/demo/commits/${sha}/status`);

  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { state: 'success', context: 'ci/build' } })).json().id, 2);
  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { state: 'warning', context: 'lint' } })).statusCode, 201);
  combined = (await w.api({ url: `/api/v1/repos/alice/demo/commits/${sha}/status`, as: 'rita' })).json();
  t.equal(combined.state, 'success', 'latest per context: success + warning');
  t.equal(combined.total_count, 2);
  t.same(combined.statuses.map((s: { context: string; status: string }) => [s.context, s.status]).sort(), [['ci/build', 'success'], ['lint', 'warning']]);

  await w.api({ method: 'POST', url, as: 'walt', body: { state: 'error', context: 'deploy' } });
  t.equal((await w.api({ url: `/api/v1/repos/alice/demo/commits/main/status` })).json().state, 'failure', 'error wins (anonymous read of a public repo)');

  const list = await w.api({ url: `${url}?limit=2`, as: 'rita' });
  t.equal(list.statusCode, 200);
  t.equal(list.headers['x-total-count'], '4');
  t.equal(list.json().length, 2);
  t.match(String(list.headers.link), /rel="next"/);
  t.same((await w.api({ url: `${url}?sort=leastindex`, as: 'rita' })).json().map((s: { id: number }) => s.id), [1, 2, 3, 4]);
  t.same((await w.api({ url: `${url}?state=success`, as: 'rita' })).json().map((s: { id: number }) => s.id), [2]);
  const byRef = await w.api({ url: `/api/v1/repos/alice/demo/commits/main/statuses`, as: 'rita' });
  t.equal(byRef.headers['x-total-count'], '4');

  // Errors.
  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { state: 'bogus' } })).statusCode, 422, 'unknown state');
  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: {} })).statusCode, 422, 'missing state');
  t.equal((await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/statuses/nothex', as: 'walt', body: { state: 'success' } })).statusCode, 422);
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/statuses/${'0'.repeat(40)}`, as: 'walt', body: { state: 'success' } })).statusCode, 404, 'unknown commit');
  t.equal((await w.api({ method: 'POST', url, as: 'rita', body: { state: 'success' } })).statusCode, 403, 'reader cannot write');
  t.equal((await w.api({ method: 'POST', url, body: { state: 'success' } })).statusCode, 401, 'anonymous');
  t.equal((await w.api({ url: `/api/v1/repos/alice/demo/commits/nosuchbranch/status` })).statusCode, 404);
  t.equal((await w.api({ url: `/api/v1/repos/alice/secret/commits/main/status`, as: 'sam' })).statusCode, 404, 'private repo hidden');
  t.equal((await w.api({ url: `/api/v1/repos/alice/secret/commits/main/status`, as: 'rita' })).statusCode, 200);

  // Concurrent reports on one sha get distinct consecutive indexes.
  const many = await Promise.all(Array.from({ length: 10 }, (_, i) => w.api({ method: 'POST', url, as: 'walt', body: { state: 'success', context: `c${i}` } })));
  t.same(many.map((r) => r.statusCode), Array(10).fill(201));
  t.same(many.map((r) => r.json().id).sort((a, b) => a - b), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);

  t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/demo', as: 'alice', body: { archived: true } })).statusCode, 200);
  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { state: 'success' } })).statusCode, 423, 'archived');
});

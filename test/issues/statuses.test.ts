// Commit statuses: create and list shapes, the combined state rules, permissions, archived 423,
// and that posting a status with Temporal connected never fails for lack of a pull request.
import t from 'tap';
import { combineStates } from '../../core/commit-statuses.js';
import { startWorld, type World } from './world.js';
import { repoDiskPath } from '../../core/repositories.js';
import { gitOk } from '../../git/index.js';
import { gitCommandStats } from '../../git/runner.js';

t.test('combined state follows Gitea 1.26 (a warning fails)', async (t) => {
  t.equal(combineStates([]), 'pending');
  t.equal(combineStates(['success', 'skipped']), 'success');
  t.equal(combineStates(['success', 'warning', 'skipped']), 'failure');
  t.equal(combineStates(['success', 'pending']), 'pending');
  t.equal(combineStates(['pending', 'warning']), 'failure');
  t.equal(combineStates(['success', 'failure', 'pending']), 'failure');
  t.equal(combineStates(['error', 'success']), 'failure');
  t.equal(combineStates(['warning']), 'failure');
  t.equal(combineStates(['skipped']), 'success');
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
  t.equal(s1.creator.email, 'walt@noreply.127.0.0.1', 'the creator as seen by nobody in particular, as Gitea converts it');
  t.equal(s1.created_at, s1.updated_at);

  let combined = (await w.api({ url: `/api/v1/repos/alice/demo/commits/main/status`, as: 'rita' })).json();
  t.equal(combined.state, 'pending');
  t.equal(combined.sha, sha);
  t.equal(combined.total_count, 1);
  t.equal(combined.repository.full_name, 'alice/demo');
  t.equal(combined.url, `${w.config.APP_URL}api/v1/repos/alice/demo/commits/${sha}/status`);

  // The commit is known now: later reports on it are stored without asking git.
  const catFiles = () => gitCommandStats().get('cat-file')?.count ?? 0;
  const catFilesBefore = catFiles();
  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { state: 'success', context: 'ci/build' } })).json().id, 2);
  t.equal(catFiles(), catFilesBefore, 'a commit reported on before is known without git');
  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { state: 'warning', context: 'lint' } })).statusCode, 201);
  combined = (await w.api({ url: `/api/v1/repos/alice/demo/commits/${sha}/status`, as: 'rita' })).json();
  t.equal(combined.state, 'failure', 'latest per context: success + warning fails, as in Gitea 1.26');
  t.equal(combined.total_count, 2);
  t.same(combined.statuses.map((s: { context: string; status: string }) => [s.context, s.status]), [['ci/build', 'success'], ['lint', 'warning']], 'in index order');

  await w.api({ method: 'POST', url, as: 'walt', body: { state: 'error', context: 'deploy' } });
  t.equal((await w.api({ url: `/api/v1/repos/alice/demo/commits/main/status` })).json().state, 'failure', 'error wins (anonymous read of a public repo)');

  const list = await w.api({ url: `${url}?limit=2`, as: 'rita' });
  t.equal(list.statusCode, 200);
  t.equal(list.headers['x-total-count'], '4');
  t.equal(list.json().length, 2);
  t.match(String(list.headers.link), /rel="next"/);
  const ids = async (query: string) => (await w.api({ url: `${url}${query}`, as: 'rita' })).json().map((s: { id: number }) => s.id);
  t.same(await ids('?sort=leastindex'), [4, 3, 2, 1], "Gitea's leastindex lists the highest index first");
  t.same(await ids('?sort=highestindex'), [1, 2, 3, 4], 'and highestindex the lowest');
  t.same(await ids('?state=success'), [2]);
  // Times set by hand: reports 1 and 2 in one second, 3 and 4 in the next.
  await w.db('commit_statuses').where({ sha }).whereIn('index', [1, 2]).update({ created_unix: 1_700_000_000 });
  await w.db('commit_statuses').where({ sha }).whereIn('index', [3, 4]).update({ created_unix: 1_700_000_001 });
  t.same(await ids(''), [3, 4, 1, 2], 'newest second first, each second in the order made');
  t.same(await ids('?state=skipped'), [3, 4, 1, 2], 'a state Gitea does not filter by lists everything');
  t.same(await ids('?state=bogus&sort=bogus'), [3, 4, 1, 2], 'unknown values are ignored, as Gitea ignores them');
  t.same(await ids('?sort=oldest'), [1, 2, 3, 4]);
  t.same(await ids('?sort=leastupdate'), [1, 2, 3, 4]);
  t.same(await ids('?sort=recentupdate'), [3, 4, 1, 2]);
  await w.db('commit_statuses').where({ sha }).update({ created_unix: 1_700_000_000 });
  t.same(await ids(''), [1, 2, 3, 4], 'statuses of one second keep the order they were made in');
  const byRef = await w.api({ url: `/api/v1/repos/alice/demo/commits/main/statuses`, as: 'rita' });
  t.equal(byRef.headers['x-total-count'], '4');

  // Errors.
  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { state: 'bogus' } })).statusCode, 422, 'unknown state (Gitea stores it; we refuse)');
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

  await t.test("the reporting sequence of the issue: Gitea 1.26 answers failure", async (t) => {
    const other = await newCommit(w);
    const at = `/api/v1/repos/alice/demo/statuses/${other}`;
    const empty = await w.api({ url: `/api/v1/repos/alice/demo/commits/${other}/status` });
    t.match(empty.json(), { state: 'pending', total_count: 0, statuses: null }, 'no status: pending, statuses null');
    t.equal(empty.headers['x-total-count'], '0');
    for (const [state, context] of [['pending', 'ultraCI'], ['warning', 'warn-bot'], ['failure', 'ultraCI'], ['pending', 'ultraCI'], ['success', 'ultraCI']]) {
      t.equal((await w.api({ method: 'POST', url: at, as: 'walt', body: { state, context } })).statusCode, 201);
    }
    const combined = await w.api({ url: `/api/v1/repos/alice/demo/commits/${other}/status` });
    t.equal(combined.json().state, 'failure');
    t.same(combined.json().statuses.map((s: { id: number; status: string }) => [s.id, s.status]), [[2, 'warning'], [5, 'success']]);
    const first = await w.api({ url: `/api/v1/repos/alice/demo/commits/${other}/status?limit=1` });
    t.match(first.json(), { state: 'success', total_count: 1 }, 'a page holds the context reported last, combined alone');
    t.same(first.json().statuses.map((s: { context: string }) => s.context), ['ultraCI']);
    t.equal(first.headers['x-total-count'], '2', 'X-Total-Count counts every context');
    t.match(String(first.headers.link), /page=2>; rel="next"/);
    const second = await w.api({ url: `/api/v1/repos/alice/demo/commits/${other}/status?limit=1&page=2` });
    t.match(second.json(), { state: 'failure', total_count: 1 });
    t.same(second.json().statuses.map((s: { context: string }) => s.context), ['warn-bot']);
    t.same((await w.api({ url: `${at}?sort=oldest` })).json().map((s: { id: number }) => s.id), [1, 2, 3, 4, 5]);
  });

  t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/demo', as: 'alice', body: { archived: true } })).statusCode, 200);
  t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { state: 'success' } })).statusCode, 423, 'archived');
});

/** A commit nothing points to, made in the bare repository (statuses need only the object). */
async function newCommit(w: World): Promise<string> {
  const path = repoDiskPath(w.config, 'alice', 'demo');
  const tree = (await gitOk(['rev-parse', 'main^{tree}'], { cwd: path })).trim();
  const env = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
  return (await gitOk(['commit-tree', tree, '-p', 'main', '-m', 'another'], { cwd: path, env })).trim();
}

// The same pull request queries on the embedded default (SQLite): create, list with filters and
// sorts, get by base/head, edit, files.
import t from 'tap';
import { pullWorld } from './fixtures.js';
import { baseLog, merge, openPull, refOf } from '../merge/world.js';

t.test('pull requests on SQLite', async (t) => {
  const w = await pullWorld(t, { dbType: 'sqlite3', temporal: false });
  const url = '/api/v1/repos/alice/widget/pulls';
  await w.pushBranch('one', { 'one.txt': '1\n' });
  await w.pushBranch('two', { 'two.txt': '2\n' });
  const headers = await w.tokenHeader('alice');
  const [a, b] = await Promise.all(['one', 'two'].map((head) => w.api({ method: 'POST', url, headers, body: { head, base: 'main', title: `PR ${head}` } })));
  t.equal(a!.statusCode, 201, a!.body);
  t.equal(b!.statusCode, 201, b!.body);
  t.same([a!.json().number, b!.json().number].sort(), [1, 2]);
  for (const sort of ['', 'oldest', 'recentupdate', 'leastupdate', 'mostcomment', 'leastcomment', 'priority']) {
    const r = await w.api({ url: `${url}?state=all&sort=${sort}` });
    t.equal(r.statusCode, 200, `${sort}: ${r.body.slice(0, 200)}`);
    t.equal(r.json().length, 2);
  }
  t.equal((await w.api({ url: `${url}?labels=1&labels=2` })).json().length, 0);
  t.equal((await w.api({ url: `${url}/main/alice:one` })).json().title, 'PR one');
  const edited = await w.api({ method: 'PATCH', url: `${url}/1`, as: 'alice', body: { title: 'renamed', body: 'b', content_version: 0, due_date: '2030-01-01' } });
  t.equal(edited.statusCode, 201, edited.body);
  t.match(edited.json(), { title: 'renamed', content_version: 1, due_date: '2030-01-01T23:59:59Z' });
  const files = await w.api({ url: `${url}/1/files` });
  t.equal(files.headers['x-total-count'], '1');
});

// On SQLite the merge moves the base branch before it writes the rows (core/pulls/merge.ts): the
// embedded default merges, with its workflow, after the base moved since the pull request was opened.
t.test('merging on SQLite after the base moved', async (t) => {
  const w = await pullWorld(t, { dbType: 'sqlite3' });
  const index = await openPull(w, 'merged-on-sqlite', { 'merged-on-sqlite.txt': 'x\n' });
  const before = refOf(w, 'refs/heads/main')!;
  await w.pushBranch('main', { 'moved.txt': 'm\n' }, { from: 'main' });
  const moved = refOf(w, 'refs/heads/main')!;
  const res = await merge(w, index, { do: 'merge' });
  t.equal(res.statusCode, 200, res.body);
  const [top] = baseLog(w, 'refs/heads/main', 1);
  t.equal(top!.parents[0], moved, 'merged on the moved base, which is kept');
  t.not(moved, before);
  const row = await w.db('pull_requests').where({ index }).first();
  t.ok(row.has_merged, 'the pull request is marked merged');
  t.equal(row.merge_commit_sha, top!.sha, 'with the base branch head as its merge commit');
  t.equal(row.pending_merge_commit, null, 'the journal is cleared');
  t.equal((await w.db('comments').where({ issue_id: row.issue_id, type: 'merge_pull' })).length, 1, 'one merge comment');
});

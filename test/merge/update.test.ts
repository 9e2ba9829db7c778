// POST .../pulls/{index}/update: the base comes into the head by merge or rebase.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { baseLog, merge, openPull, refOf } from './world.js';

t.test('update by merge and by rebase', async (t) => {
  const w = await pullWorld(t);
  const p = await openPull(w, 'feature-up', { 'up.txt': 'u\n' });
  await w.pushBranch('main', { 'base-moved.txt': 'm\n' }, { from: 'main' });
  const update = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/update`, as: 'alice' });
  t.equal(update.statusCode, 200, update.body);
  const [m] = baseLog(w, 'refs/heads/feature-up');
  t.equal(m!.subject, "Merge branch 'main' into feature-up");
  t.equal(m!.parents[1], refOf(w, 'refs/heads/main'), 'the base is merged into the head');
  t.equal(refOf(w, `refs/pull/${p}/head`), m!.sha, 'the pull request ref follows');

  await w.pushBranch('main', { 'base-moved-again.txt': 'm\n' }, { from: 'main' });
  const rebase = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/update?style=rebase`, as: 'alice' });
  t.equal(rebase.statusCode, 200, rebase.body);
  const log = baseLog(w, 'refs/heads/feature-up', 10);
  t.ok(log.every((c) => c.parents.length <= 1), 'a rebased head has no merge commits');
  t.ok(log.some((c) => c.sha === refOf(w, 'refs/heads/main')), 'and sits on the current base');

  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/update`, as: 'carol' })).statusCode, 403, 'a reader may not update');
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/update`, as: 'alice' })).statusCode, 200, 'an up-to-date head is fine');
  t.equal((await merge(w, p, {})).statusCode, 200);
  // The same request as the last update, judged afresh: the pull request is merged now.
  const afterMerge = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/update`, as: 'alice', headers: { 'idempotency-key': 'after-merge' } });
  t.equal(afterMerge.statusCode, 422, 'merged pull requests cannot be updated');
});

t.test('update conflicts answer 409', async (t) => {
  const w = await pullWorld(t);
  const p = await openPull(w, 'feature-clash', { 'README.md': 'head version\n' });
  await w.pushBranch('main', { 'README.md': 'base version\n' }, { from: 'main' });
  const merged = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/update`, as: 'alice' });
  t.equal(merged.statusCode, 409);
  t.equal(merged.json().message, 'merge failed because of conflict');
  const rebased = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/update?style=rebase`, as: 'alice' });
  t.equal(rebased.statusCode, 409);
  t.equal(rebased.json().message, 'rebase failed because of conflict');
});

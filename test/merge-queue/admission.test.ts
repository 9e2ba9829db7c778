// Joining the queue asks what a merge asks but for the checks (the queue runs those on its own
// commit): write access, not a work in progress, no conflict with the base, the required approvals.
// A refused join leaves no entry and no timeline comment.
import t from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { openPull } from '../merge/world.js';
import { enableQueue, join, queueComments } from './world.js';

const queued = async (w: PullWorld) => (await w.api({ url: '/api/v1/repos/alice/widget/merge_queue/main', as: 'alice' })).json().entries.map((e: { number: number }) => e.number) as number[];

t.test('a join is refused without approvals, with a conflict, as a work in progress or without write access', async (t) => {
  const w = await pullWorld(t);
  t.equal((await enableQueue(w)).statusCode, 201);
  const approvals = await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget/branch_protections/main', as: 'alice', body: { required_approvals: 1 } });
  t.equal(approvals.statusCode, 200, approvals.statusCode === 200 ? 'one approval required' : approvals.body);

  const unapproved = await openPull(w, 'a1', { 'a1.txt': '1\n' });
  const noApproval = await join(w, unapproved);
  t.equal(noApproval.statusCode, 405, 'refused before an approval');
  t.match(noApproval.json().message, /0 of 1 required approvals/);
  const review = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${unapproved}/reviews`, as: 'dave', body: { event: 'APPROVED', body: 'fine' } });
  t.equal(review.statusCode, 200, review.statusCode === 200 ? 'dave approves' : review.body);

  const conflicting = await openPull(w, 'a2', { 'shared.txt': 'from the branch\n' });
  await w.pushBranch('main', { 'shared.txt': 'from the base\n' });
  const conflict = await join(w, conflicting);
  t.equal(conflict.statusCode, 409, 'a conflict with the base is refused');

  const wip = await openPull(w, 'a3', { 'a3.txt': '3\n' }, { title: 'WIP: not yet' });
  t.equal((await join(w, wip)).statusCode, 405, 'a work in progress is refused');

  t.equal((await join(w, unapproved, 'carol')).statusCode, 405, 'someone without write access is refused');
  t.same(await queued(w), [], 'no refused join left an entry');
  for (const p of [conflicting, wip]) t.same(await queueComments(w, p), [], `#${p} has no queue comment`);

  t.equal((await join(w, unapproved)).statusCode, 201, 'approved, it joins');
  t.same(await queued(w), [unapproved], 'and is the one entry');
});

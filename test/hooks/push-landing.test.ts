// What git applied of a journalled push, as the push's own process and the catch-up read it
// (core/push-journal.ts landedUpdates), in a repository made as the service makes them: updates
// the references still name are followed and announced; a branch move later moves went past is
// announced only (its reflog records it, since the push was journalled); what the references cannot
// tell counts as not applied.
import t from 'tap';
import { landedUpdates, type JournalledUpdate } from '../../core/push-journal.js';
import { readRefs } from '../../git/ref-files.js';
import { deleteRef, updateRef, zeroSha } from '../../git/refs.js';
import { gitOk } from '../../git/runner.js';
import { nowUnix } from '../../db/time.js';
import { bareRepo, commit } from '../git/helpers.js';

t.test('followed, announced only, or not applied', async (t) => {
  const repo = await bareRepo(t); // initBareRepository: branch moves are logged
  const root = await commit(repo, null, { a: '1' }, 'root', { ref: 'refs/heads/main' });
  const one = await commit(repo, root, { a: '2' }, 'one');
  const two = await commit(repo, one, { a: '3' }, 'two');
  const never = await commit(repo, root, { a: '4' }, 'never applied');
  const z = zeroSha(root);

  await updateRef(repo, 'refs/heads/main', one, root); // applied, then moved on past
  await updateRef(repo, 'refs/heads/main', two, one);
  await updateRef(repo, 'refs/heads/created', one, null); // applied, still there
  await updateRef(repo, 'refs/heads/gone', one, null); // deleted, still gone
  await deleteRef(repo, 'refs/heads/gone', one);
  await updateRef(repo, 'refs/heads/back', one, null); // deleted, then made again
  await deleteRef(repo, 'refs/heads/back', one);
  await updateRef(repo, 'refs/heads/back', two, null);
  await gitOk(['update-ref', 'refs/tags/v1', one], { cwd: repo }); // a tag moved since: tags are not logged
  await gitOk(['update-ref', 'refs/tags/v1', two, one], { cwd: repo });
  // A branch forced to `never` and back an hour before the push was journalled: that move was not the push's.
  const anHourAgo = { GIT_COMMITTER_DATE: `@${nowUnix() - 3600} +0000` };
  await gitOk(['update-ref', 'refs/heads/flip', root], { cwd: repo, env: anHourAgo });
  await gitOk(['update-ref', 'refs/heads/flip', never, root], { cwd: repo, env: anHourAgo });
  await gitOk(['update-ref', 'refs/heads/flip', root, never], { cwd: repo, env: anHourAgo });

  const cases: Array<[string, JournalledUpdate, 'followed' | 'announced' | 'neither']> = [
    ['a creation the branch still names', { ref: 'refs/heads/created', oldSha: z, newSha: one }, 'followed'],
    ['a move later moves went past', { ref: 'refs/heads/main', oldSha: root, newSha: one }, 'announced'],
    ['the move that went past it', { ref: 'refs/heads/main', oldSha: one, newSha: two }, 'followed'],
    ['a move never applied', { ref: 'refs/heads/main', oldSha: root, newSha: never }, 'neither'],
    ['a deletion, the branch still gone', { ref: 'refs/heads/gone', oldSha: one, newSha: z }, 'followed'],
    ['a deletion of a branch made again since', { ref: 'refs/heads/back', oldSha: one, newSha: z }, 'neither'],
    ['a tag moved since', { ref: 'refs/tags/v1', oldSha: z, newSha: one }, 'neither'],
    ['a name that is no reference', { ref: 'refs/heads/../../config', oldSha: root, newSha: one }, 'neither'],
    ['the same move, recorded before the push', { ref: 'refs/heads/flip', oldSha: root, newSha: never }, 'neither'],
  ];
  const updates = cases.map(([, u]) => u);
  const current = await readRefs(repo, updates.map((u) => u.ref).filter((r) => !r.includes('..')));
  const landed = landedUpdates(repo, updates, current, nowUnix());
  for (const [what, update, want] of cases) {
    const got = landed.followed.includes(update) ? 'followed' : landed.announced.includes(update) ? 'announced' : 'neither';
    t.equal(got, want, what);
  }
  t.same(landed.announced, updates.filter((u) => landed.followed.includes(u) || cases.find(([, c]) => c === u)![2] === 'announced'),
    'announced: the followed ones and the ones gone past, in the push\'s order');
  t.ok(landed.followed.every((u) => landed.announced.includes(u)), 'whatever is followed is announced');
});

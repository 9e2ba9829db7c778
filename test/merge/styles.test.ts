// Every merge style produces the expected commit graph, author, committer and message.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { baseLog, merge, openPull, refOf } from './world.js';

t.test('merge styles, read back with git log', async (t) => {
  const w = await pullWorld(t);

  const p1 = await openPull(w, 'feature-merge', { 'a.txt': 'a\n' }, { title: 'Add a' });
  const before = refOf(w, 'refs/heads/main')!;
  const r1 = await merge(w, p1, { Do: 'merge' });
  t.equal(r1.statusCode, 200, r1.body);
  const [m] = baseLog(w);
  t.same(m!.parents, [before, refOf(w, `refs/pull/${p1}/head`)], 'a merge commit with the base and the head as parents');
  t.equal(m!.subject, `Merge pull request 'Add a' (#${p1}) from feature-merge into main`, 'Gitea\'s default title');
  t.equal(m!.committer, 'alice <alice@example.com>');
  t.equal((await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p1}/merge`, as: 'alice' })).statusCode, 204, 'GET merge answers 204 once merged');
  const repoId = (await w.db('repositories').where({ lower_name: 'widget', owner_id: w.users.alice.id }).first('id')).id as number;
  const readMark = async (index: number) => w.db('issue_users as iu').join('issues as i', 'i.id', 'iu.issue_id').where({ 'i.repo_id': repoId, 'i.index': index, 'iu.user_id': w.users.alice.id }).first('iu.is_read', 'iu.is_mentioned');
  t.match(await readMark(p1), { is_read: 1, is_mentioned: 0 }, 'the pull request is marked read for the merger');

  // Branched before the squash below lands, so the rebase has to rewrite it.
  const p3 = await openPull(w, 'feature-rebase', { 'c.txt': 'c\n' }, { title: 'Add c' });
  const p2 = await openPull(w, 'feature-squash', { 'b.txt': 'b\n' }, { title: 'Add b', as: 'dave' });
  const r2 = await merge(w, p2, { do: 'squash', merge_title_field: '  Squashed b  ', merge_message_field: '  details here \n' });
  t.equal(r2.statusCode, 200, r2.body);
  const [s] = baseLog(w);
  t.equal(s!.parents.length, 1, 'squash makes one commit with one parent');
  t.equal(s!.subject, 'Squashed b', 'the title is trimmed');
  t.match(s!.body, /^details here/, 'the message follows after a blank line, trimmed');
  t.equal(s!.author, 'dave <dave@example.com>', 'the squash commit is authored by the poster');
  t.equal(s!.committer, 'alice <alice@example.com>', 'and committed by the merger');
  t.match(s!.body, /Co-authored-by: alice <alice@example.com>/);

  const baseBefore = refOf(w, 'refs/heads/main')!;
  const r3 = await merge(w, p3, { do: 'rebase' });
  t.equal(r3.statusCode, 200, r3.body);
  const [rb] = baseLog(w);
  t.same(rb!.parents, [baseBefore], 'rebase replays the commit on top of the base, no merge commit');
  t.equal(rb!.subject, 'change c.txt', 'the original message is kept');
  t.equal(rb!.author, 'Tester <tester@example.com>', 'the original author is kept');
  t.equal(rb!.committer, 'alice <alice@example.com>', 'the merger commits the rewritten commit');

  const p4 = await openPull(w, 'feature-rebase-merge', { 'd.txt': 'd\n' }, { title: 'Add d' });
  const base4 = refOf(w, 'refs/heads/main')!;
  const r4 = await merge(w, p4, { do: 'rebase-merge' });
  t.equal(r4.statusCode, 200, r4.body);
  const [rm] = baseLog(w);
  t.equal(rm!.parents.length, 2, 'rebase-merge ends in a merge commit');
  t.equal(rm!.parents[0], base4, 'whose first parent is the old base');
  t.equal(refOf(w, `${rm!.parents[1]}^`), base4, 'and whose second parent is the head rebased onto it');

  const p5 = await openPull(w, 'feature-ff', { 'e.txt': 'e\n' }, { title: 'Add e' });
  const head5 = refOf(w, `refs/pull/${p5}/head`);
  const r5 = await merge(w, p5, { do: 'fast-forward-only' });
  t.equal(r5.statusCode, 200, r5.body);
  t.equal(refOf(w, 'refs/heads/main'), head5, 'fast-forward-only moves the base to the head');

  const p6 = await openPull(w, 'feature-default', { 'f.txt': 'f\n' }, { title: 'Add f' });
  const issue6 = (await w.db('issues').where({ repo_id: repoId, index: p6 }).first('id')).id as number;
  await w.db('issue_users').where({ issue_id: issue6, user_id: w.users.alice.id }).delete();
  await w.db('issue_users').insert({ issue_id: issue6, user_id: w.users.alice.id, is_read: false, is_mentioned: true });
  const r6 = await merge(w, p6, {});
  t.match(await readMark(p6), { is_read: 1, is_mentioned: 1 }, 'an unread row becomes read, and keeps its mention');
  t.equal(r6.statusCode, 200, 'an empty Do means merge');
  t.equal(baseLog(w)[0]!.parents.length, 2);

  const pr = (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p6}`, as: 'alice' })).json();
  t.match(pr, { merged: true, state: 'closed', merged_by: { login: 'alice' }, merge_commit_sha: refOf(w, 'refs/heads/main') });
  t.ok(pr.merged_at, 'merged_at is set');
});

t.test('styles the repository does not allow, manual merges, and legacy keys', async (t) => {
  const w = await pullWorld(t);
  const patch = await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { allow_squash_merge: false } });
  t.equal(patch.statusCode, 200, patch.body);
  const p = await openPull(w, 'feature-x', { 'x.txt': 'x\n' });
  const refused = await merge(w, p, { Do: 'squash' });
  t.equal(refused.statusCode, 405);
  t.equal(refused.json().message, 'squash is not allowed an allowed merge style for this repository');
  const unknown = await merge(w, p, { Do: 'octopus' });
  t.equal(unknown.statusCode, 422, 'an unknown style is a validation error');

  const wrong = await merge(w, p, { Do: 'manually-merged', MergeCommitID: 'f'.repeat(40) });
  t.equal(wrong.statusCode, 409, 'a commit that is not on the base branch is refused');
  // Merge the branch outside the service, then mark the pull request as manually merged.
  const headSha = refOf(w, `refs/pull/${p}/head`)!;
  const gitDir = w.clones.alice;
  await w.git(['fetch', '-q', 'origin'], gitDir);
  await w.git(['checkout', '-q', 'main'], gitDir);
  await w.git(['reset', '-q', '--hard', 'origin/main'], gitDir);
  const mergedLocally = await w.git(['merge', '-q', '--no-ff', '-m', 'manual merge', headSha], gitDir);
  t.equal(mergedLocally.code, 0, mergedLocally.stderr);
  t.equal((await w.git(['push', '-q', 'origin', 'HEAD:refs/heads/main'], gitDir)).code, 0);
  const mainSha = refOf(w, 'refs/heads/main')!;
  const manual = await merge(w, p, { Do: 'manually-merged', MergeCommitID: mainSha });
  t.equal(manual.statusCode, 200, manual.body);
  const pr = (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}`, as: 'alice' })).json();
  t.match(pr, { merged: true, merge_commit_sha: mainSha });
  t.equal((await merge(w, p, { Do: 'merge' })).statusCode, 405, 'merging a merged pull request again is refused');
});

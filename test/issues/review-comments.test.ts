// Reviews on a real pull request (pushed branches, the real diff): code comments and their hunks,
// one pending review per reviewer, submitting, dismissing, deleting, review requests and resolving
// conversations. Expected values come from Gitea 1.26.4 answering the same requests for the same
// change (see the report of this work for the reference session).
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { makeUser } from '../repos/fixtures.js';

const BASE = 'line1\nline2\nline3\nline4\nline5\nline6\nline7\nline8\nline9\nline10\n';
const HEAD = 'line1\nline2\nline3 changed\nline4\nline5\nline6\nnew a\nnew b\nline7\nline8\nline9\n';

t.test('reviews with code comments on a real pull request', async (t) => {
  const w = await pullWorld(t);
  await makeUser(w.db, 'root', { admin: true });
  t.equal((await w.api({ method: 'PUT', url: '/api/v1/repos/alice/widget/collaborators/carol', as: 'alice', body: { permission: 'read' } })).statusCode, 204);
  const baseSha = await w.pushBranch('main', { 'code.txt': BASE });
  const headSha = await w.pushBranch('feat', { 'code.txt': HEAD });
  const created = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'dave', body: { head: 'feat', base: 'main', title: 'a pull' } });
  t.equal(created.statusCode, 201, created.body);
  const index = created.json().number as number;
  const pulls = `/api/v1/repos/alice/widget/pulls/${index}`;
  const reviews = `${pulls}/reviews`;
  const html = `${w.config.APP_URL}alice/widget/pulls/${index}`;
  const timeline = async () => (await w.api({ url: `/api/v1/repos/alice/widget/issues/${index}/timeline` })).json() as Array<Record<string, unknown>>;

  await t.test('a pending review needs a body; a second pending one is the same review', async (t) => {
    const noBody = await w.api({ method: 'POST', url: reviews, as: 'carol', body: {} });
    t.equal(noBody.statusCode, 422);
    t.equal(noBody.json().message, 'review event  requires a body');
    t.equal((await w.api({ method: 'POST', url: reviews, as: 'carol', body: { event: 'PENDING' } })).json().message, 'review event PENDING requires a body');
    const first = await w.api({ method: 'POST', url: reviews, as: 'carol', body: { event: 'MERGE_IT', body: 'x' } });
    t.equal(first.statusCode, 200, first.body);
    t.match(first.json(), { state: 'PENDING', body: 'x', commit_id: headSha, official: false, comments_count: 0 });
    const again = await w.api({ method: 'POST', url: reviews, as: 'carol', body: { event: 'PENDING', body: 'again' } });
    t.equal(again.json().id, first.json().id, 'one pending review per reviewer');
    t.equal(again.json().body, 'again');
    t.equal(again.json().html_url, first.json().html_url, "the review's first timeline row");
    const rows = (await timeline()).filter((c) => c.type === 'review');
    t.same(rows.map((c) => c.body), ['x', 'again'], 'each submission leaves a review row, as in Gitea');
    t.same(rows.map((c) => c.review_id), [first.json().id, first.json().id]);

    const anon = await w.api({ url: reviews });
    t.same(anon.json(), [], "another reviewer's pending review is not listed");
    t.equal(anon.headers['x-total-count'], '1', 'but counted, as Gitea counts it');
    t.equal((await w.api({ url: reviews, as: 'carol' })).json().length, 1, 'its reviewer sees it');
    t.equal((await w.api({ url: reviews, as: 'root' })).json().length, 1, 'a site admin sees it');
    t.equal((await w.api({ url: `${reviews}/${first.json().id}`, as: 'alice' })).statusCode, 404, 'not even the owner sees it');
    t.equal((await w.api({ url: `${reviews}/${first.json().id}` })).statusCode, 404, 'nor anonymous (Gitea answers 500)');
    t.equal((await w.api({ url: `${reviews}/${first.json().id}/comments`, as: 'bob' })).statusCode, 404);
  });

  let commentReview = 0;
  let codeCommentId = 0;
  await t.test('code comments: lines, hunks and commits as Gitea records them', async (t) => {
    const r = await w.api({
      method: 'POST', url: reviews, as: 'alice', body: {
        event: 'COMMENT', body: '', comments: [
          { path: 'code.txt', body: 'new side', new_position: 8 },
          { path: 'code.txt', body: 'old side', old_position: 3 },
          { path: 'code.txt', body: 'unchanged', new_position: 2 },
          { path: 'nope.txt', body: 'nofile', new_position: 1 },
          { path: 'code.txt', body: 'zero' },
        ],
      },
    });
    t.equal(r.statusCode, 200, r.body);
    commentReview = r.json().id;
    t.match(r.json(), { state: 'COMMENT', body: '', commit_id: headSha, comments_count: 5, official: false, stale: false, dismissed: false, team: null });
    const list = await w.api({ url: `${reviews}/${commentReview}/comments` });
    t.equal(list.statusCode, 200);
    const byBody = new Map((list.json() as Array<Record<string, unknown>>).map((c) => [c.body, c]));
    const common = { pull_request_review_id: commentReview, original_commit_id: '', resolver: null, pull_request_url: html };
    t.match(byBody.get('new side'), { ...common, path: 'code.txt', position: 8, original_position: 0, commit_id: headSha, diff_hunk: '@@ -5,2 +5,4 @@\n line5\n line6\n+new a\n+new b' });
    t.match(byBody.get('old side'), { ...common, position: 0, original_position: 3, commit_id: headSha, diff_hunk: '@@ -1,10 +1,11 @@\n line1\n line2\n-line3' });
    t.match(byBody.get('unchanged'), { ...common, position: 2, commit_id: baseSha, diff_hunk: '@@ -1,10 +1,11 @@\n line1\n line2' }, 'an unchanged line: the commit that last changed it');
    t.match(byBody.get('nofile'), { ...common, path: 'nope.txt', position: 1, commit_id: headSha, diff_hunk: '' });
    t.match(byBody.get('zero'), { ...common, position: 0, original_position: 0, diff_hunk: '' });
    const newSide = byBody.get('new side') as { id: number; html_url: string; user: { login: string } };
    codeCommentId = newSide.id;
    t.equal(newSide.html_url, `${html}#issuecomment-${newSide.id}`);
    t.equal(newSide.user.login, 'alice');
    t.notOk((await timeline()).some((c) => c.type === 'code'), 'code comments are not on the timeline');
    t.equal((await w.api({ url: `/api/v1/repos/alice/widget/issues/${index}/comments` })).json().length, 0, 'nor among the issue comments');
  });

  await t.test('comments in a pending review, then submitting it', async (t) => {
    const pending = await w.api({ method: 'POST', url: reviews, as: 'bob', body: { body: 'draft', comments: [{ path: 'code.txt', body: 'first', new_position: 7 }, { path: 'code.txt', body: 'second', new_position: 7 }] } });
    t.equal(pending.statusCode, 200, pending.body);
    t.equal(pending.json().state, 'PENDING');
    const comments = (await w.api({ url: `${reviews}/${pending.json().id}/comments`, as: 'bob' })).json() as Array<{ html_url: string; id: number; diff_hunk: string; commit_id: string }>;
    t.equal(comments.length, 2);
    t.equal(comments[0]!.html_url, `${html}/files#issuecomment-${comments[0]!.id}`, 'a pending code comment links to the files view');
    t.equal(comments[1]!.diff_hunk, comments[0]!.diff_hunk, 'a second comment on the line shares its hunk');
    t.equal(comments[1]!.commit_id, comments[0]!.commit_id);
    const id = pending.json().id as number;
    t.equal((await w.api({ method: 'POST', url: `${reviews}/${id}`, as: 'bob', body: { event: 'PENDING', body: 'x' } })).json().message, 'review stay pending');
    t.equal((await w.api({ method: 'POST', url: `${reviews}/${id}`, as: 'alice', body: { event: 'COMMENT', body: 'x' } })).statusCode, 404, "someone else's pending review");
    const submitted = await w.api({ method: 'POST', url: `${reviews}/${id}`, as: 'bob', body: { event: 'REQUEST_CHANGES', body: 'please' } });
    t.equal(submitted.statusCode, 200, submitted.body);
    t.match(submitted.json(), { id, state: 'REQUEST_CHANGES', body: 'please', official: false, comments_count: 2 });
    const after = (await w.api({ url: `${reviews}/${id}/comments` })).json() as Array<{ html_url: string; id: number }>;
    t.equal(after[0]!.html_url, `${html}#issuecomment-${after[0]!.id}`, 'submitted: links to the conversation');
    const twice = await w.api({ method: 'POST', url: `${reviews}/${id}`, as: 'bob', body: { event: 'COMMENT', body: 'x' } });
    t.equal(twice.statusCode, 422);
    t.equal(twice.json().message, 'only a pending review can be submitted');
  });

  await t.test('verdicts: carol submits her pending review as an approval (a reader: not official)', async (t) => {
    const mine = (await w.api({ url: reviews, as: 'carol' })).json().find((r: { state: string }) => r.state === 'PENDING');
    const noBody = await w.api({ method: 'POST', url: `${reviews}/${mine.id}`, as: 'carol', body: { event: 'COMMENT' } });
    t.equal(noBody.json().message, 'review event COMMENT requires a body or a comment');
    const ok = await w.api({ method: 'POST', url: `${reviews}/${mine.id}`, as: 'carol', body: { event: 'APPROVED', body: 'lgtm' } });
    t.match(ok.json(), { state: 'APPROVED', official: false, commit_id: headSha });
    t.equal((await w.api({ method: 'POST', url: reviews, as: 'dave', body: { event: 'APPROVED' } })).json().message, 'approve your own pull is not allowed');
    const walt = await w.api({ method: 'POST', url: reviews, as: 'alice', body: { event: 'APPROVED', commit_id: baseSha } });
    t.match(walt.json(), { state: 'APPROVED', official: true, stale: true, commit_id: baseSha }, 'the owner approves an older commit: official and stale');
  });

  await t.test('dismissals: repository admins only, verdicts only', async (t) => {
    const list = (await w.api({ url: reviews, as: 'alice' })).json() as Array<{ id: number; state: string; user: { login: string } }>;
    const approval = list.find((r) => r.state === 'APPROVED' && r.user.login === 'carol')!;
    const dave = await w.api({ method: 'POST', url: `${reviews}/${approval.id}/dismissals`, as: 'dave', body: { message: 'nah' } });
    t.equal(dave.statusCode, 403);
    t.equal(dave.json().message, 'Must be repo admin');
    const comment = await w.api({ method: 'POST', url: `${reviews}/${commentReview}/dismissals`, as: 'alice', body: {} });
    t.equal(comment.statusCode, 403);
    t.equal(comment.json().message, "not need to dismiss this review because it's type is not Approve or change request");
    const dismissed = await w.api({ method: 'POST', url: `${reviews}/${approval.id}/dismissals`, as: 'alice', body: { message: 'nah', priors: true } });
    t.equal(dismissed.statusCode, 200, dismissed.body);
    t.equal(dismissed.json().dismissed, true);
    const row = (await timeline()).find((c) => c.type === 'dismiss_review');
    t.match(row, { body: 'nah', review_id: approval.id });
    const restored = await w.api({ method: 'POST', url: `${reviews}/${approval.id}/undismissals`, as: 'alice' });
    t.equal(restored.json().dismissed, false);
    t.equal((await w.api({ method: 'POST', url: `${reviews}/99999/dismissals`, as: 'alice', body: {} })).statusCode, 404);
    t.equal((await w.api({ method: 'POST', url: `${reviews}/${approval.id}/dismissals`, body: {} })).statusCode, 401);
  });

  await t.test('review requests', async (t) => {
    const requests = `${pulls}/requested_reviewers`;
    const made = await w.api({ method: 'POST', url: requests, as: 'dave', body: { reviewers: ['carol'] } });
    t.equal(made.statusCode, 201, made.body);
    t.match(made.json(), [{ state: 'REQUEST_REVIEW', body: '', commit_id: '', html_url: '', official: false, user: { login: 'carol' } }]);
    t.same((await w.api({ method: 'POST', url: requests, as: 'dave', body: { reviewers: ['carol'] } })).json(), [], 'asked once');
    const nobody = await w.api({ method: 'POST', url: requests, as: 'dave', body: { reviewers: ['nobody'] } });
    t.equal(nobody.statusCode, 404);
    t.equal(nobody.json().message, "User 'nobody' not exist");
    const repoId = created.json().base.repo.id as number;
    const poster = await w.api({ method: 'POST', url: requests, as: 'alice', body: { reviewers: ['dave'] } });
    t.equal(poster.statusCode, 422);
    t.equal(poster.json().message, `poster of pr can't be reviewer [user_id: ${w.users.alice.id}, repo_id: ${repoId}]`);
    const stranger = await w.api({ method: 'POST', url: requests, as: 'bob', body: { reviewers: ['alice'] } });
    t.equal(stranger.statusCode, 422);
    t.equal(stranger.json().message, `Doer can't choose reviewer [user_id: ${w.users.bob.id}, repo_id: ${repoId}]`);
    t.equal((await w.api({ method: 'POST', url: requests, as: 'carol', body: { reviewers: ['alice'] } })).statusCode, 201, 'a collaborator (even a reader) may ask');
    t.equal((await w.api({ method: 'POST', url: requests, body: { reviewers: ['alice'] } })).statusCode, 401);
    const pull = (await w.api({ url: pulls })).json();
    t.same(pull.requested_reviewers.map((u: { login: string }) => u.login).sort(), ['alice', 'bob', 'carol'], "Gitea lists every reviewer's latest review or request");
    t.equal(pull.requested_reviewers[0].email.endsWith('@noreply.127.0.0.1'), true, 'as seen by nobody in particular');
    t.equal((await w.api({ method: 'DELETE', url: requests, as: 'dave', body: { reviewers: ['carol'] } })).statusCode, 204);
    t.equal((await w.api({ method: 'DELETE', url: requests, as: 'dave', body: { reviewers: ['carol'] } })).statusCode, 204, 'nothing left to remove');
    const events = (await timeline()).filter((c) => c.type === 'review_request');
    t.same(events.map((c) => [(c.assignee as { login: string }).login, c.removed_assignee]), [['carol', false], ['alice', false], ['carol', true]]);
  });

  await t.test('resolving a code comment conversation', async (t) => {
    const resolve = `/api/v1/repos/alice/widget/pulls/comments/${codeCommentId}/resolve`;
    const reader = await w.api({ method: 'POST', url: resolve, as: 'carol' });
    t.equal(reader.statusCode, 403);
    t.equal(reader.json().message, 'user should have permission to resolve comment');
    t.equal((await w.api({ method: 'POST', url: resolve, as: 'dave' })).statusCode, 204, 'the poster of the pull request');
    const resolved = (await w.api({ url: `${reviews}/${commentReview}/comments` })).json().find((c: { id: number }) => c.id === codeCommentId);
    t.equal(resolved.resolver.login, 'dave');
    t.equal((await w.api({ method: 'POST', url: resolve.replace('/resolve', '/unresolve'), as: 'alice' })).statusCode, 204);
    t.equal((await w.api({ url: `${reviews}/${commentReview}/comments` })).json().find((c: { id: number }) => c.id === codeCommentId).resolver, null);
    const reviewRow = (await timeline()).find((c) => c.type === 'review')!;
    const notCode = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/comments/${reviewRow.id}/resolve`, as: 'alice' });
    t.equal(notCode.statusCode, 400);
    t.equal(notCode.json().message, 'comment is not a review comment');
    t.equal((await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls/comments/99999/resolve', as: 'alice' })).statusCode, 404);
  });

  await t.test('deleting a review takes its code comments and timeline rows', async (t) => {
    const before = (await w.api({ url: `/api/v1/repos/alice/widget/issues/${index}` })).json().comments as number;
    t.equal((await w.api({ method: 'DELETE', url: `${reviews}/${commentReview}`, as: 'carol' })).statusCode, 403, 'not the reviewer');
    t.equal((await w.api({ method: 'DELETE', url: `${reviews}/${commentReview}`, as: 'alice' })).statusCode, 204);
    t.equal((await w.api({ url: `${reviews}/${commentReview}` })).statusCode, 404);
    t.equal(await w.db('comments').where({ review_id: commentReview }).count({ n: '*' }).first().then((r) => Number(r?.n)), 0);
    const after = (await w.api({ url: `/api/v1/repos/alice/widget/issues/${index}` })).json().comments as number;
    t.equal(after, before - 1, 'the conversation count follows (review rows count, as in Gitea)');
    t.equal((await w.api({ method: 'DELETE', url: `${reviews}/0`, as: 'alice' })).statusCode, 404);
  });

  await t.test('a closed pull request takes no verdict', async (t) => {
    t.equal((await w.api({ method: 'PATCH', url: pulls, as: 'dave', body: { state: 'closed' } })).statusCode, 201);
    const r = await w.api({ method: 'POST', url: reviews, as: 'alice', body: { event: 'APPROVED' } });
    t.equal(r.statusCode, 422);
    t.equal(r.json().message, "can't submit review for a closed or merged PR");
    t.equal((await w.api({ method: 'POST', url: reviews, as: 'alice', body: { event: 'COMMENT', body: 'still talking' } })).statusCode, 200, 'comments still go in');
  });
});

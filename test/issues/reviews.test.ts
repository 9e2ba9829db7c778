// Reviews (official verdicts, approval state for branch protection) and the workflow notifications
// that reviews and commit statuses send to a pull request's workflow.
import t from 'tap';
import { approvalState } from '../../core/reviews.js';
import { startWorld, type World } from './world.js';

/** A pull request row over an issue made through the API; the pull request API is not needed here. */
async function makePull(w: World, poster: string): Promise<{ issueId: number; index: number; repoId: number }> {
  const r = await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/issues', as: poster, body: { title: 'change' } });
  const issue = r.json();
  const repoId = Number(issue.repository.id);
  await w.db('issues').where({ id: issue.id }).update({ is_pull: true });
  await w.db('pull_requests').insert({
    issue_id: issue.id, index: issue.number, base_repo_id: repoId, head_repo_id: repoId, base_branch: 'main', head_branch: 'feature',
    head_commit_id: w.headSha, conflicted_files: '[]',
  });
  return { issueId: Number(issue.id), index: Number(issue.number), repoId };
}

t.test('reviews over HTTP', async (t) => {
  const w = await startWorld(t, { temporal: true });
  const pull = await makePull(w, 'rita');
  const reviews = `/api/v1/repos/alice/demo/pulls/${pull.index}/reviews`;

  const approved = await w.api({ method: 'POST', url: reviews, as: 'walt', body: { event: 'APPROVED', body: 'lgtm' } });
  t.equal(approved.statusCode, 200, approved.body);
  t.match(approved.json(), { state: 'APPROVED', official: true, stale: false, dismissed: false, commit_id: w.headSha, body: 'lgtm', team: null });
  t.equal(approved.json().user.login, 'walt');
  t.equal(approved.json().pull_request_url, `${w.config.APP_URL}alice/demo/pulls/${pull.index}`);

  const outsider = await w.api({ method: 'POST', url: reviews, as: 'sam', body: { event: 'APPROVED' } });
  t.equal(outsider.statusCode, 200);
  t.equal(outsider.json().official, false, 'no write access: not official');

  t.equal((await w.api({ method: 'POST', url: reviews, as: 'rita', body: { event: 'APPROVED' } })).statusCode, 422, 'own pull');
  t.equal((await w.api({ method: 'POST', url: reviews, as: 'walt', body: { event: 'REQUEST_CHANGES' } })).statusCode, 422, 'needs a body');
  t.equal((await w.api({ method: 'POST', url: reviews, as: 'walt', body: { event: 'MERGE_IT' } })).statusCode, 422);
  t.equal((await w.api({ method: 'POST', url: reviews, body: { event: 'APPROVED' } })).statusCode, 401);
  t.equal((await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/pulls/9999/reviews', as: 'walt', body: { event: 'APPROVED' } })).statusCode, 404);
  const plainIssue = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/issues', as: 'walt', body: { title: 'not a pull' } })).json();
  t.equal((await w.api({ url: `/api/v1/repos/alice/demo/pulls/${plainIssue.number}/reviews` })).statusCode, 404, 'issues have no reviews');

  let state = await approvalState(w.db, pull.issueId, w.headSha, { required_approvals: 1, block_on_rejected_reviews: true });
  t.match(state, { approvals: 1, rejected: false, satisfied: true });
  t.equal((await approvalState(w.db, pull.issueId, w.headSha, { required_approvals: 2 })).satisfied, false);
  t.equal((await approvalState(w.db, pull.issueId, 'f'.repeat(40), { required_approvals: 1, ignore_stale_approvals: true })).approvals, 0, 'stale approvals ignored');

  // The same reviewer changes their mind: only the latest verdict counts.
  const rejected = await w.api({ method: 'POST', url: reviews, as: 'walt', body: { event: 'REQUEST_CHANGES', body: 'wait' } });
  t.equal(rejected.json().official, true);
  state = await approvalState(w.db, pull.issueId, w.headSha, { required_approvals: 1, block_on_rejected_reviews: true });
  t.match(state, { approvals: 0, rejected: true, satisfied: false });
  t.equal((await w.api({ method: 'POST', url: reviews, as: 'alice', body: { event: 'COMMENT', body: 'hm' } })).json().official, false, 'comments are never official');

  const list = await w.api({ url: reviews });
  t.equal(list.statusCode, 200);
  t.equal(list.headers['x-total-count'], '4');
  t.same(list.json().map((r: { state: string }) => r.state), ['APPROVED', 'APPROVED', 'REQUEST_CHANGES', 'COMMENT']);

  // Both notifications reached the pull request's workflow (signal-with-start creates it).
  const handle = w.pullWorkflows!.client.workflow.getHandle(w.pullWorkflows!.workflowId({ repoId: pull.repoId, index: pull.index }));
  t.ok(await handle.describe(), 'reviewsChanged started the workflow');
  const posted = await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/statuses/${w.headSha}`, as: 'walt', body: { state: 'success', context: 'ci' } });
  t.equal(posted.statusCode, 201);
  const history = await handle.fetchHistory();
  const signals = (history.events ?? []).flatMap((e) => (e.workflowExecutionSignaledEventAttributes ? [e.workflowExecutionSignaledEventAttributes.signalName] : []));
  const started = (history.events ?? [])[0]?.workflowExecutionStartedEventAttributes;
  t.ok(started, 'history has a start');
  t.ok(signals.includes('checksChanged'), `checksChanged signalled (signals: ${signals.join(',')})`);

  t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/demo', as: 'alice', body: { archived: true } })).statusCode, 200);
  t.equal((await w.api({ method: 'POST', url: reviews, as: 'walt', body: { event: 'APPROVED' } })).statusCode, 423);
});

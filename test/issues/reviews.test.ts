// Reviews (official verdicts, approval state for branch protection) and the workflow notifications
// that reviews and commit statuses send to a pull request's workflow.
import t from 'tap';
import { approvalState } from '../../core/reviews.js';
import { startWorld, type World } from './world.js';

/** A pull request row over an issue made through the API; the pull request API is not needed here. */
async function makePull(w: World, poster: string, repo = 'alice/demo'): Promise<{ issueId: number; index: number; repoId: number }> {
  const r = await w.api({ method: 'POST', url: `/api/v1/repos/${repo}/issues`, as: poster, body: { title: 'change' } });
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
  const noBody = await w.api({ method: 'POST', url: reviews, as: 'walt', body: { event: 'REQUEST_CHANGES' } });
  t.equal(noBody.statusCode, 422, 'needs a body');
  t.equal(noBody.json().message, 'review event REQUEST_CHANGES requires a body');
  t.equal((await w.api({ method: 'POST', url: reviews, as: 'walt', body: { event: 'MERGE_IT' } })).json().message, 'review event MERGE_IT requires a body', 'an unknown event is a pending review, which needs a body');
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
  t.same(list.json().map((r: { dismissed: boolean }) => r.dismissed), [true, false, false, false], "a reviewer's new verdict dismisses their earlier one, as Gitea's CreateReview does");
  const got = await w.api({ url: `${reviews}/${approved.json().id}` });
  t.equal(got.statusCode, 200, 'a listed review is found by id');
  t.match(got.json(), { id: approved.json().id, state: 'APPROVED', html_url: `${w.config.APP_URL}alice/demo/pulls/${pull.index}#issuecomment-${(await w.db('comments').where({ review_id: approved.json().id, type: 'review' }).first('id')).id}` });
  t.equal((await w.api({ url: `${reviews}/999999` })).statusCode, 404);
  t.equal((await w.api({ url: `/api/v1/repos/alice/demo/pulls/${plainIssue.number}/reviews/${approved.json().id}` })).statusCode, 404, 'a review of another pull request');

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

t.test('team review requests in an organization', async (t) => {
  const w = await startWorld(t, { temporal: false });
  t.equal((await w.api({ method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme' } })).statusCode, 201);
  t.equal((await w.api({ method: 'POST', url: '/api/v1/orgs/acme/repos', as: 'alice', body: { name: 'app' } })).statusCode, 201);
  const team = await w.api({ method: 'POST', url: '/api/v1/orgs/acme/teams', as: 'alice', body: { name: 'Reviewers', permission: 'write', includes_all_repositories: true, units: ['repo.code', 'repo.pulls', 'repo.issues'] } });
  t.equal(team.statusCode, 201, team.body);
  t.equal((await w.api({ method: 'PUT', url: `/api/v1/teams/${team.json().id}/members/walt`, as: 'alice' })).statusCode, 204);
  const pull = await makePull(w, 'rita', 'acme/app');
  const requests = `/api/v1/repos/acme/app/pulls/${pull.index}/requested_reviewers`;

  const made = await w.api({ method: 'POST', url: requests, as: 'rita', body: { team_reviewers: ['reviewers'] } });
  t.equal(made.statusCode, 201, made.body);
  t.match(made.json(), [{ state: 'REQUEST_REVIEW', user: null, team: { id: team.json().id, name: 'Reviewers', organization: null } }]);
  t.same((await w.api({ method: 'POST', url: requests, as: 'rita', body: { team_reviewers: ['Reviewers'] } })).json(), [], 'asked once (names match case-insensitively)');
  const unknown = await w.api({ method: 'POST', url: requests, as: 'rita', body: { team_reviewers: ['nobody'] } });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().message, "Team 'nobody' not exist");
  const teams = (await w.api({ url: `/api/v1/repos/acme/app/pulls/${pull.index}` })).json().requested_reviewers_teams;
  t.match(teams, [{ name: 'Reviewers', organization: { name: 'acme' } }], 'the pull request lists the team with its organization');
  t.equal((await w.api({ method: 'POST', url: requests, as: 'sam', body: { team_reviewers: ['reviewers'] } })).statusCode, 422, "a stranger can't choose reviewers");

  // A member's verdict answers the team's request.
  const approved = await w.api({ method: 'POST', url: `/api/v1/repos/acme/app/pulls/${pull.index}/reviews`, as: 'walt', body: { event: 'APPROVED' } });
  t.equal(approved.json().official, true, 'a team member who may write is official');
  t.same((await w.api({ url: `/api/v1/repos/acme/app/pulls/${pull.index}` })).json().requested_reviewers_teams, []);
  t.equal((await w.api({ method: 'POST', url: requests, as: 'rita', body: { team_reviewers: ['reviewers'] } })).statusCode, 201);
  t.equal((await w.api({ method: 'DELETE', url: requests, as: 'rita', body: { team_reviewers: ['reviewers'] } })).statusCode, 204);
  const timeline = (await w.api({ url: `/api/v1/repos/acme/app/issues/${pull.index}/timeline` })).json() as Array<{ type: string; assignee_team: { name: string } | null; removed_assignee: boolean }>;
  t.same(timeline.filter((c) => c.type === 'review_request').map((c) => [c.assignee_team?.name, c.removed_assignee]), [['Reviewers', false], ['Reviewers', false], ['Reviewers', true]]);
  // In a user's repository team names are ignored, as Gitea ignores them.
  const own = await makePull(w, 'rita');
  t.same((await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/pulls/${own.index}/requested_reviewers`, as: 'alice', body: { team_reviewers: ['reviewers'] } })).json(), []);
});

t.test('reviews of a private repository: hidden from those who may not read it', async (t) => {
  const w = await startWorld(t, { temporal: false });
  const pull = await makePull(w, 'rita', 'alice/secret');
  const reviews = `/api/v1/repos/alice/secret/pulls/${pull.index}/reviews`;
  const made = await w.api({ method: 'POST', url: reviews, as: 'walt', body: { event: 'APPROVED' } });
  t.equal(made.statusCode, 200, made.body);
  for (const [who, status] of [[null, 404], ['sam', 404], ['rita', 200], ['walt', 200], ['alice', 200]] as const) {
    t.equal((await w.api({ url: reviews, as: who })).statusCode, status, `list as ${who ?? 'anonymous'}`);
    t.equal((await w.api({ url: `${reviews}/${made.json().id}`, as: who })).statusCode, status, `get as ${who ?? 'anonymous'}`);
    t.equal((await w.api({ url: `${reviews}/${made.json().id}/comments`, as: who })).statusCode, status, `comments as ${who ?? 'anonymous'}`);
  }
  t.equal((await w.api({ method: 'POST', url: reviews, as: 'sam', body: { event: 'COMMENT', body: 'x' } })).statusCode, 404);
  t.equal((await w.api({ method: 'POST', url: `${reviews}/${made.json().id}/dismissals`, as: 'sam', body: {} })).statusCode, 404);
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/secret/pulls/${pull.index}/requested_reviewers`, as: 'sam', body: { reviewers: ['walt'] } })).statusCode, 404);
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/secret/pulls/${pull.index}/requested_reviewers`, as: 'walt', body: { reviewers: ['sam'] } })).json().message,
    `Reviewer can't read [user_id: ${(await w.db('users').where({ lower_name: 'walt' }).first('id')).id}, repo_id: ${pull.repoId}]`, 'nobody is asked to review what they cannot read');
  t.equal((await w.api({ method: 'DELETE', url: `${reviews}/${made.json().id}`, as: 'rita' })).statusCode, 403, 'a reader cannot delete the review of another');
});

// Every event a Gitea hook hears, caused through the API and git, arrives at a real receiver with
// Gitea's headers, a valid signature and Gitea's payload shape, in the order the changes happened.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../app/paths.js';
import t, { type Test } from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { payloadOf, Receiver, signatureOf, type Received } from './receiver.js';
import { checkWithGiteaStructs } from './gitea-structs.js';
import { webhookIdKey, webhookOwnerKey } from '../../workflows/webhook-messages.js';

const SECRET = 'hook-secret';
let w: PullWorld;
const receiver = new Receiver();
let seen = 0;

t.before(async () => {
  await receiver.start();
  w = await pullWorld(t, { env: { WEBHOOK_ALLOWED_HOST_LIST: 'loopback' } });
  const made = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/hooks', as: 'alice', body: {
    type: 'gitea', active: true, config: { url: receiver.url, content_type: 'json', secret: SECRET },
    events: ['create', 'delete', 'push', 'issues', 'issue_comment', 'pull_request', 'status'],
  } });
  t.equal(made.statusCode, 201, made.body);
});
t.teardown(async () => {
  // WEBHOOK_PAYLOAD_DUMP=<file> keeps what arrived, to compare with a reference Gitea's deliveries.
  if (process.env.WEBHOOK_PAYLOAD_DUMP) writeFileSync(process.env.WEBHOOK_PAYLOAD_DUMP, receiver.received.map((r) => JSON.stringify(r)).join('\n'));
  await receiver.stop();
});

/** The deliveries caused since the last call: waits for `count` of them, checks headers and signature. */
async function next(t: Test, count: number): Promise<Array<{ r: Received; event: string; type: string; p: Record<string, any> }>> {
  const got = (await receiver.waitFor(seen + count)).slice(seen, seen + count);
  seen += got.length;
  t.equal(got.length, count, `${count} deliveries arrived`);
  return got.map((r) => {
    t.equal(r.headers['X-Gitea-Signature'], signatureOf(r.body, SECRET), 'signed with the secret');
    t.equal(r.headers['X-Hub-Signature-256'], `sha256=${signatureOf(r.body, SECRET)}`);
    t.equal(r.headers['X-GitHub-Event'], r.headers['X-Gitea-Event']);
    t.equal(r.headers['X-Gogs-Event-Type'], r.headers['X-Gitea-Event-Type']);
    t.match(r.headers['X-Gitea-Delivery'], /^[0-9a-f-]{36}$/);
    t.equal(r.headers['Content-Type'], 'application/json');
    return { r, event: r.headers['X-Gitea-Event']!, type: r.headers['X-Gitea-Event-Type']!, p: payloadOf(r) as Record<string, any> };
  });
}

const kinds = (got: Array<{ event: string; type: string; p: Record<string, any> }>) => got.map((g) => `${g.type}/${g.p.action ?? ''}`);

let index = 0;

t.test('push: a new branch is create then push; a moved branch is push', async (t) => {
  const sha = await w.pushBranch('feature', { 'feature.txt': 'one\n' });
  const [create, push] = await next(t, 2);
  t.equal(create!.event, 'create');
  t.match(create!.p, { sha, ref: 'feature', ref_type: 'branch', repository: { full_name: 'alice/widget' }, sender: { login: 'alice' } });
  t.equal(push!.event, 'push');
  t.match(push!.p, { ref: 'refs/heads/feature', after: sha, total_commits: 2, pusher: { login: 'alice' }, sender: { login: 'alice' }, repository: { permissions: { admin: true } } });
  t.match(push!.p.before, /^0{40}$/);
  t.match(push!.p.head_commit, { id: sha, added: ['feature.txt'], removed: [], modified: [], verification: null, author: { name: 'Tester', email: 'tester@example.com', username: '' } });
  t.match(push!.p.compare_url, /\/alice\/widget\/compare\/main\.\.\.[0-9a-f]{40}$/, 'a new branch from the first commit compares with the default branch, as Gitea does');
  const again = await w.pushBranch('feature', { 'feature.txt': 'two\n' });
  const [moved] = await next(t, 1);
  t.match(moved!.p, { ref: 'refs/heads/feature', before: sha, after: again, total_commits: 1, commits: [{ id: again, modified: ['feature.txt'] }] });
});

t.test('pull request: opened, synchronized, edited, labels, assignees, milestones, review requests, reviews, base change', async (t) => {
  const opened = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'feature', base: 'main', title: 'Add feature', body: 'first body' } });
  t.equal(opened.statusCode, 201, opened.body);
  index = opened.json().number;
  const [o] = await next(t, 1);
  t.same(kinds([o!]), ['pull_request/opened']);
  t.match(o!.p, { number: index, pull_request: { number: index, title: 'Add feature', head: { ref: 'feature' }, base: { ref: 'main' }, state: 'open' }, requested_reviewer: null, review: null, commit_id: '' });
  t.notOk('changes' in o!.p, 'no changes on opening (omitempty)');

  const head = await w.pushBranch('feature', { 'more.txt': 'more\n' });
  const sync = await next(t, 2);
  t.same(kinds(sync), ['push/', 'pull_request_sync/synchronized']);
  t.equal(sync[1]!.event, 'pull_request');
  t.equal(sync[1]!.p.pull_request.head.sha, head, 'the new head');

  const edit = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { title: 'Add the feature', body: 'second body' } });
  t.equal(edit.statusCode, 201, edit.body);
  const edited = await next(t, 2);
  t.same(kinds(edited), ['pull_request/edited', 'pull_request/edited']);
  t.same(edited[0]!.p.changes, { title: { from: 'Add feature' }, added_labels: null, removed_labels: null });
  t.same(edited[1]!.p.changes, { body: { from: 'first body' }, added_labels: null, removed_labels: null });

  const label = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/labels', as: 'alice', body: { name: 'bug', color: 'ff0000' } });
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/issues/${index}/labels`, as: 'alice', body: { labels: [label.json().id] } })).statusCode, 200);
  const [labelled] = await next(t, 1);
  t.same(kinds([labelled!]), ['pull_request_label/label_updated']);
  t.match(labelled!.p.pull_request.labels, [{ name: 'bug' }]);
  t.equal(labelled!.event, 'pull_request');

  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { assignees: ['dave'] } })).statusCode, 201);
  t.same(kinds(await next(t, 1)), ['pull_request_assign/assigned']);
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { assignees: [] } })).statusCode, 201);
  t.same(kinds(await next(t, 1)), ['pull_request_assign/unassigned']);

  const milestone = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/milestones', as: 'alice', body: { title: 'v1' } });
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { milestone: milestone.json().id } })).statusCode, 201);
  const [ms] = await next(t, 1);
  t.same(kinds([ms!]), ['pull_request_milestone/milestoned']);
  t.match(ms!.p.pull_request.milestone, { title: 'v1' });

  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${index}/requested_reviewers`, as: 'alice', body: { reviewers: ['carol'] } })).statusCode, 201);
  const [asked] = await next(t, 1);
  t.same(kinds([asked!]), ['pull_request_review_request/review_requested']);
  t.match(asked!.p.requested_reviewer, { login: 'carol' });
  t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${index}/requested_reviewers`, as: 'alice', body: { reviewers: ['carol'] } })).statusCode, 204);
  t.same(kinds(await next(t, 1)), ['pull_request_review_request/review_request_removed']);

  for (const [who, event, type, header] of [
    ['dave', 'APPROVED', 'pull_request_review_approved', 'pull_request_approved'],
    ['carol', 'COMMENT', 'pull_request_review_comment', 'pull_request_comment'],
    ['dave', 'REQUEST_CHANGES', 'pull_request_review_rejected', 'pull_request_rejected'],
  ] as const) {
    const review = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${index}/reviews`, as: who, body: { event, body: `${event} by ${who}` } });
    t.equal(review.statusCode, 200, review.body);
    const [r] = await next(t, 1);
    t.equal(r!.type, type);
    t.equal(r!.event, header, `X-Gitea-Event ${header}`);
    t.match(r!.p, { action: 'reviewed', number: index, review: { type, content: `${event} by ${who}` }, requested_reviewer: { login: who }, sender: { login: who } });
  }

  t.equal((await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branches', as: 'alice', body: { new_branch_name: 'develop', old_branch_name: 'main' } })).statusCode, 201);
  t.same(kinds(await next(t, 2)), ['create/', 'push/'], 'a branch made through the API is created and pushed');
  const rebased = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { base: 'develop' } });
  t.equal(rebased.statusCode, 201, rebased.body);
  const [retarget] = await next(t, 1);
  t.same(kinds([retarget!]), ['pull_request/edited']);
  t.same(retarget!.p.changes, { ref: { from: 'main' }, added_labels: null, removed_labels: null });
  t.equal(retarget!.p.pull_request.base.ref, 'develop');
});

t.test('pull request comments are issue_comment events with the pull request', async (t) => {
  const made = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/issues/${index}/comments`, as: 'bob', body: { body: 'nice work' } });
  t.equal(made.statusCode, 201, made.body);
  const [c] = await next(t, 1);
  t.equal(c!.type, 'pull_request_comment');
  t.equal(c!.event, 'issue_comment');
  t.match(c!.p, { action: 'created', is_pull: true, comment: { body: 'nice work', user: { login: 'bob' } }, pull_request: { number: index }, issue: { number: index } });
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/issues/comments/${made.json().id}`, as: 'bob', body: { body: 'very nice work' } })).statusCode, 200);
  const [e] = await next(t, 1);
  t.match(e!.p, { action: 'edited', comment: { body: 'very nice work' }, changes: { body: { from: 'nice work' } } });
  t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/issues/comments/${made.json().id}`, as: 'bob' })).statusCode, 204);
  const [d] = await next(t, 1);
  t.match(d!.p, { action: 'deleted', comment: { id: made.json().id, body: 'very nice work' } });
});

t.test('close, reopen, merge', async (t) => {
  for (const state of ['closed', 'open'] as const) {
    t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${index}`, as: 'alice', body: { state } })).statusCode, 201);
    const [s] = await next(t, 1);
    t.same(kinds([s!]), [`pull_request/${state === 'closed' ? 'closed' : 'reopened'}`]);
    t.equal(s!.p.pull_request.state, state);
  }
  const merged = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${index}/merge`, as: 'alice', body: { Do: 'merge', force_merge: true } });
  t.equal(merged.statusCode, 200, merged.body);
  const got = await next(t, 2);
  t.same(kinds(got), ['push/', 'pull_request/closed']);
  t.equal(got[0]!.p.ref, 'refs/heads/develop');
  t.match(got[1]!.p, { pull_request: { merged: true, state: 'closed', merged_by: { login: 'alice' } }, sender: { login: 'alice' } });
  t.equal(got[0]!.p.after, got[1]!.p.pull_request.merge_commit_sha, 'the base moved to the merge commit');
  t.match(got[0]!.p.head_commit, { author: { email: 'alice@example.com', username: 'alice' } }, 'commit authors are matched to accounts by e-mail');
});

t.test('issues: opened, edited, assigned, labelled, milestoned, commented, closed, reopened', async (t) => {
  const made = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/issues', as: 'alice', body: { title: 'A bug', body: 'it breaks', assignees: ['dave'] } });
  t.equal(made.statusCode, 201, made.body);
  const n = made.json().number;
  const opened = await next(t, 2);
  t.same(kinds(opened), ['issue_assign/assigned', 'issues/opened']);
  t.equal(opened[1]!.event, 'issues');
  t.match(opened[1]!.p, { number: n, issue: { number: n, title: 'A bug', assignees: [{ login: 'dave' }] }, commit_id: '' });
  t.notOk('pull_request' in opened[1]!.p, 'an issue payload has no pull request');

  const milestone = (await w.api({ url: '/api/v1/repos/alice/widget/milestones', as: 'alice' })).json()[0];
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/issues/${n}`, as: 'alice', body: { title: 'A big bug', body: 'it really breaks', milestone: milestone.id, assignees: [] } })).statusCode, 201);
  t.same(kinds(await next(t, 4)), ['issues/edited', 'issues/edited', 'issue_assign/unassigned', 'issue_milestone/milestoned']);
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/issues/${n}`, as: 'alice', body: { milestone: 0 } })).statusCode, 201);
  t.same(kinds(await next(t, 1)), ['issue_milestone/demilestoned']);
  t.equal((await w.api({ method: 'PUT', url: `/api/v1/repos/alice/widget/issues/${n}/labels`, as: 'alice', body: { labels: ['bug'] } })).statusCode, 200);
  t.same(kinds(await next(t, 1)), ['issue_label/label_updated']);
  t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/issues/${n}/labels`, as: 'alice' })).statusCode, 204);
  t.same(kinds(await next(t, 1)), ['issue_label/label_cleared']);
  t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/issues/${n}/comments`, as: 'carol', body: { body: 'me too' } })).statusCode, 201);
  const [c] = await next(t, 1);
  t.equal(c!.type, 'issue_comment');
  t.match(c!.p, { action: 'created', is_pull: false, comment: { body: 'me too' } });
  t.notOk('pull_request' in c!.p);
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/issues/${n}`, as: 'alice', body: { state: 'closed' } })).statusCode, 201);
  t.same(kinds(await next(t, 1)), ['issues/closed']);
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/issues/${n}`, as: 'alice', body: { state: 'open' } })).statusCode, 201);
  t.same(kinds(await next(t, 1)), ['issues/reopened']);
});

t.test('status, tags and deleted branches', async (t) => {
  const sha = (await w.api({ url: '/api/v1/repos/alice/widget/branches/main', as: 'alice' })).json().commit.id;
  const status = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${sha}`, as: 'alice', body: { state: 'success', context: 'ci/build', target_url: 'https://ci.example.com/1', description: 'green' } });
  t.equal(status.statusCode, 201, status.body);
  const [s] = await next(t, 1);
  t.equal(s!.event, 'status');
  t.match(s!.p, { sha, state: 'success', context: 'ci/build', description: 'green', target_url: 'https://ci.example.com/1', commit: { id: sha }, sender: { login: 'alice' } });

  t.equal((await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/tags', as: 'alice', body: { tag_name: 'v1.0', target: 'main' } })).statusCode, 201);
  const tag = await next(t, 2);
  t.same(kinds(tag), ['push/', 'create/']);
  t.match(tag[0]!.p, { ref: 'refs/tags/v1.0', commits: [], total_commits: 0, head_commit: { id: sha } });
  t.match(tag[1]!.p, { ref: 'v1.0', ref_type: 'tag' });
  t.equal((await w.api({ method: 'DELETE', url: '/api/v1/repos/alice/widget/tags/v1.0', as: 'alice' })).statusCode, 204);
  const untag = await next(t, 2);
  t.same(kinds(untag), ['push/', 'delete/']);
  t.match(untag[0]!.p, { ref: 'refs/tags/v1.0', head_commit: null });
  t.match(untag[0]!.p.after, /^0{40}$/);
  t.match(untag[1]!.p, { ref: 'v1.0', ref_type: 'tag', pusher_type: 'user' });
  t.equal((await w.api({ method: 'DELETE', url: '/api/v1/repos/alice/widget/branches/feature', as: 'alice' })).statusCode, 204);
  const [gone] = await next(t, 1);
  t.same(kinds([gone!]), ['delete/']);
  t.match(gone!.p, { ref: 'feature', ref_type: 'branch' });
});

t.test('every delivery has its own id, and the deliveries list agrees with what arrived', async (t) => {
  const ids = receiver.received.map((r) => r.headers['X-Gitea-Delivery']);
  t.equal(new Set(ids).size, ids.length, 'no delivery id twice');
  const hook = (await w.api({ url: '/api/v1/repos/alice/widget/hooks', as: 'alice' })).json()[0];
  const listed = await w.api({ url: `/api/v1/repos/alice/widget/hooks/${hook.id}/deliveries?limit=50`, as: 'alice' });
  t.equal(Number(listed.headers['x-total-count']), receiver.received.length);
  t.ok(listed.json().every((d: { status: string }) => d.status === 'delivered'));
});

t.test("Gitea's own payload structs decode every payload: no unknown field at any depth, types right, required fields there", async (t) => {
  t.ok(receiver.received.length >= 40, `${receiver.received.length} payloads`);
  const { status, output } = await checkWithGiteaStructs(receiver.received);
  t.equal(status, 0, output);
  t.match(output, new RegExp(`checked ${receiver.received.length} payloads`));
});

t.test("the Temporal UI finds the hook's delivery workflow by its search attributes and reads its memo", async (t) => {
  const hook = (await w.api({ url: '/api/v1/repos/alice/widget/hooks', as: 'alice' })).json()[0];
  const handle = w.pullWorkflows!.client.workflow.getHandle(`${w.config.TEMPORAL_WORKFLOW_ID_PREFIX}webhook/${hook.id}`);
  const described = await handle.describe();
  t.equal(described.typedSearchAttributes.get(webhookIdKey), hook.id);
  t.equal(described.typedSearchAttributes.get(webhookOwnerKey), 'alice/widget');
  t.match(described.memo, { target: receiver.url, owner: 'alice/widget', lastOutcome: /^delivered: HTTP 200/ });
  t.match(String(described.memo?.lastDelivery), /^[0-9a-f-]{36}$/);
});

t.test("every payload has Gitea's fields in Gitea's order, where a Gitea 1.26.4 sent the same kind", async (t) => {
  const fixture = JSON.parse(readFileSync(join(projectRoot, 'test', 'fixtures', 'gitea-webhook-payloads.json'), 'utf8')) as { payloads: Record<string, unknown> };
  const problems: string[] = [];
  // Objects must have exactly Gitea's keys in Gitea's order; a null on either side (an empty
  // milestone, say) and an empty list say nothing about shape.
  const compare = (theirs: unknown, ours: unknown, path: string) => {
    if (theirs === null || ours === null || typeof theirs !== 'object' || typeof ours !== 'object') return;
    if (Array.isArray(theirs)) {
      if (Array.isArray(ours) && theirs.length && ours.length) compare(theirs[0], ours[0], `${path}[]`);
      return;
    }
    const [a, b] = [Object.keys(theirs), Object.keys(ours)];
    if (a.join() !== b.join()) problems.push(`${path}: Gitea ${a.join()} / ours ${b.join()}`);
    for (const k of a) if (k in (ours as object)) compare((theirs as Record<string, unknown>)[k], (ours as Record<string, unknown>)[k], `${path}.${k}`);
  };
  let compared = 0;
  for (const r of receiver.received) {
    const p = payloadOf(r);
    const kind = `${r.headers['X-Gitea-Event-Type']}/${(p.action as string | undefined) ?? ''}`;
    if (!(kind in fixture.payloads)) continue;
    compared++;
    compare(fixture.payloads[kind], p, kind);
  }
  t.ok(compared >= 10, `${compared} payloads compared`);
  t.same([...new Set(problems)], []);
});

// The pure rules of webhooks: which events a hook chooses and hears, Gitea's branch filter globs,
// the header each event is sent under, the request's headers and signatures, retry decisions.
import t from 'tap';
import { branchFilterPasses, compileGlob } from '../../core/webhooks/branch-filter.js';
import { backoffMs, judgeAttempt, nextAttemptAt } from '../../core/webhooks/delivery-policy.js';
import { chooseEvents, headerEvent, hookHears } from '../../core/webhooks/events.js';
import { deliveryRequest, displayUrl, recordedHeaders } from '../../core/webhooks/request.js';
import { payloadText } from '../../core/webhooks/payloads/context.js';
import { signatureOf } from './receiver.js';

t.test('events are chosen and heard as Gitea reads them', async (t) => {
  t.same(chooseEvents([]), ['push']);
  t.same(chooseEvents(undefined), ['push']);
  t.same(chooseEvents(['ISSUES']), ['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment']);
  t.same(chooseEvents(['issue_comment', 'bogus']), ['issue_comment']);
  t.same(chooseEvents(['pull_request_review']), ['pull_request_review']);
  t.ok(hookHears(['pull_request_review'], 'pull_request_review_rejected'), 'the three review kinds are chosen as one');
  t.notOk(hookHears(['pull_request'], 'pull_request_sync'));
  t.equal(headerEvent('pull_request_sync'), 'pull_request');
  t.equal(headerEvent('pull_request_comment'), 'issue_comment');
  t.equal(headerEvent('pull_request_review_comment'), 'pull_request_comment');
  t.equal(headerEvent('issue_label'), 'issues');
  t.same(chooseEvents(['Merge_Group', 'push']), ['push', 'merge_group'], 'the merge queue event is chosen on its own');
  t.notOk(chooseEvents(['pull_request']).includes('merge_group'), 'pull_request (which has enqueued/dequeued) does not switch it on');
  t.equal(headerEvent('merge_group'), 'merge_group');
});

t.test("branch filters are Gitea's globs over the branch name or the full ref", async (t) => {
  for (const [filter, ref, passes] of [
    ['', 'refs/heads/x', true], ['*', 'refs/tags/v1', true], ['**', 'refs/heads/a/b', true],
    ['main', 'refs/heads/main', true], ['main', 'refs/heads/maint', false],
    ['{main,release/*}', 'refs/heads/release/1.0', true], ['{main,release/*}', 'refs/heads/feature', false],
    ['feature-?', 'refs/heads/feature-a', true], ['feature-[!a]', 'refs/heads/feature-a', false],
    ['refs/tags/v*', 'refs/tags/v1.2', true], ['v*', 'refs/tags/v1.2', false], ['a.b', 'refs/heads/axb', false],
    ['[', 'refs/heads/x', false],
  ] as const) t.equal(branchFilterPasses(filter, ref), passes, `${filter} on ${ref}`);
  t.throws(() => compileGlob('[ab'), /unterminated character class/);
  t.throws(() => compileGlob('x\\'), /no character to escape/);
  t.throws(() => compileGlob('[z-a]'), /failed to compile regexp/);
});

t.test("a delivery's request: Gitea's headers, signatures over the JSON, the form body", async (t) => {
  const payload = payloadText({ a: '<b>&' });
  t.equal(payload, '{\n  "a": "\\u003cb\\u003e\\u0026"\n}', "indented and escaped as Go's encoder does");
  const req = deliveryRequest({ url: 'http://u:pw@example.com/h', contentType: 'form', targetType: 'organization', secret: 's', authorization: 'Bearer x' }, 'pull_request_sync', 'id-1', payload);
  t.equal(req.headers['X-Gitea-Event'], 'pull_request');
  t.equal(req.headers['X-Gitea-Event-Type'], 'pull_request_sync');
  t.equal(req.headers['X-Gitea-Hook-Installation-Target-Type'], 'organization');
  t.equal(req.headers['X-Gitea-Signature'], signatureOf(payload, 's'), 'signed over the JSON even when sent as a form');
  t.equal(req.headers['X-Hub-Signature'], `sha1=${signatureOf(payload, 's', 'sha1')}`);
  t.equal(new URLSearchParams(req.body).get('payload'), payload);
  t.equal(req.headers['Content-Type'], 'application/x-www-form-urlencoded');
  t.equal(recordedHeaders(req.headers).Authorization, '******');
  t.equal(displayUrl(req.url), 'http://u:******@example.com/h');
  const unsigned = deliveryRequest({ url: 'http://x/', contentType: 'json', targetType: 'repository', secret: '', authorization: '' }, 'push', 'id-2', '{}');
  t.equal(unsigned.headers['X-Gitea-Signature'], '', 'no secret: empty signatures, as Gitea sends them');
  t.equal(unsigned.headers['X-Hub-Signature-256'], 'sha256=');
  t.notOk('Authorization' in unsigned.headers);
});

t.test('retry decisions', async (t) => {
  const response = (status: number) => ({ kind: 'response' as const, response: { status, headers: {}, body: '' }, durationMs: 1 });
  t.equal(judgeAttempt(response(204)), 'delivered');
  for (const s of [500, 502, 503, 429]) t.equal(judgeAttempt(response(s)), 'retry', `${s}`);
  for (const s of [301, 400, 401, 404, 410, 422]) t.equal(judgeAttempt(response(s)), 'failed', `${s}`);
  t.equal(judgeAttempt({ kind: 'error', message: 'x', retryable: true, durationMs: 1 }), 'retry');
  t.equal(judgeAttempt({ kind: 'error', message: 'x', retryable: false, durationMs: 1 }), 'failed');
  const policy = { minBackoffMs: 1000, maxBackoffMs: 5000, windowMs: 60_000 };
  t.same([1, 2, 3, 4, 5].map((n) => backoffMs(n, policy)), [1000, 2000, 4000, 5000, 5000]);
  t.equal(nextAttemptAt(1, 0, 10_000, policy), 11_000);
  t.equal(nextAttemptAt(9, 0, 58_000, policy), null, 'past the window');
});

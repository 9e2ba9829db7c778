// The hook API as Gitea 1.26 answers it: create, list, get, edit, delete for repositories and
// organizations, Gitea's messages and permission rules; secrets sealed and never shown; the test
// delivery, the deliveries list and a redelivery, against a real receiver.
import t from 'tap';
import { openSecret } from '../../core/auth/secret-box.js';
import { startTestServices, type TestServices } from '../helper.js';
import { basic, call, makeUser, type Call } from '../repos/fixtures.js';
import { payloadOf, Receiver, signatureOf } from './receiver.js';

let app: TestServices['app'];
let db: TestServices['db'];
const api = (c: Call) => call(app, c);
const receiver = new Receiver();

t.before(async () => {
  ({ app, db } = await startTestServices(t, { temporal: true, env: { WEBHOOK_ALLOWED_HOST_LIST: 'loopback', WEBHOOK_RETRY_MIN_BACKOFF_MS: '100' } }));
  for (const name of ['hana', 'rita', 'adam', 'otto']) await makeUser(db, name);
  await makeUser(db, 'root', { admin: true });
  t.equal((await api({ method: 'POST', url: '/api/v1/user/repos', as: 'hana', body: { name: 'site', auto_init: true } })).statusCode, 201);
  t.equal((await api({ method: 'POST', url: '/api/v1/user/repos', as: 'hana', body: { name: 'secret', private: true } })).statusCode, 201);
  t.equal((await api({ method: 'POST', url: '/api/v1/user/repos', as: 'hana', body: { name: 'empty' } })).statusCode, 201);
  t.equal((await api({ method: 'PUT', url: '/api/v1/repos/hana/site/collaborators/rita', as: 'hana', body: { permission: 'write' } })).statusCode, 204);
  t.equal((await api({ method: 'PUT', url: '/api/v1/repos/hana/site/collaborators/adam', as: 'hana', body: { permission: 'admin' } })).statusCode, 204);
  t.equal((await api({ method: 'POST', url: '/api/v1/orgs', as: 'otto', body: { username: 'guild' } })).statusCode, 201);
  await receiver.start();
  t.teardown(() => receiver.stop());
});

const hooks = '/api/v1/repos/hana/site/hooks';
const base = { type: 'gitea', config: { get url() { return receiver.url; }, content_type: 'json' } };

t.test('create answers Gitea\'s Hook: events read as Gitea reads them, inactive unless asked, secrets hidden', async (t) => {
  const res = await api({ method: 'POST', url: hooks, as: 'hana', body: {
    ...base, config: { ...base.config, secret: 'topsecret' }, events: ['Pull_Request', 'status'], authorization_header: 'Bearer abc.def', branch_filter: '{main,release/*}', name: ' ci ',
  } });
  t.equal(res.statusCode, 201, res.body);
  const hook = res.json();
  t.match(hook, { name: 'ci', type: 'gitea', branch_filter: '{main,release/*}', config: { content_type: 'json', url: receiver.url }, active: false });
  t.same(Object.keys(hook), ['id', 'name', 'type', 'branch_filter', 'config', 'events', 'authorization_header', 'active', 'updated_at', 'created_at'], "Gitea's fields in Gitea's order");
  t.same(Object.keys(hook.config).sort(), ['content_type', 'url'], 'the secret is never shown');
  t.equal(hook.authorization_header, 'Bearer ******', 'the header scheme, never its credentials');
  t.same([...hook.events].sort(), ['pull_request', 'pull_request_assign', 'pull_request_comment', 'pull_request_label', 'pull_request_milestone',
    'pull_request_review', 'pull_request_review_request', 'pull_request_sync', 'status'].sort(), 'pull_request switches on its whole group');
  const row = await db('webhooks').where({ id: hook.id }).first();
  t.notOk(String(row.secret_sealed).includes('topsecret'), 'the secret is stored sealed');
  t.notOk(String(row.authorization_sealed).includes('abc.def'), 'the Authorization header is stored sealed');
  t.equal(openSecret(String(row.secret_sealed), app.services.secretKey), 'topsecret');

  const plain = await api({ method: 'POST', url: hooks, as: 'hana', body: { ...base, type: 'gogs', events: ['issues_only'] } });
  t.same(plain.json().events, ['issues'], 'issues_only is the issues kind alone');
  const defaults = await api({ method: 'POST', url: hooks, as: 'hana', body: { ...base, type: 'forgejo' } });
  t.same(defaults.json().events, ['push'], 'no events means push');
  t.equal(defaults.json().authorization_header, '');
});

t.test('bad hooks are refused with Gitea\'s messages', async (t) => {
  const cases: Array<[unknown, number, string]> = [
    [{ ...base, type: 'slack' }, 422, 'Invalid hook type: slack'],
    [{ ...base, type: 'nonsense' }, 422, 'Invalid hook type: nonsense'],
    [{ type: 'gitea', config: { content_type: 'json' } }, 422, 'Missing config option: url'],
    [{ type: 'gitea', config: { url: receiver.url } }, 422, 'Missing config option: content_type'],
    [{ type: 'gitea', config: { url: receiver.url, content_type: 'xml' } }, 422, 'Invalid content type'],
    [{ type: 'gitea', config: { url: 'ftp://example.com/', content_type: 'json' } }, 422, 'Invalid url'],
    [{ type: 'gitea', config: { url: 'not a url', content_type: 'json' } }, 422, 'Invalid url'],
    [{ ...base, branch_filter: '[ab' }, 422, '[BranchFilter]: unterminated character class'],
    [{ ...base, branch_filter: 'x\\' }, 422, '[BranchFilter]: no character to escape'],
    [{ ...base, config: { ...base.config, is_system_webhook: 'maybe' } }, 422, 'Invalid is_system_webhook value'],
  ];
  for (const [body, status, message] of cases) {
    const res = await api({ method: 'POST', url: hooks, as: 'hana', body });
    t.equal(res.statusCode, status, JSON.stringify(body));
    t.equal(res.json().message, message);
  }
  const noType = await api({ method: 'POST', url: hooks, as: 'hana', body: { config: base.config } });
  t.equal(noType.statusCode, 422);
  t.match(noType.json().message, /type/i);
  const edit = await api({ method: 'PATCH', url: `${hooks}/${(await api({ method: 'POST', url: hooks, as: 'hana', body: base })).json().id}`, as: 'hana', body: { config: { url: 'nope' } } });
  t.equal(edit.statusCode, 422);
  t.equal(edit.json().message, 'Invalid url');
});

t.test('who may manage hooks: repository admins and organization owners', async (t) => {
  const anonymous = await api({ url: hooks });
  t.equal(anonymous.statusCode, 401);
  t.equal(anonymous.json().message, 'token is required');
  t.equal((await api({ url: '/api/v1/repos/hana/secret/hooks' })).statusCode, 404, 'a private repository is not there for strangers');
  t.equal((await api({ url: '/api/v1/repos/hana/secret/hooks', as: 'rita' })).statusCode, 404);
  const writer = await api({ url: hooks, as: 'rita' });
  t.equal(writer.statusCode, 403);
  t.equal(writer.json().message, 'user should be an owner or a collaborator with admin write of a repository');
  t.equal((await api({ url: hooks, as: 'adam' })).statusCode, 200, 'an admin collaborator');
  t.equal((await api({ url: hooks, as: 'root' })).statusCode, 200, 'a site admin');

  const org = '/api/v1/orgs/guild/hooks';
  t.equal((await api({ url: org })).statusCode, 401);
  const stranger = await api({ url: org, as: 'rita' });
  t.equal(stranger.statusCode, 403);
  t.equal(stranger.json().message, 'Must be an organization owner');
  t.equal((await api({ url: '/api/v1/orgs/nosuch/hooks', as: 'otto' })).statusCode, 404);
  t.equal((await api({ url: '/api/v1/orgs/hana/hooks', as: 'hana' })).statusCode, 404, 'a user is not an organization');
  const made = await api({ method: 'POST', url: org, as: 'otto', body: { ...base, active: true } });
  t.equal(made.statusCode, 201, made.body);
  t.equal((await api({ url: `${org}/${made.json().id}`, as: 'otto' })).json().id, made.json().id);
  t.equal((await api({ url: `${hooks}/${made.json().id}`, as: 'hana' })).statusCode, 404, "an organization's hook is not a repository's");
  t.equal((await api({ url: `${org}/${made.json().id}`, as: 'root' })).statusCode, 200, 'a site admin');
  const listed = await api({ url: org, as: 'otto' });
  t.equal(listed.headers['x-total-count'], '1');
  t.equal((await api({ method: 'DELETE', url: `${org}/${made.json().id}`, as: 'otto' })).statusCode, 204);
});

t.test('get, list, edit and delete', async (t) => {
  const made = (await api({ method: 'POST', url: hooks, as: 'hana', body: { ...base, authorization_header: 'token s3cr3t', branch_filter: 'main', events: ['push'] } })).json();
  t.equal((await api({ url: `${hooks}/0`, as: 'hana' })).statusCode, 404);
  t.equal((await api({ url: `${hooks}/999999`, as: 'hana' })).statusCode, 404);
  const listed = await api({ url: `${hooks}?limit=2`, as: 'hana' });
  t.equal(listed.json().length, 2);
  t.ok(Number(listed.headers['x-total-count']) >= 5, 'X-Total-Count counts them all');

  const roundTrip = await api({ method: 'PATCH', url: `${hooks}/${made.id}`, as: 'hana', body: { active: true, authorization_header: 'token ******' } });
  t.equal(roundTrip.statusCode, 200, roundTrip.body);
  t.match(roundTrip.json(), { active: true, events: ['push'], branch_filter: 'main', authorization_header: 'token ******' }, 'what the edit leaves out is kept');
  const row = await db('webhooks').where({ id: made.id }).first();
  t.equal(openSecret(String(row.authorization_sealed), app.services.secretKey), 'token s3cr3t', 'the masked header sent back keeps the stored one');
  const changed = await api({ method: 'PATCH', url: `${hooks}/${made.id}`, as: 'hana', body: { events: ['issues'], branch_filter: '', authorization_header: '', config: { content_type: 'form' }, name: 'renamed' } });
  t.match(changed.json(), { branch_filter: '', authorization_header: '', name: 'renamed', config: { content_type: 'form', url: receiver.url } });
  t.same([...changed.json().events].sort(), ['issue_assign', 'issue_comment', 'issue_label', 'issue_milestone', 'issues']);
  t.equal((await api({ method: 'DELETE', url: `${hooks}/${made.id}`, as: 'hana' })).statusCode, 204);
  t.equal((await api({ url: `${hooks}/${made.id}`, as: 'hana' })).statusCode, 404);
  t.equal((await api({ method: 'DELETE', url: `${hooks}/${made.id}`, as: 'hana' })).statusCode, 404);
});

t.test('a test delivery arrives signed, shows in the deliveries, and can be sent again', async (t) => {
  const made = (await api({ method: 'POST', url: hooks, as: 'hana', body: {
    ...base, config: { ...base.config, secret: 'shh' }, authorization_header: 'Bearer tok', active: true,
  } })).json();
  const before = receiver.received.length;
  const res = await api({ method: 'POST', url: `${hooks}/${made.id}/tests`, as: 'hana' });
  t.equal(res.statusCode, 204, res.body);
  const [got] = (await receiver.waitFor(before + 1)).slice(before);
  t.ok(got, 'the receiver got the test delivery');
  t.equal(got!.headers['X-Gitea-Event'], 'push');
  t.equal(got!.headers['X-Gitea-Event-Type'], 'push');
  t.equal(got!.headers['X-Gitea-Hook-Installation-Target-Type'], 'repository');
  t.equal(got!.headers['X-Gitea-Signature'], signatureOf(got!.body, 'shh'), 'HMAC-SHA256 of the body with the secret');
  t.equal(got!.headers['X-Hub-Signature-256'], `sha256=${signatureOf(got!.body, 'shh')}`);
  t.equal(got!.headers['X-Hub-Signature'], `sha1=${signatureOf(got!.body, 'shh', 'sha1')}`);
  t.equal(got!.headers['X-GitHub-Delivery'], got!.headers['X-Gitea-Delivery']);
  t.equal(got!.headers['X-Gogs-Delivery'], got!.headers['X-Gitea-Delivery']);
  t.equal(got!.headers.Authorization, 'Bearer tok');
  const payload = payloadOf(got!);
  t.match(payload, { ref: 'refs/heads/main', total_commits: 1, repository: { full_name: 'hana/site', permissions: { admin: false, push: false, pull: false } }, pusher: { login: 'hana' } });
  t.equal(payload.before, payload.after, 'the tip pushed onto itself');
  t.match((payload.commits as Array<Record<string, unknown>>)[0], { verification: { verified: false, reason: 'gpg.error.not_signed_commit' }, added: null });

  let list = await api({ url: `${hooks}/${made.id}/deliveries`, as: 'hana' });
  for (let i = 0; i < 40 && list.json()[0]?.status !== 'delivered'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    list = await api({ url: `${hooks}/${made.id}/deliveries`, as: 'hana' });
  }
  t.equal(list.statusCode, 200);
  t.equal(list.headers['x-total-count'], '1');
  const delivery = list.json()[0];
  t.match(delivery, { uuid: got!.headers['X-Gitea-Delivery'], event: 'push', event_type: 'push', status: 'delivered', attempts: 1, redelivery: false, response: { status: 200, body: 'ok' } });
  t.equal(delivery.request.headers.Authorization, '******', 'the Authorization header is masked in the record');
  t.equal(delivery.request.body, got!.body, 'the body that was sent');
  t.notOk(JSON.stringify(delivery).includes('shh'), 'no secret in the record');
  t.ok(delivery.duration_ms >= 0);

  const again = await api({ method: 'POST', url: `${hooks}/${made.id}/deliveries/${delivery.id}/redeliver`, as: 'hana' });
  t.equal(again.statusCode, 202, again.body);
  t.not(again.json().uuid, delivery.uuid, 'a redelivery has its own delivery id, as Gitea\'s replay');
  const [second] = (await receiver.waitFor(before + 2)).slice(before + 1);
  t.equal(second!.body, got!.body, 'the same payload');
  t.equal(second!.headers['X-Gitea-Delivery'], again.json().uuid);
  t.equal((await api({ url: `${hooks}/${made.id}/deliveries/${delivery.id}`, as: 'hana' })).json().uuid, delivery.uuid);
  t.equal((await api({ url: `${hooks}/${made.id}/deliveries/999999`, as: 'hana' })).statusCode, 404);
  t.equal((await api({ url: `${hooks}/${made.id}/deliveries`, as: 'rita' })).statusCode, 403);

  const emptyHook = (await api({ method: 'POST', url: '/api/v1/repos/hana/empty/hooks', as: 'hana', body: { ...base, active: true } })).json();
  const empty = await api({ method: 'POST', url: `/api/v1/repos/hana/empty/hooks/${emptyHook.id}/tests`, as: 'hana' });
  t.equal(empty.statusCode, 404);
  t.equal(empty.json().message, 'repository is empty');
});

t.test("a user's own hooks hear every repository the user owns", async (t) => {
  t.equal((await api({ url: '/api/v1/user/hooks' })).statusCode, 401);
  const made = await api({ method: 'POST', url: '/api/v1/user/hooks', as: 'hana', body: { ...base, active: true, events: ['issues_only'] } });
  t.equal(made.statusCode, 201, made.body);
  t.equal((await api({ url: `/api/v1/user/hooks/${made.json().id}`, as: 'rita' })).statusCode, 404, "another user's hook is not there");
  const listed = await api({ url: '/api/v1/user/hooks', as: 'hana' });
  t.same(listed.json().map((h: { id: number }) => h.id), [made.json().id]);
  const before = receiver.received.length;
  t.equal((await api({ method: 'POST', url: '/api/v1/repos/hana/site/issues', as: 'rita', body: { title: 'heard by the owner' } })).statusCode, 201);
  const got = (await receiver.waitFor(before + 1, (r) => r.headers['X-Gitea-Hook-Installation-Target-Type'] === 'user')).filter((r) => r.headers['X-Gitea-Hook-Installation-Target-Type'] === 'user');
  t.equal(got.length, 1, 'delivered as a user hook');
  t.match(payloadOf(got[0]!), { action: 'opened', issue: { title: 'heard by the owner' }, sender: { login: 'rita' } });
  const deliveries = await api({ url: `/api/v1/user/hooks/${made.json().id}/deliveries`, as: 'hana' });
  t.equal(deliveries.statusCode, 200);
  t.equal(deliveries.json()[0].event, 'issues');
  t.equal((await api({ method: 'DELETE', url: `/api/v1/user/hooks/${made.json().id}`, as: 'hana' })).statusCode, 204);
});

t.test("token scopes: reading a repository's hooks needs read:repository, changing them write:repository", async (t) => {
  const made = await app.inject({ method: 'POST', url: '/api/v1/users/hana/tokens', headers: basic('hana'), payload: { name: 'hooks-read', scopes: ['read:repository'] } });
  t.equal(made.statusCode, 201, made.body);
  const auth = { authorization: `token ${made.json().sha1}` };
  t.equal((await app.inject({ url: hooks, headers: auth })).statusCode, 200);
  const write = await app.inject({ method: 'POST', url: hooks, headers: auth, payload: base });
  t.equal(write.statusCode, 403);
  t.match(write.json().message, /token does not have at least one of required scope/);
  t.equal((await app.inject({ url: '/api/v1/orgs/guild/hooks', headers: auth })).statusCode, 403, 'organization hooks need an organization scope');
});

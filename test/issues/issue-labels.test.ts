// The labels of one issue: by id or by name, the repository's and its organization's (others are
// ignored, as Gitea ignores them), exclusive scopes, label events on the timeline, Gitea's messages
// for bad input, and who may change them.
import t from 'tap';
import { startWorld } from './world.js';

t.test('issue labels', async (t) => {
  const w = await startWorld(t, { temporal: false });
  const labels: Record<string, number> = {};
  for (const [name, exclusive] of [['bug', false], ['feature', false], ['scope/a', true], ['scope/b', true]] as const) {
    const r = await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/labels', as: 'alice', body: { name, color: '#ff0000', exclusive } });
    t.equal(r.statusCode, 201, r.body);
    labels[name] = r.json().id;
  }
  const foreign = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/secret/labels', as: 'alice', body: { name: 'elsewhere', color: '00ff00' } })).json().id as number;
  const issue = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/issues', as: 'rita', body: { title: 'label me' } })).json();
  const url = `/api/v1/repos/alice/demo/issues/${issue.number}/labels`;
  const names = (r: { json(): unknown }) => (r.json() as Array<{ name: string }>).map((l) => l.name);

  await t.test('add by name and by id; unknown ones and other repositories\' are ignored', async (t) => {
    const byName = await w.api({ method: 'POST', url, as: 'walt', body: { labels: ['bug', 'scope/a', 'nope'] } });
    t.equal(byName.statusCode, 200, byName.body);
    t.same(names(byName), ['bug', 'scope/a']);
    t.match(byName.json()[0], { id: labels.bug, color: 'ff0000', url: `${w.config.APP_URL}api/v1/repos/alice/demo/labels/${labels.bug}` });
    const byId = await w.api({ method: 'POST', url, as: 'walt', body: { labels: [labels['scope/b'], foreign, 999999] } });
    t.same(names(byId), ['bug', 'scope/b'], 'an exclusive scope keeps one label: scope/b replaces scope/a');
    t.same(names(await w.api({ url })), ['bug', 'scope/b'], 'listed by name');
    t.same((await w.api({ url: `/api/v1/repos/alice/demo/issues/${issue.number}` })).json().labels.map((l: { name: string }) => l.name), ['bug', 'scope/b'], 'the issue shows them too, by name');
    t.same(names(await w.api({ method: 'POST', url, as: 'walt', body: { labels: [labels.bug + 0.9] } })), ['bug', 'scope/b'], 'a fraction is read as Go reads it (truncated)');
  });

  await t.test("Gitea's answers to bad input", async (t) => {
    const mixed = await w.api({ method: 'POST', url, as: 'walt', body: { labels: [labels.bug, 'bug'] } });
    t.equal(mixed.statusCode, 400);
    t.equal(mixed.json().message, 'labels should be an array of strings or integers');
    for (const bad of [[true], [null], [{}], [[1]]]) {
      const r = await w.api({ method: 'PUT', url, as: 'walt', body: { labels: bad } });
      t.equal(r.statusCode, 400, JSON.stringify(bad));
      t.equal(r.json().message, 'a label must be an integer or a string');
    }
    t.same(names(await w.api({ method: 'POST', url, as: 'walt', body: {} })), ['bug', 'scope/b'], 'no labels: nothing changes');
    const missing = await w.api({ method: 'DELETE', url: `${url}/999999`, as: 'walt' });
    t.equal(missing.statusCode, 422);
    t.equal(missing.json().message, 'label does not exist [label_id: 0]', "Gitea's text names id 0 for an unknown label");
    t.equal((await w.api({ method: 'DELETE', url: `${url}/0`, as: 'walt' })).json().message, 'label does not exist [label_id: 0]');
    t.equal((await w.api({ method: 'DELETE', url: `${url}/-3`, as: 'walt' })).json().message, 'label does not exist [label_id: -3]');
    t.equal((await w.api({ method: 'DELETE', url: `${url}/abc`, as: 'walt' })).statusCode, 422);
    t.equal((await w.api({ url: '/api/v1/repos/alice/demo/issues/999/labels' })).statusCode, 404);
  });

  await t.test('replace, remove one, clear', async (t) => {
    const replaced = await w.api({ method: 'PUT', url, as: 'walt', body: { labels: [labels.feature, labels['scope/a'], labels['scope/b']] } });
    t.equal(replaced.statusCode, 200);
    t.same(names(replaced), ['feature', 'scope/b'], 'of two labels of one scope the last wins');
    t.equal((await w.api({ method: 'DELETE', url: `${url}/${labels.bug}`, as: 'walt' })).statusCode, 204, 'a label the issue does not carry');
    t.equal((await w.api({ method: 'DELETE', url: `${url}/${labels.feature}`, as: 'walt' })).statusCode, 204);
    t.same(names(await w.api({ url })), ['scope/b']);
    t.equal((await w.api({ method: 'DELETE', url, as: 'walt' })).statusCode, 204);
    t.same((await w.api({ url })).json(), [], 'an empty list, not null');
  });

  await t.test('label events on the timeline', async (t) => {
    const timeline = (await w.api({ url: `/api/v1/repos/alice/demo/issues/${issue.number}/timeline` })).json() as Array<{ type: string; body: string; label: { name: string } | null; user: { login: string } }>;
    const events = timeline.filter((c) => c.type === 'label').map((c) => [c.body, c.label?.name]);
    t.same(events, [
      ['1', 'bug'], ['1', 'scope/a'], ['', 'scope/a'], ['1', 'scope/b'],
      ['1', 'feature'], ['', 'bug'], ['', 'feature'], ['', 'scope/b'],
    ], "'1' added, '' removed; a replacement adds before it removes, as Gitea's does");
    t.ok(timeline.filter((c) => c.type === 'label').every((c) => c.user.login === 'walt'));
    t.equal((await w.api({ url: `/api/v1/repos/alice/demo/issues/${issue.number}` })).json().comments, 0, 'events are not comments');
  });

  await t.test('who may change labels', async (t) => {
    for (const [who, status] of [[null, 401], ['sam', 403], ['rita', 403], ['walt', 200], ['alice', 200]] as const) {
      const r = await w.api({ method: 'POST', url, as: who, body: { labels: ['bug'] } });
      t.equal(r.statusCode, status, `POST as ${who ?? 'anonymous'}`);
      if (status === 403) t.equal(r.json().message, 'write permission is required');
    }
    t.equal((await w.api({ method: 'PUT', url, as: 'rita', body: { labels: [] } })).statusCode, 403);
    t.equal((await w.api({ method: 'DELETE', url, as: 'rita' })).statusCode, 403);
    t.equal((await w.api({ method: 'DELETE', url: `${url}/${labels.bug}`, as: 'rita' })).statusCode, 403);
    t.equal((await w.api({ url, as: 'sam' })).statusCode, 200, 'anybody reads a public repository');
    const secret = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/secret/issues', as: 'alice', body: { title: 's' } })).json();
    const secretUrl = `/api/v1/repos/alice/secret/issues/${secret.number}/labels`;
    t.equal((await w.api({ url: secretUrl, as: 'sam' })).statusCode, 404, 'a private repository is hidden');
    t.equal((await w.api({ method: 'POST', url: secretUrl, as: 'sam', body: { labels: ['elsewhere'] } })).statusCode, 404);
    t.same(names(await w.api({ method: 'POST', url: secretUrl, as: 'walt', body: { labels: ['elsewhere'] } })), ['elsewhere']);
  });

  await t.test("an organization's labels on its repositories' issues", async (t) => {
    t.equal((await w.api({ method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme' } })).statusCode, 201);
    t.equal((await w.api({ method: 'POST', url: '/api/v1/orgs/acme/repos', as: 'alice', body: { name: 'tools' } })).statusCode, 201);
    const orgLabel = (await w.api({ method: 'POST', url: '/api/v1/orgs/acme/labels', as: 'alice', body: { name: 'org-wide', color: '0000ff' } })).json();
    await w.api({ method: 'POST', url: '/api/v1/repos/acme/tools/labels', as: 'alice', body: { name: 'org-wide', color: '00ffff' } });
    const orgIssue = (await w.api({ method: 'POST', url: '/api/v1/repos/acme/tools/issues', as: 'alice', body: { title: 'o' } })).json();
    const orgUrl = `/api/v1/repos/acme/tools/issues/${orgIssue.number}/labels`;
    const byName = await w.api({ method: 'POST', url: orgUrl, as: 'alice', body: { labels: ['org-wide'] } });
    t.equal(byName.json().length, 2, "a name finds the repository's label and the organization's");
    const org = byName.json().find((l: { id: number }) => l.id === orgLabel.id);
    t.equal(org.url, `${w.config.APP_URL}api/v1/orgs/acme/labels/${orgLabel.id}`, "the organization's label names where it lives");
    t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { labels: [orgLabel.id] } })).json().some((l: { id: number }) => l.id === orgLabel.id), false, 'not usable outside the organization');
  });

  await t.test("the issue's JSON lists its labels by name", async (t) => {
    const late = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/labels', as: 'alice', body: { name: 'aardvark', color: '000000' } })).json();
    const other = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/issues', as: 'walt', body: { title: 'order', labels: [labels.feature, late.id] } })).json();
    t.same(other.labels.map((l: { name: string }) => l.name), ['aardvark', 'feature'], 'not by id');
  });
});

// Labels (repository and organization) and milestones: shapes, colours, id-or-name, state filter,
// permissions, archived 423, hostile input 422.
import t from 'tap';
import { normalizeColor } from '../../core/labels.js';
import { startWorld } from './world.js';

t.test('colour normalisation', async (t) => {
  t.equal(normalizeColor('#00AABB'), '#00aabb');
  t.equal(normalizeColor('00aabb'), '#00aabb');
  t.equal(normalizeColor('#abc'), '#aabbcc');
  t.equal(normalizeColor('zzzzzz'), null);
  t.equal(normalizeColor('#1234567'), null);
});

t.test('labels and milestones over HTTP', async (t) => {
  const w = await startWorld(t);
  const labels = '/api/v1/repos/alice/demo/labels';

  const created = await w.api({ method: 'POST', url: labels, as: 'walt', body: { name: 'bug', color: '#EE0701', description: 'broken' } });
  t.equal(created.statusCode, 201, created.body);
  const bug = created.json();
  t.same(Object.keys(bug), ['id', 'name', 'exclusive', 'is_archived', 'color', 'description', 'url']);
  t.equal(bug.color, 'ee0701', 'returned without #');
  t.equal(bug.url, `${w.config.APP_URL}api/v1/repos/alice/demo/labels/${bug.id}`);
  const plain = await w.api({ method: 'POST', url: labels, as: 'walt', body: { name: 'scope/a', color: '00aabb', exclusive: true } });
  t.equal(plain.json().color, '00aabb', 'accepted without #');
  t.equal(plain.json().exclusive, true);

  const list = await w.api({ url: labels });
  t.equal(list.statusCode, 200);
  t.equal(list.headers['x-total-count'], '2');
  t.equal((await w.api({ url: `${labels}/${bug.id}` })).json().name, 'bug');
  const edited = await w.api({ method: 'PATCH', url: `${labels}/${bug.id}`, as: 'walt', body: { color: 'ffffff', name: 'defect' } });
  t.equal(edited.statusCode, 200);
  t.match(edited.json(), { name: 'defect', color: 'ffffff', description: 'broken' });

  for (const body of [{ name: 'x', color: 'red' }, { name: 'x', color: '#12345' }, { name: '', color: '000000' }, { name: 'x'.repeat(300), color: '000000' }, { color: '000000' }]) {
    t.equal((await w.api({ method: 'POST', url: labels, as: 'walt', body })).statusCode, 422, `refused ${JSON.stringify(body).slice(0, 40)}`);
  }
  t.equal((await w.api({ url: `${labels}/abc` })).statusCode, 404, 'an id ParseInt refuses is 0: no such label (as Gitea)');
  t.equal((await w.api({ url: `${labels}/999999` })).statusCode, 404);
  t.equal((await w.api({ method: 'POST', url: labels, as: 'rita', body: { name: 'r', color: '000000' } })).statusCode, 403, 'reader');
  t.equal((await w.api({ method: 'POST', url: labels, body: { name: 'r', color: '000000' } })).statusCode, 401, 'anonymous');
  t.equal((await w.api({ url: '/api/v1/repos/alice/secret/labels', as: 'sam' })).statusCode, 404, 'private');
  t.equal((await w.api({ method: 'DELETE', url: `${labels}/${bug.id}`, as: 'walt' })).statusCode, 204);
  t.equal((await w.api({ url: `${labels}/${bug.id}` })).statusCode, 404);
  t.equal((await w.api({ method: 'DELETE', url: `${labels}/${bug.id}`, as: 'walt' })).statusCode, 204, 'a label that is not there: 204, as Gitea');
  t.equal((await w.api({ method: 'DELETE', url: `${labels}/0`, as: 'walt' })).statusCode, 204, 'id 0 deletes nothing (Gitea: 204)');
  t.equal((await w.api({ url: `${labels}/0` })).statusCode, 404, 'and is not found');
  t.equal((await w.api({ method: 'PATCH', url: `${labels}/0`, as: 'walt', body: { name: 'x' } })).statusCode, 404);

  // Organization labels.
  const org = await w.api({ method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme' } });
  t.equal(org.statusCode, 201, org.body);
  const orgLabel = await w.api({ method: 'POST', url: '/api/v1/orgs/acme/labels', as: 'alice', body: { name: 'org-wide', color: '#123456' } });
  t.equal(orgLabel.statusCode, 201, orgLabel.body);
  t.equal(orgLabel.json().url, `${w.config.APP_URL}api/v1/orgs/acme/labels/${orgLabel.json().id}`);
  t.equal((await w.api({ url: '/api/v1/orgs/acme/labels' })).json().length, 1);
  t.equal((await w.api({ method: 'POST', url: '/api/v1/orgs/acme/labels', as: 'sam', body: { name: 'n', color: '123456' } })).statusCode, 403);
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/orgs/acme/labels/${orgLabel.json().id}`, as: 'alice', body: { description: 'd' } })).json().description, 'd');
  t.equal((await w.api({ url: '/api/v1/orgs/nosuch/labels' })).statusCode, 404);
  t.equal((await w.api({ method: 'DELETE', url: `/api/v1/orgs/acme/labels/${orgLabel.json().id}`, as: 'alice' })).statusCode, 204);

  // Milestones.
  const ms = '/api/v1/repos/alice/demo/milestones';
  const v1 = await w.api({ method: 'POST', url: ms, as: 'walt', body: { title: 'v1.0', description: 'first', due_on: '2030-01-02T03:04:05Z' } });
  t.equal(v1.statusCode, 201, v1.body);
  t.same(Object.keys(v1.json()), ['id', 'title', 'description', 'state', 'open_issues', 'closed_issues', 'created_at', 'updated_at', 'closed_at', 'due_on']);
  t.match(v1.json(), { title: 'v1.0', state: 'open', open_issues: 0, closed_issues: 0, closed_at: null, due_on: '2030-01-02T03:04:05Z' });
  const old = await w.api({ method: 'POST', url: ms, as: 'walt', body: { title: 'v0.9', state: 'closed' } });
  t.equal(old.json().state, 'closed');
  t.type(old.json().closed_at, 'string');
  t.same((await w.api({ url: ms })).json().map((m: { title: string }) => m.title), ['v1.0'], 'open by default');
  t.same((await w.api({ url: `${ms}?state=closed` })).json().map((m: { title: string }) => m.title), ['v0.9']);
  t.equal((await w.api({ url: `${ms}?state=all` })).headers['x-total-count'], '2');
  t.same((await w.api({ url: `${ms}?state=bogus` })).json().map((m: { title: string }) => m.title), ['v1.0'], 'an unknown state is the default (open), as in Gitea');
  t.equal((await w.api({ url: `${ms}/${v1.json().id}` })).json().title, 'v1.0', 'by id');
  t.equal((await w.api({ url: `${ms}/v0.9` })).json().id, old.json().id, 'by name');
  t.equal((await w.api({ url: `${ms}/nope` })).statusCode, 404);
  const closed = await w.api({ method: 'PATCH', url: `${ms}/v1.0`, as: 'walt', body: { state: 'closed', due_on: null } });
  t.match(closed.json(), { state: 'closed', due_on: null });
  t.equal((await w.api({ method: 'PATCH', url: `${ms}/v1.0`, as: 'rita', body: { title: 'x' } })).statusCode, 403);
  t.equal((await w.api({ method: 'POST', url: ms, as: 'walt', body: { title: 'bad', due_on: 'not a date' } })).statusCode, 422);
  t.equal((await w.api({ method: 'DELETE', url: `${ms}/v0.9`, as: 'walt' })).statusCode, 204);

  const doc = await w.api({ url: '/swagger.v1.json' });
  t.equal(doc.statusCode, 200, 'the OpenAPI document builds with these routes');
  for (const path of ['/repos/{owner}/{repo}/labels/{id}', '/orgs/{org}/labels', '/repos/{owner}/{repo}/milestones/{id}', '/repos/{owner}/{repo}/issues/{index}/dependencies', '/repos/{owner}/{repo}/statuses/{sha}', '/repos/{owner}/{repo}/commits/{ref}/status', '/repos/{owner}/{repo}/pulls/{index}/reviews']) {
    t.ok(doc.json().paths[path], `documented: ${path}`);
  }

  t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/demo', as: 'alice', body: { archived: true } })).statusCode, 200);
  t.equal((await w.api({ method: 'POST', url: labels, as: 'walt', body: { name: 'late', color: '000000' } })).statusCode, 423);
  t.equal((await w.api({ method: 'POST', url: ms, as: 'walt', body: { title: 'late' } })).statusCode, 423);
});

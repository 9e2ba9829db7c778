// Comments by id and repository-wide (Gitea's issue_comment.go): list every comment of a
// repository, get, edit and delete one (and the deprecated routes under an issue), events that
// answer 204 or 400, who may do what, locked issues.
import t from 'tap';
import { startWorld } from './world.js';
import { makeUser } from '../repos/fixtures.js';

t.test('comments by id and repository-wide', async (t) => {
  const w = await startWorld(t, { temporal: false });
  await makeUser(w.db, 'root', { admin: true });
  const mk = async (title: string) => (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/issues', as: 'rita', body: { title } })).json();
  const one = await mk('one');
  const two = await mk('two');
  const say = async (index: number, who: string, body: string) => {
    const r = await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/issues/${index}/comments`, as: who, body: { body } });
    t.equal(r.statusCode, 201, r.body);
    return r.json() as { id: number; body: string; updated_at: string };
  };
  const a = await say(one.number, 'rita', 'first');
  const b = await say(two.number, 'walt', 'second');
  const c = await say(one.number, 'sam', 'third');
  // An event row: closing leaves one.
  t.equal((await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/demo/issues/${two.number}`, as: 'walt', body: { state: 'closed' } })).statusCode, 201);
  const closeRow = (await w.db('comments').where({ type: 'close' }).first('id')).id as number;
  const byId = (id: number) => `/api/v1/repos/alice/demo/issues/comments/${id}`;

  await t.test('the repository-wide list: comments only, oldest first, paged', async (t) => {
    const all = await w.api({ url: '/api/v1/repos/alice/demo/issues/comments' });
    t.equal(all.statusCode, 200, 'not taken for an issue index');
    t.same(all.json().map((x: { body: string }) => x.body), ['first', 'second', 'third']);
    t.equal(all.headers['x-total-count'], '3');
    t.equal(all.json()[1].issue_url, `${w.config.APP_URL}alice/demo/issues/${two.number}`, 'each names its own issue');
    const page = await w.api({ url: '/api/v1/repos/alice/demo/issues/comments?limit=1&page=2' });
    t.same(page.json().map((x: { body: string }) => x.body), ['second']);
    t.equal(page.headers['x-total-count'], '3');
    const later = await w.api({ url: `/api/v1/repos/alice/demo/issues/comments?since=${encodeURIComponent('2999-01-01T00:00:00Z')}` });
    t.same(later.json(), []);
    t.equal((await w.api({ url: '/api/v1/repos/alice/demo/issues/comments?since=yesterday' })).statusCode, 422);
    t.equal((await w.api({ url: '/api/v1/repos/alice/secret/issues/comments', as: 'sam' })).statusCode, 404, 'private: hidden');
    t.same((await w.api({ url: '/api/v1/repos/alice/secret/issues/comments', as: 'rita' })).json(), [], 'a reader lists them');
  });

  await t.test('get one', async (t) => {
    const got = await w.api({ url: byId(a.id) });
    t.equal(got.statusCode, 200);
    t.match(got.json(), { id: a.id, body: 'first', user: { login: 'rita', email: 'rita@noreply.127.0.0.1' } });
    const event = await w.api({ url: byId(closeRow) });
    t.equal(event.statusCode, 204, 'an event: 204 with no body, as Gitea');
    t.equal(event.body, '');
    t.equal((await w.api({ url: byId(999999) })).statusCode, 404);
    t.equal((await w.api({ url: byId(0) })).statusCode, 404);
    const secretIssue = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/secret/issues', as: 'alice', body: { title: 's' } })).json();
    const secret = (await w.api({ method: 'POST', url: `/api/v1/repos/alice/secret/issues/${secretIssue.number}/comments`, as: 'alice', body: { body: 'psst' } })).json();
    t.equal((await w.api({ url: byId(secret.id) })).statusCode, 404, "another repository's comment is not found here");
    t.equal((await w.api({ url: `/api/v1/repos/alice/secret/issues/comments/${secret.id}`, as: 'sam' })).statusCode, 404);
  });

  await t.test('edit: the poster or a writer', async (t) => {
    t.equal((await w.api({ method: 'PATCH', url: byId(a.id), body: { body: 'x' } })).statusCode, 401);
    t.equal((await w.api({ method: 'PATCH', url: byId(a.id), as: 'sam', body: { body: 'x' } })).statusCode, 403, 'a stranger');
    const own = await w.api({ method: 'PATCH', url: byId(a.id), as: 'rita', body: { body: 'first, edited' } });
    t.equal(own.statusCode, 200, own.body);
    t.equal(own.json().body, 'first, edited');
    t.equal((await w.api({ method: 'PATCH', url: byId(c.id), as: 'walt', body: { body: 'moderated' } })).json().body, 'moderated', 'a writer edits anyone\'s');
    t.equal((await w.api({ method: 'PATCH', url: byId(c.id), as: 'rita', body: { body: 'no' } })).statusCode, 403, 'a reader only their own');
    t.equal((await w.api({ method: 'PATCH', url: byId(closeRow), as: 'walt', body: { body: 'x' } })).statusCode, 204, 'an event: 204');
    const missing = await w.api({ method: 'PATCH', url: byId(a.id), as: 'rita', body: {} });
    t.equal(missing.statusCode, 422, 'body is required');
    t.equal(missing.json().message, '[body]: Required');
    const deprecated = await w.api({ method: 'PATCH', url: `/api/v1/repos/alice/demo/issues/${two.number}/comments/${a.id}`, as: 'rita', body: { body: 'via the old route' } });
    t.equal(deprecated.statusCode, 200, 'the deprecated route finds the comment by id alone, as Gitea does');
    t.equal(deprecated.json().body, 'via the old route');
  });

  await t.test('delete: the poster or a writer; events cannot be deleted', async (t) => {
    t.equal((await w.api({ method: 'DELETE', url: byId(b.id), as: 'sam' })).statusCode, 403);
    t.equal((await w.api({ method: 'DELETE', url: byId(closeRow), as: 'alice' })).statusCode, 400);
    t.equal((await w.api({ url: `/api/v1/repos/alice/demo/issues/${two.number}` })).json().comments, 1);
    t.equal((await w.api({ method: 'DELETE', url: byId(b.id), as: 'walt' })).statusCode, 204);
    t.equal((await w.api({ url: byId(b.id) })).statusCode, 404);
    t.equal((await w.api({ url: `/api/v1/repos/alice/demo/issues/${two.number}` })).json().comments, 0, 'the count follows');
    t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/demo/issues/${one.number}/comments/${c.id}`, as: 'sam' })).statusCode, 204, 'the poster, through the deprecated route');
    t.same((await w.api({ url: '/api/v1/repos/alice/demo/issues/comments' })).json().map((x: { body: string }) => x.body), ['via the old route']);
  });

  await t.test('locked issues and archived repositories', async (t) => {
    await w.db('issues').where({ id: one.id }).update({ is_locked: true });
    const reader = await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/issues/${one.number}/comments`, as: 'rita', body: { body: 'x' } });
    t.equal(reader.statusCode, 403);
    t.equal(reader.json().message, 'You cannot comment on a locked issue.');
    await say(one.number, 'walt', 'a writer still may');
    await say(one.number, 'root', 'and a site admin');
    t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/demo', as: 'alice', body: { archived: true } })).statusCode, 200);
    t.equal((await w.api({ method: 'PATCH', url: byId(a.id), as: 'rita', body: { body: 'x' } })).statusCode, 423, 'archived: no edits');
    t.equal((await w.api({ url: '/api/v1/repos/alice/demo/issues/comments' })).statusCode, 200, 'but still read');
  });
});

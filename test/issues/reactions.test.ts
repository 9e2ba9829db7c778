// Reactions on issues, pull requests and comments: Gitea's allowed set, 201 for a new reaction and
// 200 for one already there, 403 for a reaction not allowed, locked issues, blocks, who may read.
import t from 'tap';
import { startWorld } from './world.js';
import { makeUser } from '../repos/fixtures.js';

t.test('reactions', async (t) => {
  const w = await startWorld(t, { temporal: false });
  await makeUser(w.db, 'root', { admin: true });
  const issue = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/issues', as: 'rita', body: { title: 'react to me' } })).json();
  const url = `/api/v1/repos/alice/demo/issues/${issue.number}/reactions`;
  const comment = (await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/issues/${issue.number}/comments`, as: 'walt', body: { body: 'hello' } })).json();
  const commentUrl = `/api/v1/repos/alice/demo/issues/comments/${comment.id}/reactions`;

  await t.test('on an issue', async (t) => {
    const none = await w.api({ url });
    t.equal(none.statusCode, 200);
    t.equal(none.body, 'null', 'no reaction: null, as Gitea answers');
    t.equal(none.headers['x-total-count'], '0');
    const first = await w.api({ method: 'POST', url, as: 'rita', body: { content: '+1' } });
    t.equal(first.statusCode, 201, first.body);
    t.match(first.json(), { content: '+1', user: { login: 'rita', email: 'rita@example.com' } }, 'the doer sees their own address');
    t.match(first.json().created_at, /^\d{4}-\d\d-\d\dT/);
    const again = await w.api({ method: 'POST', url, as: 'rita', body: { content: '+1' } });
    t.equal(again.statusCode, 200, 'already there: 200 with it');
    t.equal(again.json().created_at, first.json().created_at);
    const refused = await w.api({ method: 'POST', url, as: 'rita', body: { content: 'thumbsup' } });
    t.equal(refused.statusCode, 403);
    t.equal(refused.json().message, "'thumbsup' is not an allowed reaction");
    t.equal((await w.api({ method: 'POST', url, as: 'rita', body: {} })).json().message, "'' is not an allowed reaction");
    for (const content of ['-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes']) {
      t.equal((await w.api({ method: 'POST', url, as: 'sam', body: { content } })).statusCode, 201, content);
    }
    const list = await w.api({ url });
    t.equal(list.headers['x-total-count'], '8');
    t.same(list.json().map((r: { content: string }) => r.content), ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'], 'oldest first');
    t.equal(list.json()[0].user.email, 'rita@noreply.127.0.0.1', 'others see no address');
    const page = await w.api({ url: `${url}?limit=3&page=2` });
    t.same(page.json().map((r: { content: string }) => r.content), ['hooray', 'confused', 'heart']);
    t.equal(page.headers['x-total-count'], '8');
    t.equal((await w.api({ method: 'DELETE', url, as: 'sam', body: { content: 'heart' } })).statusCode, 204);
    t.equal((await w.api({ method: 'DELETE', url, as: 'sam', body: { content: 'heart' } })).statusCode, 204, 'nothing to remove: still 204');
    t.equal((await w.api({ method: 'DELETE', url, as: 'sam', body: { content: 'not-a-reaction' } })).statusCode, 204);
    t.equal((await w.api({ url })).headers['x-total-count'], '7');
    t.equal((await w.api({ method: 'POST', url, body: { content: '+1' } })).statusCode, 401, 'anonymous');
    t.equal((await w.api({ url: '/api/v1/repos/alice/demo/issues/999/reactions' })).statusCode, 404);
    t.equal((await w.api({ url: '/api/v1/repos/alice/demo/issues/0/reactions' })).statusCode, 404, 'index 0 is not found');
  });

  await t.test('a hidden reaction type stays in the table but out of the list', async (t) => {
    await w.db('reactions').insert({ type: 'party', issue_id: issue.id, comment_id: 0, user_id: (await w.db('users').where({ lower_name: 'walt' }).first('id')).id, created_unix: 1 });
    t.equal((await w.api({ url })).headers['x-total-count'], '7', 'types outside the allowed set are not shown, as Gitea filters them');
  });

  await t.test('on a comment', async (t) => {
    t.equal((await w.api({ url: commentUrl })).body, 'null');
    t.equal((await w.api({ method: 'POST', url: commentUrl, as: 'rita', body: { content: 'eyes' } })).statusCode, 201);
    t.equal((await w.api({ method: 'POST', url: commentUrl, as: 'rita', body: { content: 'eyes' } })).statusCode, 200);
    const list = await w.api({ url: commentUrl });
    t.same(list.json().map((r: { content: string; user: { login: string } }) => [r.content, r.user.login]), [['eyes', 'rita']]);
    t.equal((await w.api({ url })).headers['x-total-count'], '7', "the comment's reactions are not the issue's");
    t.equal((await w.api({ method: 'DELETE', url: commentUrl, as: 'rita', body: { content: 'eyes' } })).statusCode, 204);
    t.equal((await w.api({ url: commentUrl })).body, 'null');
    t.equal((await w.api({ url: '/api/v1/repos/alice/demo/issues/comments/999999/reactions' })).statusCode, 404);
    // A comment of another repository is not found through this one.
    const elsewhere = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/secret/issues', as: 'alice', body: { title: 'x' } })).json();
    const secretComment = (await w.api({ method: 'POST', url: `/api/v1/repos/alice/secret/issues/${elsewhere.number}/comments`, as: 'alice', body: { body: 'psst' } })).json();
    t.equal((await w.api({ url: `/api/v1/repos/alice/demo/issues/comments/${secretComment.id}/reactions` })).statusCode, 404);
    t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/issues/comments/${secretComment.id}/reactions`, as: 'rita', body: { content: '+1' } })).statusCode, 404);
    t.equal((await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/demo/issues/${issue.number}/comments/${comment.id}`, as: 'walt' })).statusCode, 204);
    t.equal(Number((await w.db('reactions').where({ comment_id: comment.id }).count({ n: '*' }).first())?.n), 0, "a deleted comment's reactions go with it");
  });

  await t.test('private repositories and pull requests', async (t) => {
    const secret = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/secret/issues', as: 'alice', body: { title: 'hidden' } })).json();
    const secretUrl = `/api/v1/repos/alice/secret/issues/${secret.number}/reactions`;
    t.equal((await w.api({ url: secretUrl, as: 'sam' })).statusCode, 404, 'hidden from a stranger');
    t.equal((await w.api({ url: secretUrl })).statusCode, 404, 'and from anonymous');
    t.equal((await w.api({ method: 'POST', url: secretUrl, as: 'sam', body: { content: '+1' } })).statusCode, 404);
    t.equal((await w.api({ method: 'POST', url: secretUrl, as: 'rita', body: { content: '+1' } })).statusCode, 201, 'a reader reacts');
    // A pull request is reached through its issue number (a reviewer's +1).
    const pr = (await w.api({ method: 'POST', url: '/api/v1/repos/alice/demo/issues', as: 'walt', body: { title: 'pull' } })).json();
    await w.db('issues').where({ id: pr.id }).update({ is_pull: true });
    t.equal((await w.api({ method: 'POST', url: `/api/v1/repos/alice/demo/issues/${pr.number}/reactions`, as: 'rita', body: { content: 'rocket' } })).statusCode, 201);
  });

  await t.test('locked issues: only writers react', async (t) => {
    await w.db('issues').where({ id: issue.id }).update({ is_locked: true });
    const reader = await w.api({ method: 'POST', url, as: 'rita', body: { content: 'laugh' } });
    t.equal(reader.statusCode, 403);
    t.equal(reader.json().message, 'no permission to change reaction');
    t.equal((await w.api({ method: 'DELETE', url, as: 'rita', body: { content: '+1' } })).statusCode, 403, 'nor remove theirs');
    t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { content: 'laugh' } })).statusCode, 201, 'a writer may');
    t.equal((await w.api({ method: 'POST', url, as: 'root', body: { content: 'laugh' } })).statusCode, 201, 'a site admin may');
    await w.db('issues').where({ id: issue.id }).update({ is_locked: false });
  });

  await t.test('blocked by the repository owner or the poster', async (t) => {
    t.equal((await w.api({ method: 'PUT', url: '/api/v1/user/blocks/sam', as: 'rita' })).statusCode, 204);
    const blocked = await w.api({ method: 'POST', url, as: 'sam', body: { content: 'rocket' } });
    t.equal(blocked.statusCode, 403);
    t.equal(blocked.json().message, 'user is blocked');
    t.equal((await w.api({ method: 'POST', url, as: 'walt', body: { content: 'rocket' } })).statusCode, 201, 'others still react');
  });
});

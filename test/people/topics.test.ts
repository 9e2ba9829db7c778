// Repository topics against the real app: Gitea's name rules and refusal bodies, the 25-topic
// limit, topics in the repository JSON, topic search, and who may read and change them.
import t from 'tap';
import { peopleWorld } from './world.js';

t.test('repository topics', async (t) => {
  const w = await peopleWorld(t);
  await w.user('root', { admin: true });
  for (const name of ['alice', 'bob', 'carol', 'dave']) await w.user(name);
  await w.must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'widget' } });
  await w.must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'secret', private: true } });
  await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/collaborators/bob', as: 'alice', body: { permission: 'write' } });
  await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/collaborators/dave', as: 'alice', body: { permission: 'admin' } });

  const topics = async (repo = 'widget', as: string | null = 'alice') => (await w.must(200, { url: `/api/v1/repos/alice/${repo}/topics`, as })).json().topics;
  t.same(await topics(), [], 'a new repository has no topics');

  await t.test('adding and removing one topic', async (t) => {
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics/Best', as: 'alice' });
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics/best', as: 'alice' });
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics/%20Go%20', as: 'dave' });
    t.same(await topics(), ['best', 'go'], 'lower-cased, trimmed, added once');
    for (const bad of ['-bad', 'bad_', 'a'.repeat(36), '%C3%A9t%C3%A9']) {
      const res = await w.must(422, { method: 'PUT', url: `/api/v1/repos/alice/widget/topics/${bad}`, as: 'alice' });
      t.same(res.json(), { invalidTopics: decodeURIComponent(bad).toLowerCase(), message: 'Topic name is invalid' }, `Gitea's body for ${bad}`);
    }
    t.equal((await w.must(204, { method: 'PUT', url: `/api/v1/repos/alice/widget/topics/${'a'.repeat(35)}`, as: 'alice' })).statusCode, 204, '35 characters are fine');
    await w.must(204, { method: 'DELETE', url: `/api/v1/repos/alice/widget/topics/${'a'.repeat(35)}`, as: 'alice' });
    await w.must(404, { method: 'DELETE', url: '/api/v1/repos/alice/widget/topics/nothere', as: 'alice' });
    const bad = await w.must(422, { method: 'DELETE', url: '/api/v1/repos/alice/widget/topics/Bad_', as: 'alice' });
    t.same(bad.json(), { invalidTopics: 'bad_', message: 'Topic name is invalid' });
    await w.must(204, { method: 'DELETE', url: '/api/v1/repos/alice/widget/topics/GO', as: 'alice' });
    t.same(await topics(), ['best']);
  });

  await t.test('replacing the list', async (t) => {
    const refused = await w.must(422, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics', as: 'alice', body: { topics: ['Zeta', 'alpha', '', 'alpha', 'bad_one', 'x..y', '-no'] } });
    t.same(refused.json(), { invalidTopics: ['bad_one', '-no'], message: 'Topic names are invalid' });
    t.same(await topics(), ['best'], 'a refused list changes nothing');
    const many = Array.from({ length: 26 }, (_, i) => `t${i}`);
    const tooMany = await w.must(422, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics', as: 'alice', body: { topics: many } });
    t.same(tooMany.json(), { invalidTopics: null, message: 'Exceeding maximum number of topics per repo' });
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics', as: 'alice', body: { topics: [...many.slice(0, 25), 'T0', ' t1 '] } });
    const full = await w.must(200, { url: '/api/v1/repos/alice/widget/topics?limit=10&page=3', as: 'alice' });
    t.equal(full.headers['x-total-count'], '25', 'X-Total-Count counts them all');
    t.notOk(full.headers.link, 'and, as in Gitea, no Link');
    t.same(full.json().topics, ['t5', 't6', 't7', 't8', 't9'], 'pages by name');
    const limit = await w.must(422, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics/another', as: 'alice' });
    t.same(limit.json(), { message: 'Exceeding maximum allowed topics per repo.' });
    await w.must(422, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics/t0', as: 'alice' });
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics', as: 'alice', body: { topics: ['Zeta', 'alpha', '', 'alpha', 'x..y'] } });
    t.same(await topics(), ['alpha', 'x..y', 'zeta'], 'the new list, by name');
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics', as: 'alice', body: {} });
    t.same(await topics(), [], 'no list empties it');
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics', as: 'alice', body: { topics: ['zeta', 'alpha'] } });
  });

  await t.test('topics in the repository JSON', async (t) => {
    t.same((await w.must(200, { url: '/api/v1/repos/alice/widget', as: null })).json().topics, ['alpha', 'zeta']);
    t.same((await w.must(200, { url: '/api/v1/repos/alice/secret', as: 'alice' })).json().topics, []);
  });

  await t.test('who may read and change topics', async (t) => {
    t.same(await topics('widget', null), ['alpha', 'zeta'], 'anonymous callers read a public repository\'s topics');
    await w.must(404, { url: '/api/v1/repos/alice/secret/topics', as: null });
    await w.must(404, { url: '/api/v1/repos/alice/secret/topics', as: 'carol' });
    await w.must(404, { method: 'PUT', url: '/api/v1/repos/alice/secret/topics/x', as: 'carol' });
    await w.must(401, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics/x', as: null });
    const reader = await w.must(403, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics/x', as: 'carol' });
    t.equal(reader.json().message, 'user should be an owner or a collaborator with admin write of a repository');
    await w.must(403, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics', as: 'bob', body: { topics: ['x'] } });
    await w.must(403, { method: 'DELETE', url: '/api/v1/repos/alice/widget/topics/alpha', as: 'bob' });
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/alice/secret/topics/hidden', as: 'root' });
    const readOnly = await w.token('alice', ['read:repository']);
    const denied = await w.api({ method: 'PUT', url: '/api/v1/repos/alice/widget/topics/x', headers: readOnly });
    t.equal(denied.statusCode, 403, 'a read-only token cannot change topics');
    t.equal((await w.api({ url: '/api/v1/repos/alice/widget/topics', headers: readOnly })).statusCode, 200, 'but reads them');
  });

  await t.test('topic search', async (t) => {
    await w.must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'bob', body: { name: 'gadget' } });
    await w.must(204, { method: 'PUT', url: '/api/v1/repos/bob/gadget/topics', as: 'bob', body: { topics: ['alpha', 'beta'] } });
    const all = await w.must(200, { url: '/api/v1/topics/search?q=a', as: null });
    const found = all.json().topics as Array<{ id: number; topic_name: string; repo_count: number; created: string; updated: string }>;
    t.same(Object.keys(found[0]!), ['id', 'topic_name', 'repo_count', 'created', 'updated'], 'TopicResponse fields in Gitea\'s order');
    t.same([found[0]!.topic_name, found[0]!.repo_count], ['alpha', 2], 'the most used first');
    t.same(found.map((x) => x.repo_count), [...found.map((x) => x.repo_count)].sort((a, b) => b - a), 'then fewer uses');
    t.ok(found.every((x) => x.topic_name.includes('a')), 'only names containing the keyword');
    t.equal(all.headers['x-total-count'], String(found.length));
    const every = (await w.must(200, { url: '/api/v1/topics/search?limit=50', as: null })).json().topics as typeof found;
    t.ok(every.some((x) => x.topic_name === 'best' && x.repo_count === 0), 'a topic no repository uses is still listed, with 0');
    t.match(found[0]!.created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    t.same((await w.must(200, { url: '/api/v1/topics/search?q=zz_', as: null })).json(), { topics: [] });
    t.same((await w.must(200, { url: '/api/v1/topics/search?q=bet&limit=1', as: 'carol' })).json().topics.map((x: { topic_name: string }) => x.topic_name), ['beta']);
  });

  await t.test('deleting a repository keeps its topics right', async (t) => {
    await w.must(204, { method: 'DELETE', url: '/api/v1/repos/bob/gadget', as: 'bob' });
    const alpha = (await w.must(200, { url: '/api/v1/topics/search?q=alpha', as: null })).json().topics[0];
    t.equal(alpha.repo_count, 1, 'the count follows the deletion');
  });
});

// Concurrent creation (indexes without gaps, shared with issues), GET .../pulls filters, the six
// sorts, labels validation, paging headers, and GET .../pulls/{base}/{head} with the three forms.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { pullWorld } from './fixtures.js';
import { createIssue } from '../../core/issues.js';
import { createLabel } from '../../core/labels.js';
import { createMilestone } from '../../core/milestones.js';
import { loadRepository } from '../../core/permissions.js';

t.test('listing pull requests', async (t) => {
  const w = await pullWorld(t);
  const { api, db, users, config } = w;
  const url = '/api/v1/repos/alice/widget/pulls';
  const dir = w.clones.alice;
  const run = async (args: string[]) => {
    const r = await w.git(args, dir);
    if (r.code !== 0) throw new Error(r.stderr);
  };
  // Twenty branches, one commit each, pushed in one go.
  for (let i = 1; i <= 20; i++) {
    await run(['checkout', '-q', '-b', `b${i}`, 'origin/main']);
    writeFileSync(join(dir, `f${i}.txt`), `${i}\n`);
    await run(['add', '.']);
    await run(['commit', '-q', '-m', `b${i}`]);
  }
  await run(['push', '-q', 'origin', ...Array.from({ length: 20 }, (_, i) => `b${i + 1}`)]);
  const ctx = await loadRepository(db, { ownerName: 'alice', repoName: 'widget', doer: users.alice });

  await t.test('20 parallel creations and 2 issues share one gapless sequence', async (t) => {
    const headers = await w.tokenHeader('alice');
    const creations = Array.from({ length: 20 }, (_, i) => api({ method: 'POST', url, headers, body: { head: `b${i + 1}`, base: 'main', title: `PR ${i + 1}` } }));
    const issues = [createIssue(db, ctx, users.alice, { title: 'issue A' }), createIssue(db, ctx, users.alice, { title: 'issue B' })];
    const [prs, plain] = await Promise.all([Promise.all(creations), Promise.all(issues)]);
    for (const r of prs) t.equal(r.statusCode, 201, r.body);
    const numbers = [...prs.map((r) => r.json().number as number), ...plain.map((i) => i.index)].sort((a, b) => a - b);
    t.same(numbers, Array.from({ length: 22 }, (_, i) => i + 1), 'indexes 1..22, no gaps, no duplicates');
  });

  const byTitle = async (title: string) => (await db('issues').where({ title }).first()) as { id: number; index: number };
  await t.test('filters: state, milestone, labels, poster; labels must be integers', async (t) => {
    const milestone = await createMilestone(db, ctx.repo.id, { title: 'v1' });
    const bug = await createLabel(db, { repoId: ctx.repo.id }, { name: 'bug', color: 'ff0000' });
    const ui = await createLabel(db, { repoId: ctx.repo.id }, { name: 'ui', color: '00ff00' });
    const pr1 = await byTitle('PR 1');
    const pr2 = await byTitle('PR 2');
    await db('issues').where({ id: pr1.id }).update({ milestone_id: milestone.id });
    await db('issue_labels').insert([{ issue_id: pr1.id, label_id: bug.id }, { issue_id: pr1.id, label_id: ui.id }, { issue_id: pr2.id, label_id: bug.id }]);
    await db('issues').where({ id: (await byTitle('PR 3')).id }).update({ is_closed: true, closed_unix: 1 });
    await db('issues').where({ id: (await byTitle('PR 4')).id }).update({ poster_id: users.dave.id });

    const titles = async (query: string) => {
      const r = await api({ url: `${url}?limit=50&${query}`, as: 'alice' });
      t.equal(r.statusCode, 200, r.body);
      return (r.json() as Array<{ title: string }>).map((p) => p.title).sort();
    };
    t.equal((await titles('')).length, 19, 'open by default; issues are not listed');
    t.same(await titles('state=closed'), ['PR 3']);
    t.equal((await titles('state=all')).length, 20);
    t.same(await titles(`milestone=${milestone.id}`), ['PR 1']);
    t.same(await titles(`labels=${bug.id}`), ['PR 1', 'PR 2']);
    t.same(await titles(`labels=${bug.id}&labels=${ui.id}`), ['PR 1'], 'repeated labels all apply');
    t.same(await titles('poster=dave'), ['PR 4']);
    const bad = await api({ url: `${url}?labels=abc`, as: 'alice' });
    t.equal(bad.statusCode, 422);
    t.match(bad.json().message, /abc/);
    t.equal((await api({ url: `${url}?poster=ghost` })).statusCode, 400);
    t.equal((await api({ url: `${url}?state=weird` })).statusCode, 200, 'an unknown state is ignored, as in Gitea');
    t.equal((await api({ url: '/api/v1/repos/alice/nope/pulls' })).statusCode, 404);
    const first = (await api({ url: `${url}?limit=50`, as: 'alice' })).json() as Array<Record<string, unknown>>;
    t.notOk('additions' in first[0]!, 'lists omit additions/deletions/changed_files');
  });

  await t.test('the six sorts and the default', async (t) => {
    // Distinct values for PRs 5..8 so each order is decided by its own column.
    const set = async (n: number, fields: Record<string, number>) => db('issues').where({ id: (await byTitle(`PR ${n}`)).id }).update(fields);
    await set(5, { created_unix: 1000, updated_unix: 9000, num_comments: 5, priority: 1 });
    await set(6, { created_unix: 2000, updated_unix: 8000, num_comments: 7, priority: 3 });
    await set(7, { created_unix: 3000, updated_unix: 7000, num_comments: 1, priority: 2 });
    await set(8, { created_unix: 4000, updated_unix: 6000, num_comments: 3, priority: 0 });
    const order = async (sort: string) => {
      const r = await api({ url: `${url}?limit=50${sort ? `&sort=${sort}` : ''}`, as: 'alice' });
      return (r.json() as Array<{ title: string }>).map((p) => p.title).filter((x) => ['PR 5', 'PR 6', 'PR 7', 'PR 8'].includes(x));
    };
    t.same(await order(''), ['PR 8', 'PR 7', 'PR 6', 'PR 5'], 'newest first');
    t.same(await order('oldest'), ['PR 5', 'PR 6', 'PR 7', 'PR 8']);
    t.same(await order('recentupdate'), ['PR 5', 'PR 6', 'PR 7', 'PR 8']);
    t.same(await order('leastupdate'), ['PR 8', 'PR 7', 'PR 6', 'PR 5']);
    t.same(await order('mostcomment'), ['PR 6', 'PR 5', 'PR 8', 'PR 7']);
    t.same(await order('leastcomment'), ['PR 7', 'PR 8', 'PR 5', 'PR 6']);
    t.same(await order('priority'), ['PR 6', 'PR 7', 'PR 5', 'PR 8']);
  });

  await t.test('paging: limit, Link and X-Total-Count', async (t) => {
    const r = await api({ url: `${url}?limit=5&page=2`, as: 'alice' });
    t.equal(r.json().length, 5);
    t.equal(r.headers['x-total-count'], '19');
    const base = `${config.APP_URL}api/v1/repos/alice/widget/pulls`;
    t.equal(r.headers.link, `<${base}?limit=5&page=3>; rel="next",<${base}?limit=5&page=4>; rel="last",<${base}?limit=5&page=1>; rel="first",<${base}?limit=5&page=1>; rel="prev"`);
    t.match(r.headers['access-control-expose-headers'], /Link/);
    const beyond = await api({ url: `${url}?limit=5&page=99`, as: 'alice' });
    t.same(beyond.json(), [], 'a page beyond the end is empty');
  });

  await t.test('GET by base and head: three forms, 404s', async (t) => {
    const bobSha = await w.pushBranch('topic/x', { 'x.txt': 'x\n' }, { repo: 'bob' });
    const fork = await api({ method: 'POST', url, as: 'bob', body: { head: 'bob:topic/x', base: 'main', title: 'fork topic' } });
    t.equal(fork.statusCode, 201, fork.body);
    const same = await api({ url: `${url}/main/b9`, as: 'alice' });
    t.equal(same.statusCode, 200, same.body);
    t.equal(same.json().title, 'PR 9');
    t.ok('additions' in same.json(), 'single-record view has additions');
    const owner = await api({ url: `${url}/main/bob:topic/x`, as: 'alice' });
    t.equal(owner.statusCode, 200, owner.body);
    t.equal(owner.json().head.sha, bobSha);
    const full = await api({ url: `${url}/main/bob/widget:topic/x`, as: 'alice' });
    t.equal(full.statusCode, 200, full.body);
    t.equal(full.json().number, owner.json().number);
    t.equal((await api({ url: `${url}/main/ghost:topic/x` })).statusCode, 404, 'missing head owner');
    t.equal((await api({ url: `${url}/main/carol/widget:x` })).statusCode, 404, 'missing head repository');
    t.equal((await api({ url: `${url}/main/no-such-branch` })).statusCode, 404, 'no such pull request');
    t.equal((await api({ url: `${url}/develop/b9` })).statusCode, 404, 'other base');
  });
});

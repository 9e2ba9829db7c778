// Searches and repository lists against the real app (with a pull request made through its
// workflow): users, repositories and issues, each holding only what the caller may see, with
// Gitea's filters, envelopes, order and paging headers; and the instance settings clients read.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { makeUser } from '../repos/fixtures.js';
import { usersStore } from '../../db/users.js';
import { insisting, scopedToken } from './world.js';

t.test('searches and lists', async (t) => {
  const w = await pullWorld(t);
  const must = insisting(w.api);
  const users = usersStore(w.db);
  await makeUser(w.db, 'root', { admin: true });
  await users.update(w.users.carol.id, { restricted: true });
  await users.update((await makeUser(w.db, 'erin')).id, { visibility: 'limited' });
  await users.update((await makeUser(w.db, 'pat')).id, { visibility: 'private' });
  await users.update(w.users.bob.id, { keep_email_private: true, full_name: 'Robert' });
  await must(200, { method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { description: 'A Widget Library' } });
  await must(204, { method: 'PUT', url: '/api/v1/repos/alice/widget/topics', as: 'alice', body: { topics: ['widget', 'ui'] } });
  await must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'diary', private: true } });
  await must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'tmpl', template: true } });
  await must(200, { method: 'PATCH', url: '/api/v1/repos/alice/tmpl', as: 'alice', body: { archived: true } });
  await must(204, { method: 'PUT', url: '/api/v1/repos/alice/diary/collaborators/bob', as: 'alice', body: { permission: 'read' } });
  await must(201, { method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme' } });
  await must(201, { method: 'POST', url: '/api/v1/orgs/acme/repos', as: 'alice', body: { name: 'tool' } });
  await must(201, { method: 'POST', url: '/api/v1/orgs/acme/repos', as: 'alice', body: { name: 'vault', private: true } });
  const devs = (await must(201, { method: 'POST', url: '/api/v1/orgs/acme/teams', as: 'alice', body: { name: 'devs', permission: 'write', units: ['repo.code', 'repo.issues'] } })).json();
  await must(204, { method: 'PUT', url: `/api/v1/teams/${devs.id}/members/dave`, as: 'alice' });
  await must(204, { method: 'PUT', url: `/api/v1/teams/${devs.id}/repos/acme/vault`, as: 'alice' });
  await must(201, { method: 'POST', url: '/api/v1/orgs', as: 'bob', body: { username: 'hideout', visibility: 'private' } });
  await must(201, { method: 'POST', url: '/api/v1/orgs/hideout/repos', as: 'bob', body: { name: 'open' } });
  await must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'erin', body: { name: 'limrepo' } });
  await must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'pat', body: { name: 'patrepo' } });

  await must(201, { method: 'POST', url: '/api/v1/repos/alice/widget/labels', as: 'alice', body: { name: 'bug', color: '#ff0000' } });
  const label = (await must(200, { url: '/api/v1/repos/alice/widget/labels', as: 'alice' })).json()[0];
  // dave writes to alice/widget, so the label he gives the issue is applied.
  await must(201, { method: 'POST', url: '/api/v1/repos/alice/widget/issues', as: 'dave', body: { title: 'Crash on start', body: 'it crashes', labels: [label.id] } });
  await w.pushBranch('feature', { 'feature.txt': 'a feature\n' });
  await must(201, { method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'feature', base: 'main', title: 'Add a feature' } });
  await must(200, { method: 'POST', url: '/api/v1/repos/alice/widget/pulls/2/reviews', as: 'bob', body: { event: 'COMMENT', body: 'looks fine' } });
  await must(201, { method: 'POST', url: '/api/v1/repos/alice/widget/issues/1/comments', as: 'bob', body: { body: 'Reproducible here' } });
  await must(201, { method: 'POST', url: '/api/v1/repos/alice/diary/issues', as: 'alice', body: { title: 'secret crash' } });
  await must(201, { method: 'POST', url: '/api/v1/repos/acme/vault/issues', as: 'dave', body: { title: 'vault door', assignees: ['dave'] } });
  await must(201, { method: 'POST', url: '/api/v1/repos/hideout/open/issues', as: 'bob', body: { title: 'hidden issue' } });

  const full = (list: Array<{ full_name: string }>) => list.map((r) => r.full_name);

  await t.test('repository search: who sees what', async (t) => {
    const search = async (as: string | null, query = '') => {
      const res = await must(200, { url: `/api/v1/repos/search?limit=50${query}`, as });
      t.same(Object.keys(res.json()), ['ok', 'data'], 'Gitea\'s envelope');
      return full(res.json().data);
    };
    t.same(new Set(await search(null)), new Set(['acme/tool', 'alice/tmpl', 'alice/widget', 'bob/widget']), 'anonymous: public repositories of public owners');
    t.same(new Set(await search('carol')), new Set([]), 'a restricted user: only what they were granted');
    t.same(new Set(await search('dave')), new Set(['acme/tool', 'acme/vault', 'alice/tmpl', 'alice/widget', 'bob/widget', 'erin/limrepo']), 'a signed-in user: limited owners\' too, and their team\'s private one');
    t.same(new Set(await search('dave', '&private=false')), new Set(['acme/tool', 'alice/tmpl', 'alice/widget', 'bob/widget']), 'private=false: public owners\' public ones');
    t.same(new Set(await search('bob')), new Set(['acme/tool', 'alice/diary', 'alice/tmpl', 'alice/widget', 'bob/widget', 'erin/limrepo', 'hideout/open']), 'collaborations and their private organization\'s');
    t.same((await search('root')).length, 9, 'site admins: everything');
    t.same(new Set(await search('pat')), new Set(['acme/tool', 'alice/tmpl', 'alice/widget', 'bob/widget', 'erin/limrepo', 'pat/patrepo']), 'a private user sees their own');
    const publicOnly = await scopedToken(w.app, 'bob', ['read:repository', 'public-only']);
    const viaToken = await w.api({ url: '/api/v1/repos/search?limit=50', headers: publicOnly });
    t.same(new Set(full(viaToken.json().data)), new Set(['acme/tool', 'alice/tmpl', 'alice/widget', 'bob/widget']), 'a public-only token: public ones only');
    const perms = (await must(200, { url: '/api/v1/repos/search?q=diary', as: 'bob' })).json().data[0].permissions;
    t.same(perms, { admin: false, push: false, pull: true }, 'each with the caller\'s permissions');
  });

  await t.test('repository search: filters, order, paging', async (t) => {
    const search = async (query: string, as: string | null = 'root') => full((await must(200, { url: `/api/v1/repos/search?${query}`, as })).json().data);
    t.same(await search('q=WIDGET'), ['alice/widget', 'bob/widget'], 'by name, case-insensitively; by name then owner');
    t.same(await search('q=library'), [], 'not the description unless asked');
    t.same(await search('q=library&includeDesc=true'), ['alice/widget']);
    t.same(await search('q=ui&topic=true'), ['alice/widget'], 'topics only');
    t.same(await search('q=u&topic=true'), [], 'a topic search matches whole topics');
    t.same(await search('q=ui'), ['alice/widget'], 'topics match a keyword too');
    t.same(await search('q=tool,diary'), ['alice/diary', 'acme/tool'], 'a comma separates keywords');
    t.same(await search('q=acme/to'), ['acme/tool'], 'owner/name');
    t.same(await search(`uid=${w.users.alice.id}&exclusive=true`), ['alice/diary', 'alice/tmpl', 'alice/widget'], 'exclusive: only what the user owns');
    t.same(new Set(await search(`uid=${w.users.alice.id}`)), new Set(['alice/diary', 'alice/tmpl', 'alice/widget', 'acme/tool', 'acme/vault']), 'with what they work on');
    t.same(new Set(await search(`uid=${w.users.alice.id}&mode=collaborative`)), new Set(['acme/tool', 'acme/vault']), 'collaborative: only what they work on');
    t.same(await search('mode=fork'), ['bob/widget']);
    t.notOk((await search('mode=source&limit=50')).includes('bob/widget'), 'source: no forks');
    t.same(await search('mode=mirror'), [], 'there are no mirrors');
    t.same(await search('template=true'), ['alice/tmpl']);
    t.same(await search('archived=true'), ['alice/tmpl']);
    t.notOk((await search('archived=false&limit=50')).includes('alice/tmpl'));
    t.same(new Set(await search('is_private=true', 'bob')), new Set(['alice/diary']));
    t.same(await search(`team_id=${devs.id}`), ['acme/vault']);
    t.equal((await search(`priority_owner_id=${w.users.bob.id}&limit=50`))[0], 'bob/widget', 'the priority owner\'s first');
    t.equal((await search('limit=50'))[0], 'alice/diary', 'by name otherwise');
    const ids = await search('sort=id&order=desc&limit=3');
    t.same(ids, ['pat/patrepo', 'erin/limrepo', 'hideout/open'], 'newest id first');
    t.same(await search('sort=alpha&limit=2'), ['acme/tool', 'acme/vault'], 'alpha: by owner, then name');
    t.same(await search('uid=nonsense&archived=maybe&q=diary'), ['alice/diary'], 'values Gitea cannot read count as zero or false');
    t.same(await search('is_private=maybe&q=diary'), [], 'is_private=maybe is is_private=false');
    t.same(await search('starredBy=5&q=diary'), ['alice/diary'], 'starredBy is ignored');
    const page = await must(200, { url: '/api/v1/repos/search?limit=3&page=2&sort=id', as: 'root' });
    t.equal(page.headers['x-total-count'], '9');
    t.same(full(page.json().data).length, 3);
    t.match(page.headers.link, /rel="next".*rel="last".*rel="first".*rel="prev"/);
    for (const [query, message] of [['mode=odd', 'Invalid search mode: "odd"'], ['sort=odd', 'Invalid sort mode: "odd"'], ['sort=alpha&order=up', 'Invalid sort order: "up"']]) {
      t.same((await must(422, { url: `/api/v1/repos/search?${query}`, as: null })).json().message, message);
    }
    t.same((await must(200, { url: '/api/v1/repos/search?sort=&order=up&q=diary', as: 'root' })).json().data.length, 1, 'an order without a sort is ignored');
  });

  await t.test('repository lists', async (t) => {
    const mine = await must(200, { url: '/api/v1/user/repos', as: 'bob' });
    t.same(full(mine.json()), ['alice/diary', 'hideout/open', 'bob/widget'], 'the signed-in user\'s: owned and worked on, by name');
    t.equal(mine.headers['x-total-count'], '3');
    t.same(full((await must(200, { url: '/api/v1/user/repos?limit=1&page=2', as: 'bob' })).json()), ['hideout/open']);
    await must(401, { url: '/api/v1/user/repos', as: null });
    t.same(full((await must(200, { url: '/api/v1/user/repos', as: 'dave' })).json()), ['acme/tool', 'acme/vault', 'alice/widget'], 'a member organization\'s public ones, a team\'s private one, a collaboration');
    t.same(full((await must(200, { url: '/api/v1/users/alice/repos', as: null })).json()), ['alice/widget', 'alice/tmpl'], 'a user\'s, oldest first, public only for anonymous callers');
    const asBob = await must(200, { url: '/api/v1/users/alice/repos', as: 'bob' });
    t.same(full(asBob.json()), ['alice/widget', 'alice/diary', 'alice/tmpl'], 'a collaborator sees the private one');
    t.equal(asBob.headers['x-total-count'], '3');
    t.equal((await must(200, { url: '/api/v1/users/alice/repos', as: 'carol' })).headers['x-total-count'], '0', 'the count is of what the caller gets');
    await must(404, { url: '/api/v1/users/pat/repos', as: 'dave' });
    await must(404, { url: '/api/v1/users/erin/repos', as: null });
    t.same(full((await must(200, { url: '/api/v1/users/erin/repos', as: 'dave' })).json()), ['erin/limrepo']);
    t.same(full((await must(200, { url: '/api/v1/orgs/acme/repos', as: null })).json()), ['acme/tool']);
    t.same(full((await must(200, { url: '/api/v1/orgs/acme/repos', as: 'dave' })).json()), ['acme/tool', 'acme/vault']);
    await must(404, { url: '/api/v1/orgs/hideout/repos', as: 'dave' });
    t.same(full((await must(200, { url: '/api/v1/orgs/hideout/repos', as: 'bob' })).json()), ['hideout/open']);
    await must(404, { url: '/api/v1/orgs/alice/repos', as: null });
    t.same((await must(200, { url: '/api/v1/users/alice/repos', as: null })).json()[0].topics, ['ui', 'widget'], 'repositories carry their topics');
  });

  await t.test('user search', async (t) => {
    const search = async (as: string | null, query = '') => {
      const res = await must(200, { url: `/api/v1/users/search?limit=50${query}`, as });
      t.same(Object.keys(res.json()), ['data', 'ok'], 'Gitea\'s envelope');
      return res.json().data.map((u: { login: string }) => u.login);
    };
    t.same(await search(null), ['alice', 'bob', 'carol', 'dave', 'root'], 'anonymous: public users, no organizations');
    t.same(await search('dave'), ['alice', 'bob', 'carol', 'dave', 'erin', 'root'], 'signed-in: limited ones too');
    t.same(await search('pat'), ['alice', 'bob', 'carol', 'dave', 'erin', 'pat', 'root'], 'and oneself');
    t.same(await search('carol'), ['carol'], 'a restricted user finds themself');
    t.same((await search('root')).length, 7, 'admins: everybody');
    t.same(await search(null, '&q=ROBERT'), ['bob'], 'the full name');
    t.same(await search(null, '&q=carol%40example'), ['carol'], 'a public e-mail address');
    t.same(await search('dave', '&q=bob%40example'), [], 'not one kept private');
    t.same(await search('root', '&q=bob%40example'), ['bob'], 'unless an admin searches');
    t.same(await search(null, `&uid=${w.users.dave.id}`), ['dave']);
    t.same(await search(null, '&uid=-1'), ['Ghost'], 'the Ghost user, as in Gitea');
    t.same(await search(null, '&uid=junk&q=dav'), ['dave'], 'a uid Gitea cannot read is no filter');
    const page = await must(200, { url: '/api/v1/users/search?limit=2&page=2', as: null });
    t.same(page.json().data.map((u: { login: string }) => u.login), ['carol', 'dave']);
    t.equal(page.headers['x-total-count'], '5');
    t.match(page.headers.link, /rel="next"/);
    t.equal(page.json().data[0].email, `carol@noreply.127.0.0.1`, 'anonymous callers never see an address');
    const publicOnly = await scopedToken(w.app, 'dave', ['read:user', 'public-only']);
    t.same((await w.api({ url: '/api/v1/users/search?limit=50', headers: publicOnly })).json().data.map((u: { login: string }) => u.login), ['alice', 'bob', 'carol', 'dave', 'root'], 'public-only tokens: public users');
  });

  await t.test('issue search', async (t) => {
    const search = async (as: string | null, query = '') => {
      const res = await must(200, { url: `/api/v1/repos/issues/search?limit=50${query}`, as });
      return res.json().map((i: { title: string; repository: { full_name: string } }) => `${i.repository.full_name}: ${i.title}`);
    };
    t.same(await search(null), ['alice/widget: Add a feature', 'alice/widget: Crash on start'], 'anonymous: open issues and pulls of public repositories, newest first');
    t.same(await search('bob'), ['hideout/open: hidden issue', 'alice/diary: secret crash', 'alice/widget: Add a feature', 'alice/widget: Crash on start']);
    t.same(await search('dave'), ['acme/vault: vault door', 'alice/widget: Add a feature', 'alice/widget: Crash on start']);
    t.same(await search('carol'), [], 'a restricted user without grants');
    t.same(await search('bob', '&type=pulls'), ['alice/widget: Add a feature']);
    t.same(await search('bob', '&type=issues&q=CRASH'), ['alice/diary: secret crash', 'alice/widget: Crash on start'], 'the keyword, in titles');
    t.same(await search(null, '&q=crashes'), ['alice/widget: Crash on start'], 'and bodies');
    t.same(await search(null, '&q=reproducible'), ['alice/widget: Crash on start'], 'and comments');
    t.same(await search('bob', '&labels=bug'), ['alice/widget: Crash on start'], 'with any of the labels');
    t.same(await search('bob', '&labels=nosuchlabel&type=issues&owner=alice'), ['alice/diary: secret crash', 'alice/widget: Crash on start'], 'as in Gitea, unknown labels filter nothing');
    t.same(await search('dave', '&owner=acme'), ['acme/vault: vault door']);
    t.same(await search('dave', `&owner=acme&team=devs`), ['acme/vault: vault door']);
    t.same(await search('bob', '&created_by=dave&owner=acme'), [], 'bob cannot see dave\'s issue in acme');
    t.same(await search('root', '&created_by=dave'), ['acme/vault: vault door', 'alice/widget: Crash on start']);
    t.same(await search('bob', '&created=true'), ['hideout/open: hidden issue']);
    t.same(await search('dave', '&assigned=true'), ['acme/vault: vault door']);
    t.same(await search('bob', '&reviewed=true'), ['alice/widget: Add a feature']);
    t.same(await search(null, '&created=true'), ['alice/widget: Add a feature', 'alice/widget: Crash on start'], 'the signed-in filters mean nothing anonymously');
    await must(201, { method: 'PATCH', url: '/api/v1/repos/alice/widget/issues/1', as: 'alice', body: { state: 'closed' } });
    t.same(await search(null, '&state=closed'), ['alice/widget: Crash on start']);
    t.same(await search(null, '&state=all'), ['alice/widget: Add a feature', 'alice/widget: Crash on start']);
    t.same(await search(null, '&state=weird'), ['alice/widget: Add a feature'], 'an unknown state lists open ones, as in Gitea');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    t.same(await search(null, `&since=${encodeURIComponent(future)}`), []);
    t.same(await search(null, `&before=${encodeURIComponent(future)}&state=all`), ['alice/widget: Add a feature', 'alice/widget: Crash on start']);
    const page = await must(200, { url: '/api/v1/repos/issues/search?limit=1&page=2&state=all', as: 'root' });
    t.equal(page.headers['x-total-count'], '5');
    t.match(page.headers.link, /rel="prev"/);
    for (const [query, status, message] of [
      ['owner=nobody', 400, 'user does not exist [uid: 0, name: nobody]'],
      ['team=devs', 400, 'owner organisation is required for filtering on team'],
      ['owner=acme&team=nope', 400, `team does not exist [org_id ${(await users.byName('acme'))!.id}, team_id 0, name: nope]`],
      ['created_by=nobody', 404, 'user does not exist [uid: 0, name: nobody]'],
      ['since=yesterday', 422, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ] as const) {
      t.same((await must(status, { url: `/api/v1/repos/issues/search?${query}`, as: 'dave' })).json().message, message, query);
    }
  });

  await t.test('settings', async (t) => {
    t.same((await must(200, { url: '/api/v1/settings/ui', as: null })).json(), {
      default_theme: 'gitea-auto', allowed_reactions: ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'], custom_emojis: ['git', 'gitea', 'codeberg', 'gitlab', 'github', 'gogs'],
    });
    t.same((await must(200, { url: '/api/v1/settings/repository', as: null })).json(), {
      mirrors_disabled: false, http_git_disabled: false, migrations_disabled: false, stars_disabled: false, time_tracking_disabled: false, lfs_disabled: true,
    });
    t.match((await must(200, { url: '/api/v1/settings/attachment', as: null })).json(), { enabled: true, allowed_types: /\.zip$/, max_size: 100, max_files: 5 });
    t.same(Object.keys((await must(200, { url: '/api/v1/settings/api', as: null })).json()), ['max_response_items', 'default_paging_num', 'default_git_trees_per_page', 'default_max_blob_size', 'default_max_response_size']);
  });
});

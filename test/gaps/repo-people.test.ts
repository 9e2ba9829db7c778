// Reviewers and assignees of a repository as Gitea lists them, and the smaller gaps the Go SDK
// met: the unknown collaborator's 404, a user's organizations under /admin, the server version,
// the repository's licenses read from LICENSE, and the server's identity on annotated tags.
import t from 'tap';
import { detectLicenses } from '../../core/license-detect.js';
import { repoDiskPath } from '../../core/repositories.js';
import { readTagObject, resolveRef } from '../../git/index.js';
import { cloneUrl, gitSandbox, PASSWORD } from '../repos/fixtures.js';
import { gapsWorld } from './world.js';

const logins = (body: Array<{ login: string }>) => body.map((u) => u.login);

t.test('repository people and smaller gaps', async (t) => {
  const w = await gapsWorld(t, 'rp');
  const { must, api, repo, secret, orgRepo } = w;

  await t.test('reviewers: readers and up by name, then the owner; asked by those who may choose reviewers', async (t) => {
    const url = `/api/v1/repos/${repo}/reviewers`;
    const expected = ['rp-admin', 'rp-reader', 'rp-writer', 'rp-owner'];
    for (const who of ['rp-owner', 'rp-reader', 'rp-admin']) t.same(logins((await must(200, { url, as: who })).json()), expected, `asked by ${who}`);
    t.equal((await api({ url })).statusCode, 401, 'anonymous: token required');
    for (const who of ['rp-outsider', 'rp-site']) {
      const r = await api({ url, as: who });
      t.equal(r.statusCode, 403, `${who} may not choose reviewers (site admins neither, as in Gitea)`);
      t.equal(r.json().message, 'doer has no permission to get reviewers');
    }
    t.equal((await api({ url: `/api/v1/repos/${secret}/reviewers`, as: 'rp-outsider' })).statusCode, 404, 'a private repository is not found');
    t.same(logins((await must(200, { url: `/api/v1/repos/${orgRepo}/reviewers`, as: 'rp-member' })).json()), ['rp-member', 'rp-owner'],
      'an organization repository: members of its teams (the owners team included), no owner appended');

    await must(200, { method: 'PATCH', url: '/api/v1/admin/users/rp-reader', as: 'rp-site', body: { login_name: 'rp-reader', source_id: 0, active: false } });
    t.notOk(logins((await must(200, { url, as: 'rp-owner' })).json()).includes('rp-reader'), 'inactive users are left out');
    await must(200, { method: 'PATCH', url: '/api/v1/admin/users/rp-reader', as: 'rp-site', body: { login_name: 'rp-reader', source_id: 0, active: true } });

    await must(200, { method: 'PATCH', url: `/api/v1/repos/${repo}`, as: 'rp-owner', body: { archived: true } });
    t.equal((await api({ url, as: 'rp-owner' })).statusCode, 403, 'nobody chooses reviewers in an archived repository');
    await must(200, { method: 'PATCH', url: `/api/v1/repos/${repo}`, as: 'rp-owner', body: { archived: false } });
  });

  await t.test('assignees: writers and admins by name, then the owner; any signed-in reader may ask', async (t) => {
    const url = `/api/v1/repos/${repo}/assignees`;
    for (const who of ['rp-outsider', 'rp-reader', 'rp-site']) t.same(logins((await must(200, { url, as: who })).json()), ['rp-admin', 'rp-writer', 'rp-owner'], `asked by ${who}`);
    t.equal((await api({ url })).statusCode, 401);
    t.equal((await api({ url: `/api/v1/repos/${secret}/assignees`, as: 'rp-outsider' })).statusCode, 404);
    t.same(logins((await must(200, { url: `/api/v1/repos/${orgRepo}/assignees`, as: 'rp-outsider' })).json()), ['rp-member', 'rp-owner']);
    const users = (await must(200, { url, as: 'rp-reader' })).json();
    t.match(users[0], { login: 'rp-admin', email: 'rp-admin@example.com', is_admin: false }, 'Gitea\'s User objects');
  });

  await t.test('an unknown collaborator\'s permission is Gitea\'s 404', async (t) => {
    const r = await api({ url: `/api/v1/repos/${repo}/collaborators/user_that_not_exists/permission`, as: 'rp-owner' });
    t.equal(r.statusCode, 404);
    t.equal(r.json().message, 'user does not exist [uid: 0, name: user_that_not_exists]');
  });

  await t.test('GET /admin/users/{username}/orgs: site admins only', async (t) => {
    await must(201, { method: 'POST', url: '/api/v1/orgs', as: 'rp-owner', body: { username: 'rp-hidden', visibility: 'private' } });
    const orgs = await must(200, { url: '/api/v1/admin/users/rp-owner/orgs', as: 'rp-site' });
    t.same(orgs.json().map((o: { name: string }) => o.name).sort(), ['rp-hidden', 'rp-org'], 'private organizations included');
    t.equal(orgs.headers['x-total-count'], '2');
    t.equal((await api({ url: '/api/v1/admin/users/rp-owner/orgs', as: 'rp-owner' })).statusCode, 403, 'the user themself is not a site admin');
    t.equal((await api({ url: '/api/v1/admin/users/rp-owner/orgs' })).statusCode, 401);
    t.equal((await api({ url: '/api/v1/admin/users/nobody-here/orgs', as: 'rp-site' })).statusCode, 404);
  });

  await t.test('the version is one Gitea clients take for 1.26', async (t) => {
    const { version } = (await must(200, { url: '/api/v1/version' })).json();
    // What go-version (the SDK's parser) reads: numeric segments, then pre-release or build metadata.
    const m = /^(\d+)\.(\d+)\.(\d+)(?:\+[0-9A-Za-z.-]+)?$/.exec(version);
    t.ok(m, `${version} parses as a version with build metadata only (a pre-release would sort before 1.26.x)`);
    t.ok(Number(m![1]) === 1 && Number(m![2]) >= 26, 'at least 1.26');
  });

  await t.test('licenses: from the template at creation, then read from LICENSE on each push to the default branch', async (t) => {
    const made = await must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'rp-owner', body: { name: 'rp-licensed', auto_init: true, license: 'MIT' } });
    t.same(made.json().licenses, ['MIT']);
    t.same((await must(201, { method: 'POST', url: '/api/v1/user/repos', as: 'rp-owner', body: { name: 'rp-plain', auto_init: true } })).json().licenses, []);

    const { git, home } = gitSandbox(t);
    const url = cloneUrl(w.baseUrl, '/rp-owner/rp-licensed.git', 'rp-owner', PASSWORD);
    t.equal((await git(['clone', url, 'lic'])).code, 0);
    const work = `${home}/lic`;
    const { writeFileSync, readFileSync } = await import('node:fs');
    const spdx = (id: string) => JSON.parse(readFileSync(new URL(`../../../node_modules/spdx-license-list/licenses/${id}.json`, import.meta.url), 'utf8')).licenseText as string;
    const pushFile = async (text: string | null, branch = 'main') => {
      if (text === null) await git(['rm', '-q', 'LICENSE'], work);
      else { writeFileSync(`${work}/LICENSE`, text); await git(['add', 'LICENSE'], work); }
      await git(['commit', '-q', '-m', 'license change'], work);
      const r = await git(['push', url, `HEAD:${branch}`], work);
      t.equal(r.code, 0, r.stderr);
      return (await must(200, { url: '/api/v1/repos/rp-owner/rp-licensed', as: 'rp-owner' })).json().licenses as string[];
    };
    t.same(await pushFile(spdx('Apache-2.0').replace('[yyyy]', '2026')), ['Apache-2.0'], 'a new text is classified');
    t.same(await pushFile(`${spdx('MIT')}\n\n${spdx('Apache-2.0')}`), ['Apache-2.0', 'MIT'], 'dual licensing lists both');
    t.same(await pushFile(spdx('BSD-2-Clause'), 'other'), ['Apache-2.0', 'MIT'], 'another branch changes nothing');
    t.same(await pushFile('All rights reserved. Ask before you copy.'), [], 'a text that is no known license');
    t.same(await pushFile(null), [], 'no LICENSE, no licenses');
    t.same(await pushFile(spdx('BSD-3-Clause')), ['BSD-3-Clause'], 'BSD-3-Clause, not the BSD-2-Clause it contains');
  });

  await t.test('detection: each of Gitea\'s 28 templates is found as itself', async (t) => {
    const { readFileSync } = await import('node:fs');
    const { DETECTABLE_LICENSES } = await import('../../core/license-detect.js');
    for (const id of DETECTABLE_LICENSES) {
      const text = JSON.parse(readFileSync(new URL(`../../../node_modules/spdx-license-list/licenses/${id}.json`, import.meta.url), 'utf8')).licenseText as string;
      t.same(detectLicenses(text), [id], id);
    }
    t.same(detectLicenses(''), []);
  });

  await t.test('annotated tags are signed by the server, as Gitea signs them', async (t) => {
    const tag = await must(201, { method: 'POST', url: `/api/v1/repos/${repo}/tags`, as: 'rp-writer', body: { tag_name: 'signed-1', message: 'a release' } });
    const path = repoDiskPath(w.config, 'rp-owner', 'rp-repo');
    const object = await readTagObject(path, (await resolveRef(path, 'refs/tags/signed-1'))!);
    t.match(object, { name: 'signed-1', tagger: { name: 'Gitea', email: 'gitea@fake.local' } });
    t.equal(tag.json().message, 'a release');
  });
});

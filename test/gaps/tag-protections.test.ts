// Tag protections against the real app, MariaDB and git: who may manage the rules, Gitea's
// answers for bad input, null-keeps-the-list edits, what the allow-lists show, and the rules
// enforced on the tag API and on git push over smart HTTP, with globs and regular expressions.
import t from 'tap';
import { repoDiskPath } from '../../core/repositories.js';
import { compileTagPattern, tagChangeAllowed } from '../../core/tag-protection.js';
import { resolveRef } from '../../git/index.js';
import { cloneUrl, gitSandbox, PASSWORD } from '../repos/fixtures.js';
import { gapsWorld } from './world.js';

t.test('tag protections', async (t) => {
  const w = await gapsWorld(t, 'tp');
  const { must, api, repo, secret, orgRepo } = w;
  const rules = (r: string) => `/api/v1/repos/${r}/tag_protections`;
  const ADMIN_NEEDED = 'user should be an owner or a collaborator with admin write of a repository';

  await t.test('only repository admins and site admins manage rules; private repositories stay hidden', async (t) => {
    t.equal((await api({ url: rules(repo) })).statusCode, 401, 'anonymous: token required');
    for (const who of ['tp-reader', 'tp-writer', 'tp-outsider']) {
      const r = await api({ url: rules(repo), as: who });
      t.equal(r.statusCode, 403, `${who} is refused`);
      t.equal(r.json().message, ADMIN_NEEDED);
    }
    for (const who of ['tp-admin', 'tp-owner', 'tp-site']) t.equal((await api({ url: rules(repo), as: who })).statusCode, 200, `${who} may list`);
    t.equal((await api({ url: rules(secret), as: 'tp-outsider' })).statusCode, 404, 'a private repository is not found for others');
    t.equal((await api({ url: rules(secret), as: 'tp-reader' })).statusCode, 403, 'its reader sees it but may not manage rules');
    const readOnly = await w.token('tp-owner', ['read:repository']);
    t.equal((await api({ url: rules(repo), headers: readOnly })).statusCode, 200, 'read:repository lists');
    const refused = await api({ method: 'POST', url: rules(repo), headers: readOnly, body: { name_pattern: 'x*', whitelist_usernames: ['tp-owner'] } });
    t.equal(refused.statusCode, 403, 'creating needs write:repository');
  });

  await t.test('create, read, edit and delete with Gitea\'s answers', async (t) => {
    const as = 'tp-owner';
    const post = (body: unknown) => api({ method: 'POST', url: rules(repo), as, body });
    t.match((await post({})).json(), { message: 'name_pattern are empty' });
    t.equal((await post({ name_pattern: '   ' })).statusCode, 400);
    const bothEmpty = await post({ name_pattern: 'v*' });
    t.equal(bothEmpty.statusCode, 400);
    t.equal(bothEmpty.json().message, 'both whitelist_usernames and whitelist_teams are empty');
    const unknown = await post({ name_pattern: 'v*', whitelist_usernames: ['nobody-here'] });
    t.equal(unknown.statusCode, 422);
    t.equal(unknown.json().message, 'user does not exist [uid: 0, name: nobody-here]');
    t.equal((await post({ name_pattern: '/(a/', whitelist_usernames: ['tp-writer'] })).statusCode, 422, 'a regular expression that does not compile is refused');

    const created = await post({ name_pattern: ' v* ', whitelist_usernames: ['tp-writer', 'TP-ADMIN'], whitelist_teams: ['ignored-on-user-repos'] });
    t.equal(created.statusCode, 201, created.body);
    const rule = created.json();
    t.match(rule, { name_pattern: 'v*', whitelist_usernames: ['tp-admin', 'tp-writer'], whitelist_teams: [] }, 'pattern trimmed, users by name, no teams on a user repository');
    t.match(rule.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const dup = await post({ name_pattern: 'v*', whitelist_usernames: ['tp-writer'] });
    t.equal(dup.statusCode, 403);
    t.equal(dup.json().message, 'Tag protection already exist');

    t.same((await must(200, { url: rules(repo), as })).json(), [rule], 'listed');
    t.same((await must(200, { url: `${rules(repo)}/${rule.id}`, as })).json(), rule, 'read by id');
    for (const id of ['0', '999999', String(rule.id + 100)]) await must(404, { url: `${rules(repo)}/${id}`, as });
    await must(404, { url: `${rules(orgRepo)}/${rule.id}`, as }); // another repository's rule is not found

    const edited = await must(200, { method: 'PATCH', url: `${rules(repo)}/${rule.id}`, as, body: { name_pattern: 'v*-rc', whitelist_usernames: ['tp-reader'], whitelist_teams: null } });
    t.match(edited.json(), { id: rule.id, name_pattern: 'v*-rc', whitelist_usernames: ['tp-reader'] });
    const kept = await must(200, { method: 'PATCH', url: `${rules(repo)}/${rule.id}`, as, body: { whitelist_usernames: null } });
    t.same(kept.json().whitelist_usernames, ['tp-reader'], 'null keeps a list');
    const cleared = await must(200, { method: 'PATCH', url: `${rules(repo)}/${rule.id}`, as, body: { whitelist_usernames: [] } });
    t.same(cleared.json().whitelist_usernames, [], 'an empty list clears it');
    const badEdit = await api({ method: 'PATCH', url: `${rules(repo)}/${rule.id}`, as, body: { whitelist_usernames: ['nobody-here'] } });
    t.equal(badEdit.statusCode, 422);
    t.equal((await api({ method: 'PATCH', url: `${rules(repo)}/${rule.id}`, as, body: { name_pattern: '/[/' } })).statusCode, 422);
    await must(403, { method: 'PATCH', url: `${rules(repo)}/${rule.id}`, as: 'tp-writer', body: { name_pattern: 'x' } });

    await must(204, { method: 'DELETE', url: `${rules(repo)}/${rule.id}`, as });
    await must(404, { method: 'DELETE', url: `${rules(repo)}/${rule.id}`, as });
    t.same((await must(200, { url: rules(repo), as })).json(), [], 'gone');
  });

  await t.test('allow-lists show users with a grant and teams that reach the repository', async (t) => {
    await must(201, { method: 'POST', url: '/api/v1/orgs/tp-org/teams', as: 'tp-owner', body: { name: 'elsewhere', permission: 'read', units: ['repo.code'] } });
    const r = await must(201, {
      method: 'POST', url: rules(orgRepo), as: 'tp-owner',
      body: { name_pattern: 'release-*', whitelist_usernames: ['tp-outsider', 'tp-member', 'tp-owner'], whitelist_teams: ['TP-TEAM', 'elsewhere'] },
    });
    t.same(r.json().whitelist_usernames, ['tp-member', 'tp-owner'], 'the outsider is kept but not shown (no grant)');
    t.same(r.json().whitelist_teams, ['tp-team'], "the team that does not reach the repository is not shown; names as stored");
    const badTeam = await api({ method: 'POST', url: rules(orgRepo), as: 'tp-owner', body: { name_pattern: 'z*', whitelist_teams: ['no-team'] } });
    t.equal(badTeam.statusCode, 422);
    t.match(badTeam.json().message, /^team does not exist \[org_id \d+, team_id 0, name: no-team\]$/);
    await must(204, { method: 'DELETE', url: `${rules(orgRepo)}/${r.json().id}`, as: 'tp-owner' });
  });

  await t.test('patterns: globs cross slashes, regular expressions between slashes, linear time', async (t) => {
    const glob = compileTagPattern('v*')!;
    t.ok(glob('v1.0') && glob('v1/beta') && !glob('release-v1'), 'a glob is anchored and * crosses /');
    t.ok(compileTagPattern('v{1,2}.?')!('v2.x') && !compileTagPattern('v{1,2}.?')!('v3.x'));
    const regex = compileTagPattern('/^rc-[0-9]+$/')!;
    t.ok(regex('rc-12') && !regex('rc-x'));
    t.ok(compileTagPattern('/beta/')!('v1-beta-2'), 'a regular expression matches anywhere unless anchored, as Go\'s MatchString');
    t.equal(compileTagPattern('/(?<=a)b/'), null, 'syntax Go does not have is refused');
    const nested = compileTagPattern('/(a+)+$/')!;
    const started = Date.now();
    t.notOk(nested(`${'a'.repeat(20_000)}!`));
    t.ok(Date.now() - started < 2000, 'no catastrophic backtracking');
  });

  await t.test('enforced on the tag API: create and delete refused unless allowed, owners and admins included', async (t) => {
    const rule = (await must(201, { method: 'POST', url: rules(repo), as: 'tp-owner', body: { name_pattern: '/^v[0-9]+$/', whitelist_usernames: ['tp-writer'] } })).json();
    const tags = `/api/v1/repos/${repo}/tags`;
    for (const who of ['tp-owner', 'tp-site', 'tp-admin']) {
      const r = await api({ method: 'POST', url: tags, as: who, body: { tag_name: 'v1' } });
      t.equal(r.statusCode, 422, `${who} may not create a protected tag`);
      t.equal(r.json().message, 'user not allowed to create protected tag');
    }
    await must(201, { method: 'POST', url: tags, as: 'tp-owner', body: { tag_name: 'v1-unprotected' } });
    await must(201, { method: 'POST', url: tags, as: 'tp-writer', body: { tag_name: 'v1', message: 'annotated' } });
    const del = await api({ method: 'DELETE', url: `${tags}/v1`, as: 'tp-owner' });
    t.equal(del.statusCode, 422);
    t.equal(del.json().message, 'user not allowed to delete protected tag');
    await must(204, { method: 'DELETE', url: `${tags}/v1`, as: 'tp-writer' });
    await must(409, { method: 'POST', url: tags, as: 'tp-owner', body: { tag_name: 'v1-unprotected' } }); // an existing tag is a conflict first, as in Gitea
    await must(204, { method: 'DELETE', url: `${rules(repo)}/${rule.id}`, as: 'tp-owner' });

    // Teams: the organization's team lets its members through; others are refused.
    const teamRule = (await must(201, { method: 'POST', url: rules(orgRepo), as: 'tp-owner', body: { name_pattern: 'v*', whitelist_teams: ['tp-team'] } })).json();
    await must(201, { method: 'POST', url: `/api/v1/repos/${orgRepo}/tags`, as: 'tp-member', body: { tag_name: 'v2' } });
    t.equal((await api({ method: 'POST', url: `/api/v1/repos/${orgRepo}/tags`, as: 'tp-owner', body: { tag_name: 'v3' } })).statusCode, 422, 'the org owner is not on the list');
    await must(204, { method: 'DELETE', url: `${rules(orgRepo)}/${teamRule.id}`, as: 'tp-owner' });
  });

  await t.test('enforced on git push: creating, moving and deleting a protected tag', async (t) => {
    const { git, home } = gitSandbox(t);
    const rule = (await must(201, { method: 'POST', url: rules(repo), as: 'tp-owner', body: { name_pattern: 'p*', whitelist_usernames: ['tp-writer'] } })).json();
    const as = (user: string) => cloneUrl(w.baseUrl, `/${repo}.git`, user, PASSWORD);
    const path = repoDiskPath(w.config, 'tp-owner', 'tp-repo');
    t.equal((await git(['clone', as('tp-owner'), 'work'])).code, 0);
    const work = `${home}/work`;
    t.equal((await git(['tag', 'p1'], work)).code, 0);
    t.equal((await git(['tag', 'free1'], work)).code, 0);

    const refused = await git(['push', as('tp-owner'), 'refs/tags/p1'], work);
    t.not(refused.code, 0, 'the owner cannot push a protected tag');
    t.match(refused.stderr, /403/);
    t.equal(await resolveRef(path, 'refs/tags/p1'), null, 'nothing was written');
    t.equal((await git(['push', as('tp-owner'), 'refs/tags/free1'], work)).code, 0, 'other tags push as usual');

    const allowed = await git(['push', as('tp-writer'), 'refs/tags/p1'], work);
    t.equal(allowed.code, 0, allowed.stderr);
    t.ok(await resolveRef(path, 'refs/tags/p1'), 'the allowed writer pushed it');

    t.not((await git(['push', as('tp-owner'), ':refs/tags/p1'], work)).code, 0, 'the owner cannot delete it by push');
    t.ok(await resolveRef(path, 'refs/tags/p1'));
    t.equal((await git(['commit', '--allow-empty', '-m', 'later'], work)).code, 0);
    t.not((await git(['push', '--force', as('tp-admin'), 'HEAD:refs/tags/p1'], work)).code, 0, 'nor move it');
    t.equal((await git(['push', as('tp-writer'), ':refs/tags/p1'], work)).code, 0, 'the allowed writer deletes it');
    t.equal(await resolveRef(path, 'refs/tags/p1'), null);

    const repoId = Number((await w.db('repositories').where({ lower_name: 'tp-repo' }).first('id')).id);
    t.notOk(await tagChangeAllowed(w.db, repoId, 'p9', null), 'anonymous never passes a rule');
    t.ok(await tagChangeAllowed(w.db, repoId, 'q9', null), 'a tag no rule covers is free');
    await must(204, { method: 'DELETE', url: `${rules(repo)}/${rule.id}`, as: 'tp-owner' });
  });

  await t.test('the repository\'s archived state: rules can be read and deleted, not created or edited', async (t) => {
    const rule = (await must(201, { method: 'POST', url: rules(repo), as: 'tp-owner', body: { name_pattern: 'arch*', whitelist_usernames: ['tp-owner'] } })).json();
    await must(200, { method: 'PATCH', url: `/api/v1/repos/${repo}`, as: 'tp-owner', body: { archived: true } });
    await must(423, { method: 'POST', url: rules(repo), as: 'tp-owner', body: { name_pattern: 'other*', whitelist_usernames: ['tp-owner'] } });
    await must(423, { method: 'PATCH', url: `${rules(repo)}/${rule.id}`, as: 'tp-owner', body: { name_pattern: 'x*' } });
    await must(200, { url: rules(repo), as: 'tp-owner' });
    await must(204, { method: 'DELETE', url: `${rules(repo)}/${rule.id}`, as: 'tp-owner' });
    await must(200, { method: 'PATCH', url: `/api/v1/repos/${repo}`, as: 'tp-owner', body: { archived: false } });
  });
});

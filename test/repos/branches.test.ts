// Branches and branch protection: rule matching, the rules' API, and what branches report.
import t from 'tap';
import { startTestServices } from '../helper.js';
import {
  canPush, firstMatchingRule, protectionFor, ruleMatches, statusContextMatches, DEFAULT_PROTECTION, type ProtectionRule,
} from '../../core/branch-protection.js';
import { loadRepository } from '../../core/permissions.js';
import { usersStore } from '../../db/users.js';
import { call, makeUser } from './fixtures.js';

t.test('rule and status-context globs', async (t) => {
  t.ok(ruleMatches('main', 'main'));
  t.notOk(ruleMatches('main', 'main2'));
  t.ok(ruleMatches('release/*', 'release/1.0'));
  t.notOk(ruleMatches('release/*', 'release/1.0/hotfix'), '* does not cross /');
  t.ok(ruleMatches('release/**', 'release/1.0/hotfix'), '** does');
  t.ok(ruleMatches('{main,dev}', 'dev'));
  t.ok(ruleMatches('v[0-9]', 'v1'));
  t.ok(statusContextMatches('ci/*', 'ci/build/linux'), 'contexts have no separator');
  t.ok(statusContextMatches('lint', 'lint'));
  t.notOk(statusContextMatches('lint', 'lint2'));
  const rule = (id: number, rule_name: string, priority: number): ProtectionRule =>
    ({ id, repo_id: 1, rule_name, priority, settings: DEFAULT_PROTECTION, created_unix: 0, updated_unix: 0 });
  const rules = [rule(1, '*', 2), rule(2, 'ma*', 1), rule(3, 'main', 9)];
  t.equal(firstMatchingRule(rules, 'main')?.id, 3, 'an exact name wins');
  t.equal(firstMatchingRule(rules, 'master')?.id, 1, 'then glob rules in list (priority) order');
  t.equal(firstMatchingRule([], 'x'), null);
});

t.test('branches and branch protection over the API', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'owner');
  await makeUser(db, 'dev');
  await makeUser(db, 'other');
  t.equal((await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'owner', body: { name: 'lib', auto_init: true, default_branch: 'trunk' } })).statusCode, 201);
  await call(app, { method: 'PUT', url: '/api/v1/repos/owner/lib/collaborators/dev', as: 'owner', body: { permission: 'write' } });
  await call(app, { method: 'PUT', url: '/api/v1/repos/owner/lib/collaborators/other', as: 'owner', body: { permission: 'write' } });

  const trunk = await call(app, { url: '/api/v1/repos/owner/lib/branches/trunk', as: 'dev' });
  t.equal(trunk.statusCode, 200);
  t.match(trunk.json(), { name: 'trunk', protected: false, user_can_push: true, commit: { id: /^[0-9a-f]{40}$/, message: 'Initial commit\n', author: { username: 'owner' } } });
  const sha = trunk.json().commit.id as string;

  const created = await call(app, { method: 'POST', url: '/api/v1/repos/owner/lib/branches', as: 'dev', body: { new_branch_name: 'release/1.0', old_ref_name: sha } });
  t.equal(created.statusCode, 201, created.body);
  t.equal((await call(app, { method: 'POST', url: '/api/v1/repos/owner/lib/branches', as: 'dev', body: { new_branch_name: 'release/1.0' } })).statusCode, 409);
  t.equal((await call(app, { method: 'POST', url: '/api/v1/repos/owner/lib/branches', as: 'dev', body: { new_branch_name: 'x', old_branch_name: 'nope' } })).statusCode, 404);
  t.equal((await call(app, { method: 'POST', url: '/api/v1/repos/owner/lib/branches', as: 'dev', body: { new_branch_name: 'feature', old_branch_name: 'release/1.0' } })).statusCode, 201);
  const nested = await call(app, { url: '/api/v1/repos/owner/lib/branches/release/1.0' });
  t.equal(nested.json().name, 'release/1.0', 'branch names with / are found');
  const list = await call(app, { url: '/api/v1/repos/owner/lib/branches?limit=2' });
  t.equal(list.headers['x-total-count'], '3');
  t.equal(list.json().length, 2);

  const rule = await call(app, {
    method: 'POST', url: '/api/v1/repos/owner/lib/branch_protections', as: 'owner',
    body: { rule_name: 'release/*', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['dev'], enable_status_check: true, status_check_contexts: ['ci/*'], required_approvals: 2, block_on_rejected_reviews: true, block_on_outdated_branch: true, require_signed_commits: false },
  });
  t.equal(rule.statusCode, 201, rule.body);
  t.match(rule.json(), { rule_name: 'release/*', branch_name: 'release/*', push_whitelist_usernames: ['dev'], required_approvals: 2, status_check_contexts: ['ci/*'] });
  t.equal((await call(app, { method: 'POST', url: '/api/v1/repos/owner/lib/branch_protections', as: 'owner', body: { rule_name: 'release/*' } })).statusCode, 403, 'a rule name is unique');
  t.equal((await call(app, { method: 'POST', url: '/api/v1/repos/owner/lib/branch_protections', as: 'owner', body: { rule_name: 'x', push_whitelist_usernames: ['ghost'] } })).statusCode, 422);
  t.equal((await call(app, { method: 'POST', url: '/api/v1/repos/owner/lib/branch_protections', as: 'owner', body: { rule_name: 'x', push_whitelist_teams: ['t'] } })).statusCode, 422, 'teams only for organizations');

  const got = await call(app, { url: '/api/v1/repos/owner/lib/branch_protections/release/*', as: 'owner' });
  t.equal(got.statusCode, 200);
  const protectedBranch = await call(app, { url: '/api/v1/repos/owner/lib/branches/release/1.0', as: 'other' });
  t.match(protectedBranch.json(), { protected: true, effective_branch_protection_name: 'release/*', required_approvals: 2, enable_status_check: true, status_check_contexts: ['ci/*'], user_can_push: false });
  t.equal((await call(app, { url: '/api/v1/repos/owner/lib/branches/release/1.0', as: 'dev' })).json().user_can_push, true);
  // A whole page is read at once (one git process, one query per kind): each branch still gets its
  // own commit, rule and permissions, in name order, also where branches share a commit.
  const page = await call(app, { url: '/api/v1/repos/owner/lib/branches', as: 'other' });
  t.same(page.json().map((b: { name: string }) => b.name), ['feature', 'release/1.0', 'trunk']);
  t.match(page.json(), [
    { name: 'feature', protected: false, effective_branch_protection_name: '', user_can_push: true, user_can_merge: true, commit: { id: sha, author: { username: 'owner' }, committer: { username: 'owner' } } },
    { name: 'release/1.0', protected: true, effective_branch_protection_name: 'release/*', required_approvals: 2, user_can_push: false, user_can_merge: true, commit: { id: sha } },
    { name: 'trunk', protected: false, user_can_push: true, commit: { id: sha, message: 'Initial commit\n' } },
  ]);
  t.match((await call(app, { url: '/api/v1/repos/owner/lib/branches', as: 'dev' })).json()[1], { name: 'release/1.0', user_can_push: true }, 'the push whitelist per caller');
  t.match((await call(app, { url: '/api/v1/repos/owner/lib/branches' })).json()[0], { name: 'feature', user_can_push: false, user_can_merge: false }, 'anonymous callers may do neither');

  const repoRow = await db('repositories').where({ lower_name: 'lib' }).first('id');
  const dev = await usersStore(db).byName('dev');
  const ctx = await loadRepository(db, { ownerName: 'owner', repoName: 'lib', doer: dev! });
  t.equal((await protectionFor(db, Number(repoRow.id), 'release/1.0'))?.rule_name, 'release/*');
  t.equal(await canPush(db, ctx, 'release/1.0', dev!), true);
  t.equal(await canPush(db, ctx, 'release/1.0', dev!, { force: true }), false, 'force pushes need their own permission');
  t.equal(await canPush(db, ctx, 'feature', dev!, { force: true }), true, 'unprotected branches take force pushes');

  const del = await call(app, { method: 'DELETE', url: '/api/v1/repos/owner/lib/branches/release/1.0', as: 'owner' });
  t.equal(del.statusCode, 403, 'a protected branch cannot be deleted');
  t.equal((await call(app, { method: 'DELETE', url: '/api/v1/repos/owner/lib/branches/trunk', as: 'owner' })).statusCode, 403, 'nor the default branch');
  t.equal((await call(app, { method: 'DELETE', url: '/api/v1/repos/owner/lib/branches/missing', as: 'owner' })).statusCode, 404);

  const patched = await call(app, { method: 'PATCH', url: '/api/v1/repos/owner/lib/branch_protections/release/*', as: 'owner', body: { enable_force_push: true, required_approvals: 1 } });
  t.equal(patched.statusCode, 200);
  t.match(patched.json(), { enable_force_push: true, required_approvals: 1, push_whitelist_usernames: ['dev'] });
  t.equal(await canPush(db, ctx, 'release/1.0', dev!, { force: true }), true);
  t.equal((await call(app, { method: 'DELETE', url: '/api/v1/repos/owner/lib/branch_protections/release/*', as: 'owner' })).statusCode, 204);
  t.equal((await call(app, { url: '/api/v1/repos/owner/lib/branch_protections/release/*', as: 'owner' })).statusCode, 404);
  t.equal((await call(app, { method: 'DELETE', url: '/api/v1/repos/owner/lib/branches/release/1.0', as: 'dev' })).statusCode, 204);

  const edit = await call(app, {
    method: 'PATCH', url: '/api/v1/repos/owner/lib', as: 'owner',
    body: { description: 'd', default_branch: 'feature', allow_merge_commits: false, allow_rebase: false, allow_rebase_explicit: false, allow_squash_merge: true, allow_fast_forward_only_merge: false, allow_manual_merge: true, default_merge_style: 'squash', default_delete_branch_after_merge: true, autodetect_manual_merge: true, private: true },
  });
  t.equal(edit.statusCode, 200, edit.body);
  t.match(edit.json(), { description: 'd', default_branch: 'feature', allow_merge_commits: false, allow_squash_merge: true, default_merge_style: 'squash', default_delete_branch_after_merge: true, autodetect_manual_merge: true, private: true, allow_manual_merge: true });
  const ignored = await call(app, { method: 'PATCH', url: '/api/v1/repos/owner/lib', as: 'owner', body: { default_branch: 'does-not-exist' } });
  t.equal(ignored.json().default_branch, 'feature', 'a missing branch is ignored, as Gitea does');
  t.equal((await call(app, { method: 'PATCH', url: '/api/v1/repos/owner/lib', as: 'owner', body: { default_merge_style: 'bogus' } })).statusCode, 422);
  const renamed = await call(app, { method: 'PATCH', url: '/api/v1/repos/owner/lib', as: 'owner', body: { name: 'lib2' } });
  t.equal(renamed.json().full_name, 'owner/lib2');
  t.equal((await call(app, { url: '/api/v1/repos/owner/lib2/branches/feature', as: 'owner' })).statusCode, 200, 'the directory moved with the name');
});

// End to end: users, an organization, repositories and a fork made through the API, then the real
// git binary cloning, committing and pushing over HTTP (password, token, anonymous, refusals), and
// a push moving an open pull request's head.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestServices } from '../helper.js';
import { repoDiskPath } from '../../core/repositories.js';
import { resolveRef } from '../../git/index.js';
import { sealSecret } from '../../core/auth/secret-box.js';
import { generateTotpSecret, totpCodeAt, totpStep } from '../../core/auth/totp.js';
import { usersStore } from '../../db/users.js';
import { basic, call, cloneUrl, gitSandbox, makeUser, PASSWORD } from './fixtures.js';

t.test('repositories over the API and git over smart HTTP', async (t) => {
  const { app, db, baseUrl, config } = await startTestServices(t, { listen: true });
  const { home, git } = gitSandbox(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  await makeUser(db, 'carol');

  const org = await call(app, { method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme' } });
  t.equal(org.statusCode, 201, 'organization created');

  const widget = await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'widget', auto_init: true, description: 'A widget' } });
  t.equal(widget.statusCode, 201, widget.body);
  t.match(widget.json(), {
    name: 'widget', full_name: 'alice/widget', empty: false, private: false, fork: false, default_branch: 'main',
    clone_url: `${baseUrl}alice/widget.git`, html_url: `${baseUrl}alice/widget`, owner: { login: 'alice' },
    permissions: { admin: true, push: true, pull: true }, branch_count: 1, open_issues_count: 0,
  });
  const dup = await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'Widget' } });
  t.equal(dup.statusCode, 409, 'same name (any case) is a conflict');

  const tools = await call(app, { method: 'POST', url: '/api/v1/orgs/acme/repos', as: 'alice', body: { name: 'tools', private: true, auto_init: true } });
  t.equal(tools.statusCode, 201, tools.body);
  t.match(tools.json(), { full_name: 'acme/tools', private: true });
  const notMember = await call(app, { method: 'POST', url: '/api/v1/orgs/acme/repos', as: 'carol', body: { name: 'x' } });
  t.equal(notMember.statusCode, 403, 'a non-member cannot create in the organization');

  const fork = await call(app, { method: 'POST', url: '/api/v1/repos/alice/widget/forks', as: 'bob', body: {} });
  t.equal(fork.statusCode, 202, fork.body);
  t.match(fork.json(), { full_name: 'bob/widget', fork: true, parent: { full_name: 'alice/widget' } });
  const again = await call(app, { method: 'POST', url: '/api/v1/repos/alice/widget/forks', as: 'bob', body: {} });
  t.equal(again.statusCode, 409, 'a second fork by the same owner is refused');
  const second = await call(app, { method: 'POST', url: '/api/v1/repos/alice/widget/forks', as: 'alice', body: { organization: 'acme', name: 'widget-fork' } });
  t.equal(second.statusCode, 202, second.body);
  const forks = await call(app, { url: '/api/v1/repos/alice/widget/forks' });
  t.equal(forks.statusCode, 200);
  t.equal(forks.headers['x-total-count'], '2');
  // The page's forks share their parent, read once for the page; each keeps its own counters.
  t.match(forks.json(), [
    { full_name: 'bob/widget', fork: true, branch_count: 1, parent: { full_name: 'alice/widget', branch_count: 1 } },
    { full_name: 'acme/widget-fork', fork: true, branch_count: 1, parent: { full_name: 'alice/widget', branch_count: 1 } },
  ]);
  t.equal(forks.json()[0].parent.parent, undefined, 'the parent carries no parent of its own');
  t.equal((await call(app, { url: '/api/v1/repos/alice/widget' })).json().forks_count, 2);

  await t.test('anonymous clone of a public repository', async (t) => {
    const r = await git(['clone', cloneUrl(baseUrl, '/alice/widget.git'), 'anon-widget']);
    t.equal(r.code, 0, r.stderr);
    t.equal(readFileSync(join(home, 'anon-widget', 'README.md'), 'utf8'), '# widget\n\nA widget', "Gitea's Default README");
    const noSuffix = await git(['clone', cloneUrl(baseUrl, '/alice/widget'), 'anon-widget-2']);
    t.equal(noSuffix.code, 0, 'the URL without .git works too');
  });

  await t.test('private repositories refuse anonymous and unauthorised reads', async (t) => {
    const anon = await git(['clone', cloneUrl(baseUrl, '/acme/tools.git'), 'anon-tools']);
    t.not(anon.code, 0, 'anonymous clone of a private repository fails');
    t.notOk(existsSync(join(home, 'anon-tools', '.git', 'HEAD')));
    const carol = await git(['clone', cloneUrl(baseUrl, '/acme/tools.git', 'carol', PASSWORD), 'carol-tools']);
    t.not(carol.code, 0, 'a user without access cannot clone');
    const refs = await app.inject({ url: '/acme/tools.git/info/refs?service=git-upload-pack' });
    t.equal(refs.statusCode, 401);
    t.equal(refs.headers['www-authenticate'], 'Basic realm="."');
    const owner = await git(['clone', cloneUrl(baseUrl, '/acme/tools.git', 'alice', PASSWORD), 'alice-tools']);
    t.equal(owner.code, 0, owner.stderr);
  });

  const work = join(home, 'alice-widget');
  const commitFile = async (dir: string, name: string, content: string) => {
    writeFileSync(join(dir, name), content);
    t.equal((await git(['add', name], dir)).code, 0);
    t.equal((await git(['commit', '-q', '-m', `add ${name}`], dir)).code, 0);
    return (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
  };

  await t.test('push with a password and with a token', async (t) => {
    t.equal((await git(['clone', cloneUrl(baseUrl, '/alice/widget.git', 'alice', PASSWORD), 'alice-widget'])).code, 0);
    const sha = await commitFile(work, 'a.txt', 'a\n');
    const push = await git(['push', 'origin', 'main'], work);
    t.equal(push.code, 0, push.stderr);
    const branch = await call(app, { url: '/api/v1/repos/alice/widget/branches/main' });
    t.equal(branch.json().commit.id, sha, 'the branch moved');

    const token = await app.inject({ method: 'POST', url: '/api/v1/users/alice/tokens', headers: basic('alice'), payload: { name: 'git', scopes: ['write:repository'] } });
    t.equal(token.statusCode, 201, token.body);
    const secret = token.json().sha1 as string;
    const sha2 = await commitFile(work, 'b.txt', 'b\n');
    const viaToken = await git(['push', cloneUrl(baseUrl, '/alice/widget.git', 'alice', secret), 'main'], work);
    t.equal(viaToken.code, 0, viaToken.stderr);
    t.equal(await resolveRef(repoDiskPath(config, 'alice', 'widget'), 'refs/heads/main'), sha2);

    const readOnly = await app.inject({ method: 'POST', url: '/api/v1/users/alice/tokens', headers: basic('alice'), payload: { name: 'ro', scopes: ['read:repository'] } });
    await commitFile(work, 'c.txt', 'c\n');
    const refused = await git(['push', cloneUrl(baseUrl, '/alice/widget.git', 'alice', readOnly.json().sha1), 'main'], work);
    t.not(refused.code, 0, 'a read-only token cannot push');
  });

  await t.test('pushes by people without write access are refused', async (t) => {
    const r = await git(['push', cloneUrl(baseUrl, '/alice/widget.git', 'carol', PASSWORD), 'main'], work);
    t.not(r.code, 0);
    t.match(r.stderr, /403/, 'a reader is forbidden');
    const anon = await git(['push', cloneUrl(baseUrl, '/alice/widget.git'), 'main'], work);
    t.not(anon.code, 0);
  });

  await t.test('a protected branch refuses pushes and deletion', async (t) => {
    const rule = await call(app, { method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: { rule_name: 'main' } });
    t.equal(rule.statusCode, 201, rule.body);
    const before = await resolveRef(repoDiskPath(config, 'alice', 'widget'), 'refs/heads/main');
    const r = await git(['push', 'origin', 'main'], work);
    t.not(r.code, 0, 'push to a protected branch fails');
    t.match(r.stderr, /403/, 'refused with 403 before git ran');
    t.equal(await resolveRef(repoDiskPath(config, 'alice', 'widget'), 'refs/heads/main'), before, 'and the branch did not move');
    const other = await git(['push', 'origin', 'main:feature/x'], work);
    t.equal(other.code, 0, 'an unprotected branch still takes pushes');
    const del = await git(['push', 'origin', ':main'], work);
    t.not(del.code, 0, 'the default branch cannot be deleted');
    const badRef = await git(['push', 'origin', 'main:refs/pull/1/head'], work);
    t.not(badRef.code, 0, 'refs outside heads and tags are refused');
    await call(app, { method: 'DELETE', url: '/api/v1/repos/alice/widget/branch_protections/main', as: 'alice' });
    t.equal((await git(['push', 'origin', 'main'], work)).code, 0, 'after removing the rule the push goes through');
  });

  await t.test('an archived repository refuses pushes', async (t) => {
    const archive = await call(app, { method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { archived: true } });
    t.equal(archive.statusCode, 200);
    t.equal(archive.json().archived, true);
    await commitFile(work, 'd.txt', 'd\n');
    const refused = await git(['push', 'origin', 'main'], work);
    t.not(refused.code, 0);
    t.match(refused.stderr, /403/);
    const clone = await git(['clone', cloneUrl(baseUrl, '/alice/widget.git'), 'archived-clone']);
    t.equal(clone.code, 0, 'reads still work');
    const unarchive = await call(app, { method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { archived: false } });
    t.equal(unarchive.json().archived, false);
    t.equal((await git(['push', 'origin', 'main'], work)).code, 0);
  });

  await t.test('the first push makes an empty repository non-empty', async (t) => {
    const empty = await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'blank' } });
    t.equal(empty.json().empty, true);
    const r = await git(['push', cloneUrl(baseUrl, '/alice/blank.git', 'alice', PASSWORD), 'main'], work);
    t.equal(r.code, 0, r.stderr);
    const after = await call(app, { url: '/api/v1/repos/alice/blank' });
    t.match(after.json(), { empty: false, default_branch: 'main' });
  });

  await t.test('a push to a pull request head branch moves refs/pull/N/head in the base', async (t) => {
    const base = (await call(app, { url: '/api/v1/repos/alice/widget' })).json();
    const head = (await call(app, { url: '/api/v1/repos/bob/widget' })).json();
    const now = Math.floor(Date.now() / 1000);
    const [issueId] = await db('issues').insert({ repo_id: base.id, index: 1, poster_id: head.owner.id, title: 'pr', content: '', is_pull: true, created_unix: now, updated_unix: now });
    await db('pull_requests').insert({
      issue_id: Number(issueId), index: 1, base_repo_id: base.id, head_repo_id: head.id, base_branch: 'main', head_branch: 'topic', conflicted_files: '[]',
    });
    const sha = await commitFile(work, 'topic.txt', 'topic\n');
    const push = await git(['push', cloneUrl(baseUrl, '/bob/widget.git', 'bob', PASSWORD), 'HEAD:topic'], work);
    t.equal(push.code, 0, push.stderr);
    t.equal(await resolveRef(repoDiskPath(config, 'alice', 'widget'), 'refs/pull/1/head'), sha, 'the base repository has the new head');
    const row = await db('pull_requests').where({ issue_id: Number(issueId) }).first('head_commit_id');
    t.equal(row.head_commit_id, sha);
  });

  await t.test('users with two-factor authentication must use a token for git', async (t) => {
    const dora = await makeUser(db, 'dora');
    const created = await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'dora', body: { name: 'secret', private: true, auto_init: true } });
    t.equal(created.statusCode, 201);
    const token = await app.inject({ method: 'POST', url: '/api/v1/users/dora/tokens', headers: basic('dora'), payload: { name: 'git', scopes: ['read:repository'] } });
    t.equal(token.statusCode, 201, token.body);
    const secret = generateTotpSecret();
    await usersStore(db).update(dora.id, { totp_secret: sealSecret(secret, app.services.secretKey) });
    const withPassword = await git(['clone', cloneUrl(baseUrl, '/dora/secret.git', 'dora', PASSWORD), 'dora-pw']);
    t.not(withPassword.code, 0, 'password basic auth is refused');
    const withOtp = await app.inject({
      url: '/dora/secret.git/info/refs?service=git-upload-pack',
      headers: { ...basic('dora'), 'x-gitea-otp': totpCodeAt(secret, totpStep(Date.now())) },
    });
    t.equal(withOtp.statusCode, 401, 'even with a valid one-time code');
    t.equal(withOtp.headers['www-authenticate'], 'Basic realm="."');
    const withToken = await git(['clone', cloneUrl(baseUrl, '/dora/secret.git', 'dora', token.json().sha1), 'dora-token']);
    t.equal(withToken.code, 0, withToken.stderr);
  });

  await t.test('deleting a repository removes its directory and rows', async (t) => {
    const path = repoDiskPath(config, 'alice', 'blank');
    t.ok(existsSync(path));
    const id = (await call(app, { url: '/api/v1/repos/alice/blank' })).json().id;
    const del = await call(app, { method: 'DELETE', url: '/api/v1/repos/alice/blank', as: 'alice' });
    t.equal(del.statusCode, 204);
    t.notOk(existsSync(path));
    t.notOk(await db('repositories').where({ id }).first());
    t.notOk(await db('issue_indexes').where({ repo_id: id }).first());
    t.equal((await call(app, { url: '/api/v1/repos/alice/blank' })).statusCode, 404);
  });
});

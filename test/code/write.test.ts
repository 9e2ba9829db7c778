// The code routes that write, over the real app, MariaDB, Temporal and git: file changes through
// the contents API (checks, identities, branches, branch protection as a push sees it), branch
// rename and update, and open pull requests following every branch move as they follow a push.
import t from 'tap';
import { pullWorld, settledMergeable } from '../pulls/fixtures.js';
import { openPull, refOf, waitFor } from '../merge/world.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('code writes', async (t) => {
  const w = await pullWorld(t);
  const api = w.api;
  await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/collaborators/carol', as: 'alice', body: { permission: 'read' } });
  const file = (path: string, as: string | null, body: Record<string, unknown>, method: 'POST' | 'PUT' | 'DELETE' = 'POST') =>
    api({ method, url: `/api/v1/repos/alice/widget/contents/${path}`, as, body });
  const sha = async (path: string, ref = 'main') => (await api({ url: `/api/v1/repos/alice/widget/contents/${path}?ref=${ref}` })).json().sha as string;
  const pullRow = async (index: number) => w.db('pull_requests as p').join('repositories as r', 'r.id', 'p.base_repo_id').where({ 'r.lower_name': 'widget', 'p.index': index }).andWhere('r.owner_id', w.users.alice.id).first('p.*');

  await t.test('create, update, move and delete files', async (t) => {
    const created = await file('notes/todo.md', 'dave', { content: b64('one\n'), message: '  first notes  ', author: { name: 'Ann Author', email: 'ann@example.com' }, dates: { author: '2021-02-03T04:05:06+01:00' }, signoff: true });
    t.equal(created.statusCode, 201, created.body);
    const c = created.json();
    t.match(c.content, { path: 'notes/todo.md', type: 'file', content: b64('one\n'), last_commit_sha: c.commit.sha, url: /contents\/notes\/todo\.md\?ref=main$/ });
    t.match(c.commit, { message: 'first notes\n\nSigned-off-by: Ann Author <ann@example.com>', author: { name: 'Ann Author', email: 'ann@example.com', date: '2021-02-03T03:05:06Z' }, committer: { name: 'Ann Author', email: 'ann@example.com' } });
    t.match(c.verification, { verified: false, reason: 'gpg.error.not_signed_commit' });
    t.equal(refOf(w, 'refs/heads/main'), c.commit.sha, 'the branch moved');

    const noSha = await file('notes/todo.md', 'dave', { content: b64('x') }, 'PUT');
    t.same([noSha.statusCode, noSha.json().message], [422, 'repository file already exists [path: notes/todo.md]'], 'PUT without sha creates, and the file exists');
    const wrong = await file('notes/todo.md', 'dave', { content: b64('x'), sha: '0'.repeat(40) }, 'PUT');
    t.same([wrong.statusCode, wrong.json().message], [422, `sha does not match [given: ${'0'.repeat(40)}, expected: ${c.content.sha}]`]);
    const updated = await file('notes/todo.md', 'dave', { content: b64('two\n'), sha: c.content.sha }, 'PUT');
    t.equal(updated.statusCode, 200);
    t.match(updated.json().commit, { message: 'Update notes/todo.md\n', author: { name: 'dave', email: 'dave@example.com' }, parents: [{ sha: c.commit.sha }] });
    const moved = await file('docs/todo.md', 'dave', { content: b64('three\n'), sha: updated.json().content.sha, from_path: 'notes/todo.md' }, 'PUT');
    t.equal(moved.statusCode, 200, moved.body);
    t.equal((await api({ url: '/api/v1/repos/alice/widget/contents/notes/todo.md' })).statusCode, 404, 'moved away');
    t.equal((await api({ url: '/api/v1/repos/alice/widget/raw/docs/todo.md' })).body, 'three\n');

    for (const [path, message] of [
      ['docs/todo.md/inner', 'a file exists where you’re trying to create a subdirectory [path: docs/todo.md]'],
      ['docs', 'a directory exists where you’re trying to create a file [path: docs]'],
      ['.git/hooks/post-update', 'path contains a malformed path component [path: .git/hooks/post-update]'],
      ['a/.Git', 'path contains a malformed path component [path: a/.Git]'],
    ]) {
      const r = await file(path, 'dave', { content: b64('x') });
      t.same([r.statusCode, r.json().message], [422, message], path);
    }
    const escaped = await file('..%2F..%2Fescaped.txt', 'dave', { content: b64('x') });
    t.match([escaped.statusCode, escaped.json().content?.path], [201, 'escaped.txt'], 'a path cannot climb out of the tree');
    t.equal((await file('bad64', 'dave', { content: 'not base64!' })).json().message, 'illegal base64 data at input byte 3');
    t.equal((await file('x', 'dave', { content: b64('x'), branch: 'nope' })).statusCode, 404);
    t.equal((await file('x', 'dave', { content: b64('x'), new_branch: 'bad..name' })).json().message, '[NewBranchName]: GitRefName');

    const del = await file('docs/todo.md', 'dave', { sha: moved.json().content.sha, message: 'gone' }, 'DELETE');
    t.equal(del.statusCode, 200);
    t.match(del.json(), { content: null, commit: { message: 'gone\n' } });
    t.equal((await file('docs/todo.md', 'dave', { sha: moved.json().content.sha }, 'DELETE')).statusCode, 404);

    const multi = await api({ method: 'POST', url: '/api/v1/repos/alice/widget/contents', as: 'dave', body: { files: [
      { operation: 'create', path: 'm/a.txt', content: b64('a') },
      { operation: 'upload', path: 'm/b.txt', content: b64('b') },
      { operation: 'rename', path: 'm/escaped.txt', from_path: 'escaped.txt' },
    ] } });
    t.equal(multi.statusCode, 201, multi.body);
    t.same(multi.json().files.map((f: { path: string }) => f.path), ['m/a.txt', 'm/b.txt', 'm/escaped.txt']);
    t.equal(multi.json().commit.message, 'Add m/a.txt\nUpdate m/b.txt, m/escaped.txt\n', "Gitea's default message");
    const tree = (await api({ url: '/api/v1/repos/alice/widget/git/trees/main?recursive=true' })).json().tree.map((e: { path: string }) => e.path);
    t.ok(tree.includes('m/escaped.txt') && !tree.includes('escaped.txt'), 'the rename kept one copy');
  });

  await t.test('who may write', async (t) => {
    const reader = await file('r.txt', 'carol', { content: b64('x') });
    t.same([reader.statusCode, reader.json().message], [403, 'user should have a permission to write to the target branch']);
    t.equal((await file('r.txt', null, { content: b64('x') })).statusCode, 401);
    t.equal((await file('r.txt', 'bob', { content: b64('x') })).statusCode, 403, 'a stranger to the repository');
    await api({ method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { archived: true } });
    t.equal((await file('r.txt', 'alice', { content: b64('x') })).statusCode, 423, 'archived');
    await api({ method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { archived: false } });
  });

  await t.test('branch protection judges file changes as it judges pushes', async (t) => {
    const rule = await api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
      rule_name: 'main', enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['alice'],
      protected_file_patterns: '*.lock;ci/**', unprotected_file_patterns: 'docs/**',
    } });
    t.equal(rule.statusCode, 201, rule.body);
    const blocked = await file('src.txt', 'dave', { content: b64('x') });
    t.same([blocked.statusCode, blocked.json().message], [403, 'user cannot commit to repo [user: dave]'], 'off the whitelist');
    t.equal((await file('docs/free.md', 'dave', { content: b64('x') })).statusCode, 201, 'unprotected files are let through');
    const locked = await file('yarn.lock', 'alice', { content: b64('x') });
    t.same([locked.statusCode, locked.json().message], [403, 'path is protected and can not be changed [path: yarn.lock]'], 'protected files even for the whitelisted');
    t.equal((await file('ci/deep/job.yml', 'alice', { content: b64('x') })).statusCode, 403);
    t.equal((await file('ok.txt', 'alice', { content: b64('x') })).statusCode, 201, 'the whitelisted may commit');
    const viaBranch = await file('z.txt', 'dave', { content: b64('x'), branch: 'feature-z', new_branch: 'main', force_push: true });
    t.equal(viaBranch.statusCode, 404, 'the old branch must exist');
    const forced = await file('z.txt', 'dave', { content: b64('x'), new_branch: 'main', branch: 'main' });
    t.equal(forced.statusCode, 403);
    await api({ method: 'DELETE', url: '/api/v1/repos/alice/widget/branch_protections/main', as: 'alice' });
    t.equal((await file('src.txt', 'dave', { content: b64('x') })).statusCode, 201, 'unprotected again');
  });

  await t.test('new branches and force pushes', async (t) => {
    const made = await file('feat.txt', 'dave', { content: b64('f'), new_branch: 'feat/one' });
    t.equal(made.statusCode, 201);
    t.match(made.json().content.url, /ref=feat%2Fone$/);
    t.equal(refOf(w, 'refs/heads/feat/one'), made.json().commit.sha);
    const exists = await file('feat2.txt', 'dave', { content: b64('f'), new_branch: 'feat/one' });
    t.same([exists.statusCode, exists.json().message], [422, 'branch already exists [name: feat/one]']);
    const forced = await file('feat2.txt', 'dave', { content: b64('f'), new_branch: 'feat/one', force_push: true });
    t.equal(forced.statusCode, 201, 'force_push replaces the branch');
    t.equal((await api({ url: '/api/v1/repos/alice/widget/contents/feat.txt?ref=feat/one' })).statusCode, 404, 'with main plus the new file');
    await api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: { rule_name: 'feat/*', enable_push: true } });
    const noForce = await file('feat3.txt', 'dave', { content: b64('f'), new_branch: 'feat/one', force_push: true });
    t.same([noForce.statusCode, noForce.json().message], [403, 'branch feat/one is protected from force push']);
    await api({ method: 'DELETE', url: '/api/v1/repos/alice/widget/branch_protections/feat/*', as: 'alice' });
    // Names git cannot hold beside existing ones: refused as Gitea's push is, never a 500.
    const clash = await file('c.txt', 'dave', { content: b64('c'), new_branch: 'feat/one/deeper' });
    t.same([clash.statusCode, clash.json().message], [403, "cannot lock ref 'refs/heads/feat/one/deeper': 'refs/heads/feat/one' exists; cannot create 'refs/heads/feat/one/deeper'"]);
    t.equal((await api({ method: 'PATCH', url: '/api/v1/repos/alice/widget/branches/feat/one', as: 'dave', body: { name: 'main/sub' } })).statusCode, 409);
    t.equal((await api({ method: 'POST', url: '/api/v1/repos/alice/widget/tags', as: 'dave', body: { tag_name: 'rel' } })).statusCode, 201);
    t.equal((await api({ method: 'POST', url: '/api/v1/repos/alice/widget/tags', as: 'dave', body: { tag_name: 'rel/1' } })).statusCode, 409);
  });

  await t.test('an empty repository gets its first commit and default branch', async (t) => {
    t.equal((await api({ method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name: 'blank' } })).statusCode, 201);
    const first = await api({ method: 'POST', url: '/api/v1/repos/alice/blank/contents/hello.txt', as: 'alice', body: { content: b64('hi'), new_branch: 'trunk' } });
    t.equal(first.statusCode, 201, first.body);
    t.same(first.json().commit.parents, []);
    const repo = (await api({ url: '/api/v1/repos/alice/blank' })).json();
    t.same([repo.empty, repo.default_branch], [false, 'trunk'], 'as after a first push');
  });

  await t.test('pull requests follow branch moves made through the API', async (t) => {
    const index = await openPull(w, 'follow', { 'follow.txt': 'one\n' });
    t.equal(await settledMergeable(w, index, true), true);
    const before = refOf(w, `refs/pull/${index}/head`);
    const change = await file('follow.txt', 'dave', { content: b64('two\n'), sha: await sha('follow.txt', 'follow'), branch: 'follow' }, 'PUT');
    t.equal(change.statusCode, 200);
    const head = change.json().commit.sha;
    t.not(before, head);
    t.equal(refOf(w, `refs/pull/${index}/head`), head, 'refs/pull/N/head follows a file change on the head branch');
    t.equal((await pullRow(index)).head_commit_id, head);
    t.equal((await api({ url: `/api/v1/repos/alice/widget/pulls/${index}` })).json().head.sha, head);

    // A change on main that clashes makes the pull request unmergeable: its base moved.
    const clash = await file('follow.txt', 'alice', { content: b64('main version\n') });
    t.equal(clash.statusCode, 201);
    t.equal(await settledMergeable(w, index, false, 15_000), false, 'the base move was told to the pull request');

    // Update the head branch to another commit: the pull request follows again.
    const other = (await file('other.txt', 'dave', { content: b64('o'), new_branch: 'other-head' })).json().commit.sha;
    const update = await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/branches/follow', as: 'dave', body: { new_commit_id: other } });
    t.same([update.statusCode, update.json().message], [422, 'Force push follow need a confirm force parameter']);
    const wrongOld = await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/branches/follow', as: 'dave', body: { new_commit_id: other, old_commit_id: other, force: true } });
    t.match([wrongOld.statusCode, wrongOld.json().message], [422, /^branch commit does not match/]);
    const forced = await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/branches/follow', as: 'dave', body: { new_commit_id: other, old_commit_id: head, force: true } });
    t.equal(forced.statusCode, 204);
    t.equal(refOf(w, 'refs/heads/follow'), other);
    t.ok(await waitFor(async () => refOf(w, `refs/pull/${index}/head`) === other), 'refs/pull/N/head follows a branch update');
    t.equal((await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/branches/follow', as: 'dave', body: { new_commit_id: other } })).statusCode, 204, 'already there: nothing to do');
    t.equal((await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/branches/follow', as: 'dave', body: { new_commit_id: 'main~1' } })).statusCode, 404);
    t.equal((await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/branches/nope', as: 'dave', body: { new_commit_id: other } })).statusCode, 404);
    t.equal((await api({ method: 'PUT', url: '/api/v1/repos/alice/widget/branches/follow', as: 'carol', body: { new_commit_id: other } })).statusCode, 403);

    // Rename the head branch: the pull request's head name follows, its commit stays.
    const renamed = await api({ method: 'PATCH', url: '/api/v1/repos/alice/widget/branches/follow', as: 'dave', body: { name: 'followed' } });
    t.equal(renamed.statusCode, 204);
    t.equal(refOf(w, 'refs/heads/follow'), null);
    t.equal(refOf(w, 'refs/heads/followed'), other);
    const pr = (await api({ url: `/api/v1/repos/alice/widget/pulls/${index}` })).json();
    t.same([pr.head.ref, pr.head.sha], ['followed', other], 'the pull request names the new branch');
    const later = await file('later.txt', 'dave', { content: b64('l'), branch: 'followed' });
    t.ok(await waitFor(async () => refOf(w, `refs/pull/${index}/head`) === later.json().commit.sha), 'and keeps following it');
  });

  await t.test('renaming branches: Gitea\'s rules', async (t) => {
    const rename = (from: string, to: string, as = 'dave') => api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/branches/${from}`, as, body: { name: to } });
    const message = async (r: Promise<{ statusCode: number; json(): { message: string } }>) => { const x = await r; return [x.statusCode, x.json().message]; };
    t.same(await message(rename('other-head', 'other-head')), [422, 'Cannot rename a branch using the same name or rename to a branch that already exists.']);
    t.same(await message(rename('other-head', 'main')), [422, 'Cannot rename a branch using the same name or rename to a branch that already exists.']);
    t.same(await message(rename('ghost', 'x')), [404, "Branch doesn't exist."]);
    t.same(await message(rename('other-head', 'bad..name')), [422, '[Name]: GitRefName']);
    t.same(await message(rename('main', 'trunk')), [403, 'User must be a repo or site admin to rename default or protected branches.'], 'a writer may not rename the default branch');
    await api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: { rule_name: 'locked/*', enable_push: false } });
    t.same(await message(rename('other-head', 'locked/x')), [403, 'Failed to rename branch due to branch protection rules.'], 'the new name may not be protected against the doer');
    await api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: { rule_name: 'other-head', enable_push: true } });
    t.same(await message(rename('other-head', 'x')), [403, 'User must be a repo or site admin to rename default or protected branches.']);
    t.equal((await rename('other-head', 'other-renamed', 'alice')).statusCode, 204, 'an admin may');
    const rules = (await api({ url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice' })).json().map((r: { rule_name: string }) => r.rule_name);
    t.ok(rules.includes('other-renamed') && !rules.includes('other-head'), 'the branch\'s own rule follows it');

    const base = await openPull(w, 'into-dev', { 'dev.txt': 'd\n' });
    await api({ method: 'PATCH', url: `/api/v1/repos/alice/widget/pulls/${base}`, as: 'alice', body: { base: 'feat/one' } });
    t.equal((await rename('feat/one', 'feat/two')).statusCode, 204);
    t.equal((await api({ url: `/api/v1/repos/alice/widget/pulls/${base}` })).json().base.ref, 'feat/two', 'pull requests into the branch follow too');

    t.equal((await rename('main', 'trunk', 'alice')).statusCode, 204, 'the owner renames the default branch');
    const repo = (await api({ url: '/api/v1/repos/alice/widget' })).json();
    t.equal(repo.default_branch, 'trunk');
    t.equal((await api({ url: '/api/v1/repos/alice/widget/commits' })).statusCode, 200, 'HEAD follows');
    t.equal(refOf(w, 'HEAD'), refOf(w, 'refs/heads/trunk'));
  });
});

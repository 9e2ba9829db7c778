// Hostile names are refused with a 4xx and leave nothing on disk or in the database.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestServices } from '../helper.js';
import { repoDiskPath, repositoriesRoot } from '../../core/repositories.js';
import { encodePktLine, listBranches, readAllRefs, resolveRef } from '../../git/index.js';
import { basic, call, makeUser } from './fixtures.js';

t.test('hostile repository and branch names', async (t) => {
  const { app, db, config } = await startTestServices(t);
  await makeUser(db, 'mallory');
  const root = repositoriesRoot(config);
  const onDisk = () => (existsSync(root) ? readdirSync(root, { recursive: true }).map(String) : []);

  const badRepoNames = ['..', '.', '-', 'a/b', '../escape', '..\\escape', 'x.git', 'X.GIT', 'feed.rss', '-rf', 'a b', '', 'a'.repeat(101), 'ünï', 'semi;colon', 'new\nline'];
  for (const name of badRepoNames) {
    const r = await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'mallory', body: { name } });
    t.ok(r.statusCode >= 400 && r.statusCode < 500, `repository name ${JSON.stringify(name)} refused (${r.statusCode})`);
  }
  const badBranch = await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'mallory', body: { name: 'ok-name', default_branch: '-x' } });
  t.equal(badBranch.statusCode, 422, 'a default branch starting with - is refused');
  t.same(onDisk(), [], 'nothing was created on disk');
  t.equal(Number((await db('repositories').count({ n: '*' }).first())?.n), 0, 'and no rows');

  const good = await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'mallory', body: { name: 'target', auto_init: true } });
  t.equal(good.statusCode, 201);
  const path = repoDiskPath(config, 'mallory', 'target');
  const refsBefore = await readAllRefs(path);

  for (const name of ['..', 'a/b', 'x.git', 'a'.repeat(101)]) {
    const rename = await call(app, { method: 'PATCH', url: '/api/v1/repos/mallory/target', as: 'mallory', body: { name } });
    t.ok(rename.statusCode >= 400 && rename.statusCode < 500, `rename to ${JSON.stringify(name)} refused (${rename.statusCode})`);
    const fork = await call(app, { method: 'POST', url: '/api/v1/repos/mallory/target/forks', as: 'mallory', body: { name } });
    t.ok(fork.statusCode >= 400 && fork.statusCode < 500, `fork named ${JSON.stringify(name)} refused (${fork.statusCode})`);
  }

  const badBranches = ['-x', '--upload-pack=evil', 'a..b', 'a b', 'x.lock', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[', 'a\\b', 'HEAD', '@', 'a/', '/a', 'a//b', '.hidden', 'a@{1}', 'b'.repeat(256)];
  for (const name of badBranches) {
    const r = await call(app, { method: 'POST', url: '/api/v1/repos/mallory/target/branches', as: 'mallory', body: { new_branch_name: name } });
    t.ok(r.statusCode >= 400 && r.statusCode < 500, `branch name ${JSON.stringify(name)} refused (${r.statusCode})`);
  }
  const badStart = await call(app, { method: 'POST', url: '/api/v1/repos/mallory/target/branches', as: 'mallory', body: { new_branch_name: 'fine', old_ref_name: '--output=/tmp/x' } });
  t.ok(badStart.statusCode >= 400 && badStart.statusCode < 500, 'an option-like start ref is refused');
  t.same(await readAllRefs(path), refsBefore, 'no reference was created');

  for (const url of ['/api/v1/repos/mallory/..%2F..', '/api/v1/repos/..%2Fmallory/target', '/api/v1/repos/mallory/target/branches/..%2F..%2Fconfig', '/api/v1/repos/mallory/target/branches/-x']) {
    const r = await call(app, { url, as: 'mallory' });
    t.ok(r.statusCode >= 400 && r.statusCode < 500, `${url} answers ${r.statusCode}`);
  }
  const gitTraversal = await app.inject({ url: '/mallory/..%2F..%2Fetc/info/refs?service=git-upload-pack', headers: basic('mallory') });
  t.ok(gitTraversal.statusCode >= 400 && gitTraversal.statusCode < 500, `git path traversal answers ${gitTraversal.statusCode}`);

  await t.test('receive-pack commands with names git rejects are refused before git runs', async (t) => {
    const head = (await resolveRef(path, 'refs/heads/main'))!;
    const zero = '0'.repeat(40);
    for (const ref of ['refs/heads/-x', 'refs/heads/a..b', 'refs/heads/x.lock', 'refs/heads/a b', 'refs/pull/1/head', 'HEAD', 'refs/heads/']) {
      const body = Buffer.concat([encodePktLine(`${zero} ${head} ${ref}\0report-status\n`), Buffer.from('0000')]);
      const r = await app.inject({
        method: 'POST', url: '/mallory/target.git/git-receive-pack', payload: body,
        headers: { ...basic('mallory'), 'content-type': 'application/x-git-receive-pack-request' },
      });
      t.ok(r.statusCode >= 400 && r.statusCode < 500, `push to ${JSON.stringify(ref)} refused (${r.statusCode})`);
    }
    t.same((await listBranches(path)).map((b) => b.name), ['main']);
  });

  t.notOk(existsSync(join(root, '..', 'escape.git')));
});

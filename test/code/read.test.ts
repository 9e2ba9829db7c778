// The code routes that read: a repository made with auto_init (README, .gitignore, LICENSE, labels),
// its commits, references, trees, contents, raw files, archives and tags, over the real HTTP app,
// MariaDB and repositories on disk; private repositories stay hidden.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServices } from '../helper.js';
import { call, makeUser } from '../repos/fixtures.js';
import { repoDiskPath } from '../../core/repositories.js';
import { branchRef, commitTree, editTree, gitOk, resolveRef, treeOf, updateRef } from '../../git/index.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('code reads', async (t) => {
  const { app, db, config } = await startTestServices(t);
  for (const name of ['owner', 'reader', 'stranger']) await makeUser(db, name);
  const api = (c: Parameters<typeof call>[1]) => call(app, c);
  const created = await api({ method: 'POST', url: '/api/v1/user/repos', as: 'owner', body: { name: 'lib', description: 'A library', auto_init: true, gitignores: 'C,Node', license: 'MIT', readme: 'Default', issue_labels: 'Default' } });
  t.equal(created.statusCode, 201, created.body);
  await api({ method: 'PUT', url: '/api/v1/repos/owner/lib/collaborators/reader', as: 'owner', body: { permission: 'read' } });
  const path = repoDiskPath(config, 'owner', 'lib');

  await t.test('auto_init writes README, .gitignore and LICENSE and makes the labels', async (t) => {
    const root = await api({ url: '/api/v1/repos/owner/lib/contents', as: 'reader' });
    t.same(root.json().map((e: { name: string }) => e.name), ['.gitignore', 'LICENSE', 'README.md']);
    const readme = await api({ url: '/api/v1/repos/owner/lib/contents/README.md' });
    t.equal(Buffer.from(readme.json().content, 'base64').toString(), '# lib\n\nA library', "Gitea's Default README, no trailing newline");
    const license = Buffer.from((await api({ url: '/api/v1/repos/owner/lib/contents/LICENSE' })).json().content, 'base64').toString();
    t.match(license, new RegExp(`^MIT License\\n\\nCopyright \\(c\\) ${new Date().getFullYear()} owner\\n`), 'the placeholders are filled');
    const ignore = (await api({ url: '/api/v1/repos/owner/lib/raw/.gitignore' })).body;
    t.match(ignore, /^# ---> C\n/);
    t.match(ignore, /\n# ---> Node\n/, 'one section per template, in order');
    t.match(ignore, /node_modules\//);
    const labels = await api({ url: '/api/v1/repos/owner/lib/labels?limit=50' });
    t.same(labels.json().map((l: { name: string }) => l.name), ['bug', 'duplicate', 'enhancement', 'help wanted', 'invalid', 'question', 'wontfix']);
    t.match(labels.json()[0], { color: 'ee0701', description: 'Something is not working' });
    const commit = (await api({ url: '/api/v1/repos/owner/lib/commits' })).json()[0];
    t.match(commit.commit, { message: 'Initial commit\n', author: { name: 'owner', email: 'owner@example.com' } });

    const advanced = await api({ method: 'POST', url: '/api/v1/user/repos', as: 'owner', body: { name: 'adv', issue_labels: 'Advanced' } });
    t.equal(advanced.statusCode, 201, 'labels without auto_init');
    const advLabels = (await api({ url: '/api/v1/repos/owner/adv/labels?limit=50' })).json();
    t.ok(advLabels.some((l: { name: string; exclusive: boolean }) => l.name === 'Priority/High' && l.exclusive), 'scoped labels are exclusive');
    t.equal(advanced.json().empty, true, 'no auto_init: no files');

    for (const [body, status, message] of [
      [{ readme: 'Fancy' }, 400, 'readme template does not exist, available templates: [Default]'],
      [{ license: 'NOT-A-LICENSE' }, 422, 'license template does not exist: NOT-A-LICENSE'],
      [{ gitignores: 'C,../../etc/passwd' }, 422, 'gitignore template does not exist: ../../etc/passwd'],
      [{ issue_labels: 'Bogus' }, 422, 'failed to load label template file "Bogus": label template "Bogus" not found'],
    ] as const) {
      const r = await api({ method: 'POST', url: '/api/v1/user/repos', as: 'owner', body: { name: 'bad', auto_init: true, ...body } });
      t.equal(r.statusCode, status, JSON.stringify(body));
      t.equal(r.json().message, message);
    }
    t.equal((await api({ url: '/api/v1/repos/owner/bad', as: 'owner' })).statusCode, 404, 'nothing was created');
    t.notOk(existsSync(repoDiskPath(config, 'owner', 'bad')), 'no directory left behind');
    t.equal((await db('labels').count({ n: '*' }).first())!.n, 7 + advLabels.length, 'no labels left behind');
  });

  // History: three commits on main through the contents API, a side branch, a tag.
  const put = async (file: string, content: string, extra: Record<string, unknown> = {}) => {
    const r = await api({ method: 'POST', url: `/api/v1/repos/owner/lib/contents/${file}`, as: 'owner', body: { content: b64(content), ...extra } });
    t.equal(r.statusCode, 201, r.body);
    return r.json().commit.sha as string;
  };
  const first = (await resolveRef(path, branchRef('main')))!;
  const c1 = await put('src/a.txt', 'a\n', { message: 'add a' });
  const c2 = await put('src/b.txt', 'b\n', { message: 'add b' });
  const c3 = await put('docs/guide.md', '# guide\n', { message: 'add guide' });
  const side = await put('side.txt', 's\n', { new_branch: 'side' });

  await t.test('commits: list, paging headers, filters and parts', async (t) => {
    const all = await api({ url: '/api/v1/repos/owner/lib/commits?limit=2' });
    t.equal(all.statusCode, 200);
    t.same(all.json().map((c: { sha: string }) => c.sha), [c3, c2]);
    t.match(all.headers, { 'x-total-count': '4', 'x-total': '4', 'x-page': '1', 'x-perpage': '2', 'x-pagecount': '2', 'x-hasmore': 'true' });
    t.match(all.headers.link, /rel="next"/);
    const c = all.json()[0];
    t.match(c, { sha: c3, commit: { message: 'add guide\n', tree: { sha: c3 }, verification: { verified: false, reason: 'gpg.error.not_signed_commit' } }, parents: [{ sha: c2 }], stats: { additions: 1, deletions: 0, total: 1 }, files: [{ filename: 'docs/guide.md', status: 'added' }], author: { login: 'owner' } });
    const lean = (await api({ url: '/api/v1/repos/owner/lib/commits?stat=false&files=false&verification=false&limit=0&page=0' })).json()[0];
    t.same([lean.stats, lean.files, lean.commit.verification], [null, null, null], 'parts asked off are null');
    t.same((await api({ url: '/api/v1/repos/owner/lib/commits?page=2&limit=2' })).json().map((x: { sha: string }) => x.sha), [c1, first]);
    t.same((await api({ url: '/api/v1/repos/owner/lib/commits?path=src' })).json().map((x: { sha: string }) => x.sha), [c2, c1], 'path');
    t.same((await api({ url: `/api/v1/repos/owner/lib/commits?sha=side&not=${c2}` })).json().map((x: { sha: string }) => x.sha), [side, c3], 'sha and not');
    t.same((await api({ url: `/api/v1/repos/owner/lib/commits?sha=${c1.slice(0, 8)}` })).json().map((x: { sha: string }) => x.sha), [c1, first], 'an abbreviated id');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/commits?since=2000-01-01T00:00:00Z&until=2000-01-02T00:00:00Z' })).headers['x-total-count'], '0');
    const badSince = await api({ url: '/api/v1/repos/owner/lib/commits?since=yesterday' });
    t.same([badSince.statusCode, badSince.json().message], [422, "invalid 'since' format, expected ISO 8601 (RFC3339)"]);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/commits?path=nowhere' })).statusCode, 404);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/commits?sha=main~1' })).statusCode, 404, 'no revision expressions');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/commits?sha=--all' })).statusCode, 404);
    t.equal((await api({ url: '/api/v1/repos/owner/adv/commits' })).statusCode, 409, 'empty repository');

    const one = await api({ url: `/api/v1/repos/owner/lib/git/commits/${c2}?files=false` });
    t.match(one.json(), { sha: c2, files: null, stats: { total: 1 } });
    t.equal((await api({ url: '/api/v1/repos/owner/lib/git/commits/side' })).json().sha, side, 'a branch name');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/git/commits/-x' })).statusCode, 422);
    t.equal((await api({ url: `/api/v1/repos/owner/lib/git/commits/${'0'.repeat(40)}` })).statusCode, 404);
    const diff = await api({ url: `/api/v1/repos/owner/lib/git/commits/${c2}.diff` });
    t.match(diff.headers['content-type'], /^text\/plain/);
    t.match(diff.body, /^diff --git a\/src\/b\.txt b\/src\/b\.txt\nnew file mode 100644/);
    t.match((await api({ url: `/api/v1/repos/owner/lib/git/commits/${c2}.patch` })).body, /^From [0-9a-f]{40} .*\n[\s\S]*Subject: \[PATCH\] add b/);
  });

  await t.test('references and trees', async (t) => {
    const refs = await api({ url: '/api/v1/repos/owner/lib/git/refs' });
    t.same(refs.json().map((r: { ref: string }) => r.ref), ['refs/heads/main', 'refs/heads/side']);
    t.match(refs.json()[0], { object: { type: 'commit', sha: c3, url: /\/git\/commits\// }, url: /\/api\/v1\/repos\/owner\/lib\/git\/refs\/heads\/main$/ });
    const one = await api({ url: '/api/v1/repos/owner/lib/git/refs/heads/side' });
    t.ok(Array.isArray(one.json()) && one.json().length === 1, 'an exact match is still a list, as Gitea 1.26 answers');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/git/refs/heads/nope' })).statusCode, 404);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/git/refs/heads/ma' })).json().length, 1, 'a prefix');

    const tree = await api({ url: '/api/v1/repos/owner/lib/git/trees/main?recursive=true&per_page=3' });
    t.match(tree.json(), { sha: c3, truncated: true, page: 1, total_count: 8 });
    t.equal(tree.headers['x-total-count'], '8');
    t.same(tree.json().tree.map((e: { path: string }) => e.path), ['.gitignore', 'LICENSE', 'README.md']);
    t.match(tree.json().tree[0], { type: 'blob', mode: '100644', url: /\/git\/blobs\/[0-9a-f]{40}$/ });
    const last = await api({ url: '/api/v1/repos/owner/lib/git/trees/main?recursive=1&per_page=3&page=3' });
    t.match(last.json(), { truncated: false, page: 3 });
    t.equal(last.json().tree.length, 2);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/git/trees/main?page=9' })).json().tree, null, 'past the end');
    const top = (await api({ url: '/api/v1/repos/owner/lib/git/trees/main' })).json().tree;
    const srcTree = top.find((e: { path: string }) => e.path === 'src');
    t.match(srcTree, { type: 'tree', mode: '040000', url: /\/git\/trees\// });
    const sub = await api({ url: `/api/v1/repos/owner/lib/git/trees/${srcTree.sha}` });
    t.same([sub.json().sha, sub.json().tree.map((e: { path: string }) => e.path)], [srcTree.sha, ['a.txt', 'b.txt']], 'a tree id is its own sha');
    t.same([(await api({ url: '/api/v1/repos/owner/lib/git/trees/nope' })).statusCode, (await api({ url: '/api/v1/repos/owner/lib/git/trees/nope' })).json().message], [400, 'sha not found [nope]']);
    const blob = await api({ url: `/api/v1/repos/owner/lib/git/blobs/${sub.json().tree[0].sha}` });
    t.match(blob.json(), { encoding: 'base64', content: b64('a\n'), size: 2 });
    t.equal((await api({ url: `/api/v1/repos/owner/lib/git/blobs/${srcTree.sha}` })).statusCode, 400, 'a tree is not a blob');
  });

  // A symlink, an executable and a submodule, committed straight into the repository on disk.
  const gitmodules = '[submodule "vendor"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n';
  const tree = await editTree(path, await treeOf(path, side), [
    { path: 'link', mode: '120000', content: Buffer.from('src/a.txt') },
    { path: 'run.sh', mode: '100755', content: Buffer.from('#!/bin/sh\n') },
    { path: '.gitmodules', mode: '100644', content: Buffer.from(gitmodules) },
    { path: 'bin/data', mode: '100644', content: Buffer.from([0, 1, 2, 3]) },
  ]);
  const withGitlink = await addGitlink(path, tree, 'vendor/lib', c1);
  const special = await commitTree(path, { tree: withGitlink, parents: [side], message: 'special entries', author: { name: 'x', email: 'x@example.com' }, committer: { name: 'x', email: 'x@example.com' } });
  t.ok(await updateRef(path, branchRef('side'), special, side));

  await t.test('contents: files, directories, symlinks, submodules, refs', async (t) => {
    const file = await api({ url: '/api/v1/repos/owner/lib/contents/src/a.txt?ref=side' });
    t.match(file.json(), {
      name: 'a.txt', path: 'src/a.txt', type: 'file', size: 2, encoding: 'base64', content: b64('a\n'), last_commit_sha: c1,
      url: /\/contents\/src\/a\.txt\?ref=side$/, download_url: /\/owner\/lib\/raw\/branch\/side\/src\/a\.txt$/, html_url: /\/src\/branch\/side\/src\/a\.txt$/,
      _links: { self: /ref=side/, git: /\/git\/blobs\//, html: /\/src\/branch\/side\// },
    });
    const dir = await api({ url: '/api/v1/repos/owner/lib/contents/?ref=side' });
    const byName = Object.fromEntries(dir.json().map((e: { name: string }) => [e.name, e]));
    t.match(byName.src, { type: 'dir', content: null, encoding: null, last_commit_sha: c2 });
    t.match(byName['README.md'], { type: 'file', content: null, last_commit_sha: first }, 'listings carry no content');
    t.match(byName.link, { type: 'symlink', target: 'src/a.txt', last_commit_sha: special });
    t.match(byName['run.sh'], { type: 'file' });
    t.match((await api({ url: '/api/v1/repos/owner/lib/contents/vendor?ref=side' })).json()[0], { name: 'lib', type: 'submodule', submodule_git_url: 'https://example.com/lib.git', html_url: null, download_url: null });
    const byTag = await api({ method: 'POST', url: '/api/v1/repos/owner/lib/tags', as: 'owner', body: { tag_name: 'v1', target: c1 } });
    t.equal(byTag.statusCode, 201);
    t.match((await api({ url: '/api/v1/repos/owner/lib/contents/src?ref=v1' })).json().map((e: { name: string }) => e.name), ['a.txt'], 'a tag');
    t.match((await api({ url: `/api/v1/repos/owner/lib/contents/src/a.txt?ref=${c1}` })).json(), { download_url: new RegExp(`/raw/commit/${c1}/src/a.txt$`) }, 'a commit id');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/contents/src/a.txt?ref=nope' })).statusCode, 404);
    t.equal((await api({ url: `/api/v1/repos/owner/lib/contents/src/a.txt?ref=${c1.slice(0, 10)}` })).statusCode, 404, 'contents take full ids');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/contents/missing.txt' })).statusCode, 404);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/contents/.git/config' })).statusCode, 422);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/contents/..%2F..%2FREADME.md' })).json().path, 'README.md', 'dot segments collapse inside the tree');
    t.same((await api({ url: '/api/v1/repos/owner/adv/contents' })).statusCode, 404, 'an empty repository has no default branch yet');
  });

  await t.test('raw and media files', async (t) => {
    const raw = await api({ url: '/api/v1/repos/owner/lib/raw/src/a.txt' });
    t.equal(raw.body, 'a\n');
    t.match(raw.headers, { 'content-type': 'text/plain; charset=utf-8', 'x-gitea-object-type': 'file', 'content-disposition': 'inline; filename=a.txt', 'x-content-type-options': 'nosniff', etag: /^"[0-9a-f]{40}"$/ });
    t.match(raw.headers['content-security-policy'], /sandbox/);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/raw/src/a.txt', headers: { 'if-none-match': String(raw.headers.etag) } })).statusCode, 304);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/raw/side/side.txt' })).body, 's\n', 'legacy ref/path');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/raw/side.txt?ref=side' })).body, 's\n');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/raw/side.txt' })).statusCode, 404, 'not on the default branch');
    const bin = await api({ url: '/api/v1/repos/owner/lib/media/bin/data?ref=side' });
    t.same([bin.headers['content-type'], bin.headers['content-disposition'], bin.rawPayload], ['application/octet-stream', 'attachment; filename=data', Buffer.from([0, 1, 2, 3])]);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/raw/link?ref=side' })).headers['x-gitea-object-type'], 'symlink');
    t.equal((await api({ url: '/api/v1/repos/owner/lib/raw/src?ref=side' })).statusCode, 404, 'a directory');
    t.equal((await api({ url: '/api/v1/repos/owner/adv/raw/README.md' })).statusCode, 404, 'empty repository');
  });

  await t.test('archives are streamed, nothing is left on disk', async (t) => {
    // The service runs in this process: pointed at a temporary directory of its own (os.tmpdir()
    // reads TMPDIR on each call, git children inherit it), whatever it leaves shows there, apart
    // from the files the other test processes make in the shared one meanwhile.
    const dir = mkdtempSync(join(tmpdir(), 'code-read-'));
    const serviceTmp = join(dir, 'tmp');
    mkdirSync(serviceTmp);
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = serviceTmp;
    t.teardown(() => {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      rmSync(dir, { recursive: true, force: true });
    });
    const zip = await api({ url: '/api/v1/repos/owner/lib/archive/side.zip' });
    t.equal(zip.statusCode, 200);
    t.match(zip.headers, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename=lib-side.zip', link: new RegExp(`archive/${special}\\.zip\\?rev=${special}>; rel="immutable"`) });
    writeFileSync(join(dir, 'a.zip'), zip.rawPayload);
    const listing = execFileSync('unzip', ['-l', join(dir, 'a.zip')]).toString();
    t.match(listing, /lib\/src\/a\.txt/);
    t.match(listing, /lib\/side\.txt/);
    const tgz = await api({ url: '/api/v1/repos/owner/lib/archive/v1.tar.gz?path=src' });
    t.same(execFileSync('tar', ['tzf', '-'], { input: tgz.rawPayload }).toString().trim().split('\n'), ['lib/', 'lib/src/', 'lib/src/a.txt']);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/archive/main.rar' })).statusCode, 400);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/archive/nope.zip' })).statusCode, 404);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/archive/main.zip?path=nowhere' })).statusCode, 400);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/archive/main.zip?path=.git' })).statusCode, 400);
    t.equal((await api({ url: '/owner/lib/archive/v1.zip' })).statusCode, 200, 'the web address tags link to');
    t.same(readdirSync(serviceTmp), [], 'no temporary files');
  });

  await t.test('tags', async (t) => {
    const annotated = await api({ method: 'POST', url: '/api/v1/repos/owner/lib/tags', as: 'owner', body: { tag_name: 'v2', message: 'A tag message.\n\n:)', target: 'side' } });
    t.equal(annotated.statusCode, 201);
    t.match(annotated.json(), { name: 'v2', message: 'A tag message.\n\n:)', commit: { sha: special }, zipball_url: /\/owner\/lib\/archive\/v2\.zip$/, tarball_url: /\/archive\/v2\.tar\.gz$/ });
    t.not(annotated.json().id, special, 'an annotated tag has its own id');
    const list = await api({ url: '/api/v1/repos/owner/lib/tags' });
    t.same(list.json().map((x: { name: string }) => x.name), ['v2', 'v1'], 'newest first');
    t.equal(list.headers['x-total-count'], '2');
    t.same((await api({ url: '/api/v1/repos/owner/lib/tags/v2' })).json(), annotated.json());
    const object = await api({ url: `/api/v1/repos/owner/lib/git/tags/${annotated.json().id}` });
    t.match(object.json(), { tag: 'v2', sha: annotated.json().id, message: 'A tag message.\n\n:)\n', object: { type: 'commit', sha: special }, tagger: { name: 'Gitea', email: 'gitea@fake.local' } });
    t.equal((await api({ url: `/api/v1/repos/owner/lib/git/tags/${c1}` })).statusCode, 400, 'a lightweight tag has no tag object');
    t.equal((await api({ method: 'POST', url: '/api/v1/repos/owner/lib/tags', as: 'owner', body: { tag_name: 'V2' } })).statusCode, 409, 'names clash without case');
    t.equal((await api({ method: 'POST', url: '/api/v1/repos/owner/lib/tags', as: 'owner', body: { tag_name: 'bad..name' } })).statusCode, 422);
    t.equal((await api({ method: 'POST', url: '/api/v1/repos/owner/lib/tags', as: 'owner', body: { tag_name: '-x' } })).statusCode, 422);
    t.equal((await api({ method: 'POST', url: '/api/v1/repos/owner/lib/tags', as: 'owner', body: { tag_name: 'x', target: 'nope' } })).statusCode, 404);
    t.equal((await api({ method: 'DELETE', url: '/api/v1/repos/owner/lib/tags/v1', as: 'reader' })).statusCode, 403);
    t.equal((await api({ method: 'DELETE', url: '/api/v1/repos/owner/lib/tags/v1', as: 'owner' })).statusCode, 204);
    t.equal((await api({ url: '/api/v1/repos/owner/lib/tags/v1' })).statusCode, 404);
  });

  await t.test('a private repository is hidden from those who may not see it', async (t) => {
    t.equal((await api({ method: 'POST', url: '/api/v1/user/repos', as: 'owner', body: { name: 'vault', private: true, auto_init: true } })).statusCode, 201);
    for (const url of ['commits', 'git/refs', 'git/trees/main', 'contents', 'contents/README.md', 'raw/README.md', 'archive/main.zip', 'tags', 'git/commits/main']) {
      for (const as of [null, 'stranger']) {
        const r = await api({ url: `/api/v1/repos/owner/vault/${url}`, as });
        t.equal(r.statusCode, 404, `${url} as ${as ?? 'anonymous'}`);
      }
      t.equal((await api({ url: `/api/v1/repos/owner/vault/${url}`, as: 'owner' })).statusCode, 200, `${url} as the owner`);
    }
    t.equal((await api({ url: '/owner/vault/archive/main.zip' })).statusCode, 404, 'the web archive address too');
  });
});

/** Adds a submodule entry (a gitlink) at `path` to `tree`, through a private index. */
async function addGitlink(repoPath: string, tree: string, path: string, commit: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'code-gitlink-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    await gitOk(['read-tree', tree], { cwd: repoPath, env });
    await gitOk(['update-index', '--add', '--cacheinfo', `160000,${commit},${path}`], { cwd: repoPath, env });
    return (await gitOk(['write-tree'], { cwd: repoPath, env })).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

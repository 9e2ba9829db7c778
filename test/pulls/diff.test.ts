// .diff and .patch (streamed; binary=true applies with git apply), the merged check, commits with
// their flags and X-Page headers, files with whitespace modes, skip-to and paging.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { pullWorld } from './fixtures.js';

const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0xff, 0x00, 0x10, 0x20, 0x30]);

t.test('diff, patch, commits and files', async (t) => {
  const w = await pullWorld(t);
  const { api, db, config } = w;
  await w.pushBranch('main', { 'ws.txt': 'alpha beta\ngamma\n', 'eol.txt': 'x\n', 'inner.txt': 'ab\n', 'old-name.txt': 'a file that will be renamed\nwith some lines\nso rename detection works\n' });
  await w.pushBranch('code', { 'ws.txt': 'alpha  beta  \ngamma\n', 'eol.txt': 'x   \n', 'inner.txt': 'a b\n' }, { message: 'whitespace' });
  const dir = w.clones.alice;
  await w.git(['mv', 'old-name.txt', 'new-name.txt'], dir);
  const headSha = await w.pushBranch('code', { 'feature.txt': 'one\ntwo\n', 'bin.dat': BINARY }, { message: 'feature and binary' });
  const created = await api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'code', base: 'main', title: 'code' } });
  t.equal(created.statusCode, 201, created.body);
  const n = created.json().number as number;
  const pr = `/api/v1/repos/alice/widget/pulls/${n}`;

  await t.test('.diff is text/plain and applies with git apply only with binary=true', async (t) => {
    const plain = await api({ url: `${pr}.diff`, as: 'alice' });
    t.equal(plain.statusCode, 200);
    t.match(plain.headers['content-type'], /^text\/plain/);
    t.match(plain.body, /diff --git a\/feature.txt b\/feature.txt/);
    t.match(plain.body, /Binary files/);
    const binary = await api({ url: `${pr}.diff?binary=true`, as: 'alice' });
    t.match(binary.body, /GIT binary patch/);
    await w.git(['checkout', '-q', '-B', 'apply-check', 'origin/main'], dir);
    writeFileSync(join(w.home, 'plain.diff'), plain.rawPayload);
    writeFileSync(join(w.home, 'binary.diff'), binary.rawPayload);
    t.not((await w.git(['apply', '--check', join(w.home, 'plain.diff')], dir)).code, 0, 'without binary the binary file cannot apply');
    const applied = await w.git(['apply', join(w.home, 'binary.diff')], dir);
    t.equal(applied.code, 0, applied.stderr);
    t.same(readFileSync(join(dir, 'bin.dat')), BINARY, 'the binary file is reproduced');
    t.equal(readFileSync(join(dir, 'feature.txt'), 'utf8'), 'one\ntwo\n');
    await w.git(['checkout', '-q', '-f', 'code'], dir);
    t.equal((await api({ url: '/api/v1/repos/alice/widget/pulls/999.diff' })).statusCode, 404);
    t.equal((await api({ url: `${pr}.diff?binary=maybe` })).statusCode, 200, 'binary=maybe is false, as FormBool reads it');
  });

  await t.test('.patch is one mail per commit', async (t) => {
    const r = await api({ url: `${pr}.patch?binary=true`, as: 'alice' });
    t.equal(r.statusCode, 200);
    t.match(r.headers['content-type'], /^text\/plain/);
    t.equal(r.body.match(/^From [0-9a-f]{40} /gm)?.length, 2);
    t.match(r.body, /Subject: \[PATCH 1\/2\] whitespace/);
  });

  await t.test('commits: headers, verification and files flags', async (t) => {
    const r = await api({ url: `${pr}/commits`, as: 'alice' });
    t.equal(r.statusCode, 200, r.body);
    const commits = r.json();
    t.equal(commits.length, 2);
    t.equal(commits[0].sha, headSha, 'newest first');
    t.match(commits[0], {
      html_url: `${config.APP_URL}alice/widget/commit/${headSha}`, url: `${config.APP_URL}api/v1/repos/alice/widget/git/commits/${headSha}`,
      commit: { message: 'feature and binary\n', author: { name: 'Tester', email: 'tester@example.com' }, verification: { verified: false, reason: 'gpg.error.not_signed_commit' } },
      stats: { additions: 2, deletions: 0, total: 2 },
    });
    t.same(commits[0].files.map((f: { filename: string }) => f.filename).sort(), ['bin.dat', 'feature.txt', 'new-name.txt', 'old-name.txt']);
    t.equal(r.headers['x-total-count'], '2');
    t.equal(r.headers['x-page'], '1');
    t.equal(r.headers['x-perpage'], '30');
    t.equal(r.headers['x-pagecount'], '1');
    t.equal(r.headers['x-hasmore'], 'false');
    for (const h of ['X-Page', 'X-PerPage', 'X-PageCount', 'X-HasMore', 'X-Total-Count']) t.match(r.headers['access-control-expose-headers'], h);
    const lean = await api({ url: `${pr}/commits?verification=false&files=false&limit=1`, as: 'alice' });
    t.equal(lean.json().length, 1);
    t.equal(lean.json()[0].commit.verification, null, 'verification=false sends null, as Gitea does');
    t.equal(lean.json()[0].files, null, 'files=false leaves them out');
    t.equal(lean.headers['x-hasmore'], 'true');
    t.equal(lean.headers['x-pagecount'], '2');
    t.match(lean.headers.link, /rel="next"/);
  });

  await t.test('files: records, whitespace modes, skip-to, paging', async (t) => {
    const names = async (query: string) => {
      const r = await api({ url: `${pr}/files?${query}`, as: 'alice' });
      t.equal(r.statusCode, 200, r.body);
      return r;
    };
    const all = await names('');
    const files = all.json() as Array<Record<string, unknown>>;
    t.equal(all.headers['x-total-count'], '6');
    t.same(files.map((f) => f.filename).sort(), ['bin.dat', 'eol.txt', 'feature.txt', 'inner.txt', 'new-name.txt', 'ws.txt']);
    const feature = files.find((f) => f.filename === 'feature.txt')!;
    t.match(feature, {
      status: 'added', additions: 2, deletions: 0, changes: 2,
      html_url: `${config.APP_URL}alice/widget/src/commit/${headSha}/feature.txt`,
      contents_url: `${config.APP_URL}api/v1/repos/alice/widget/contents/feature.txt?ref=${headSha}`,
      raw_url: `${config.APP_URL}alice/widget/raw/commit/${headSha}/feature.txt`,
    });
    t.match(files.find((f) => f.filename === 'new-name.txt'), { status: 'renamed', previous_filename: 'old-name.txt' });
    t.match(files.find((f) => f.filename === 'ws.txt'), { status: 'changed', additions: 1, deletions: 1 });
    const set = async (mode: string) => ((await names(`whitespace=${mode}`)).json() as Array<{ filename: string }>).map((f) => f.filename).filter((f) => f.endsWith('.txt') && ['ws.txt', 'eol.txt', 'inner.txt'].includes(f)).sort();
    t.same(await set('show-all'), ['eol.txt', 'inner.txt', 'ws.txt']);
    t.same(await set('ignore-eol'), ['inner.txt', 'ws.txt']);
    t.same(await set('ignore-change'), ['inner.txt']);
    t.same(await set('ignore-all'), []);
    t.equal((await names('whitespace=bogus')).json().length, 6, 'an unknown whitespace value shows all, as Gitea');
    t.same((await names('skip-to=--output=%2Ftmp%2Fx')).json(), [], 'option-like skip-to is a path, never an option');
    t.equal((await names('page=-3&limit=0')).headers['x-page'], '1', 'page and limit are clamped');
    const skipped = (await names('skip-to=inner.txt')).json() as Array<{ filename: string }>;
    t.equal(skipped[0]!.filename, 'inner.txt', 'skip-to starts at the named file');
    t.ok(skipped.length < 6);
    const page = await names('limit=2&page=2');
    t.equal(page.json().length, 2);
    t.equal(page.headers['x-pagecount'], '3');
    t.equal(page.headers['x-hasmore'], 'true');
    t.equal(page.headers['x-perpage'], '2');
    t.same(page.json().map((f: { filename: string }) => f.filename), files.slice(2, 4).map((f) => f.filename));
  });

  await t.test('merged check, and ranges of a merged pull request', async (t) => {
    t.equal((await api({ url: `${pr}/merge`, as: 'alice' })).statusCode, 404, 'not merged');
    const row = await db('pull_requests').where({ index: n }).first();
    await db('pull_requests').where({ id: row.id }).update({ has_merged: true, merged_unix: 1_700_000_000, merge_commit_sha: headSha });
    t.equal((await api({ url: `${pr}/merge`, as: 'alice' })).statusCode, 204);
    // The base moves past the head once merged; the stored merge base still bounds the range.
    await w.pushBranch('main', { 'after.txt': 'after merge\n' });
    const commits = await api({ url: `${pr}/commits`, as: 'alice' });
    t.equal(commits.json().length, 2, 'commits from the stored merge base');
    const files = await api({ url: `${pr}/files`, as: 'alice' });
    t.equal(files.headers['x-total-count'], '6');
    const got = await api({ url: pr, as: 'alice' });
    t.match(got.json(), { merged: true, state: 'closed', merge_commit_sha: headSha, merged_at: '2023-11-14T22:13:20Z' });
  });
});

// Answers kept by commit ids (core/read-cache.ts, core/diff-cache.ts): strong ETags and 304s, and a
// force-push or a base move changing every answer at once, with no waiting for the workflow.
import t from 'tap';
import { pullWorld, type PullWorld } from './fixtures.js';

interface Answers {
  stats: { additions: number; deletions: number; changed_files: number; head: string };
  files: string[];
  commits: string[];
  diff: string;
  etags: Record<'files' | 'commits' | 'diff', string>;
}

async function answers(w: PullWorld, pr: string): Promise<Answers> {
  const [one, files, commits, diff] = await Promise.all([
    w.api({ url: pr, as: 'alice' }), w.api({ url: `${pr}/files`, as: 'alice' }), w.api({ url: `${pr}/commits`, as: 'alice' }), w.api({ url: `${pr}.diff`, as: 'alice' }),
  ]);
  for (const r of [one, files, commits, diff]) if (r.statusCode !== 200) throw new Error(`${r.statusCode}: ${r.body}`);
  const o = one.json();
  return {
    stats: { additions: o.additions, deletions: o.deletions, changed_files: o.changed_files, head: o.head.sha },
    files: files.json().map((f: { filename: string }) => f.filename).sort(),
    commits: commits.json().map((c: { sha: string }) => c.sha),
    diff: diff.body,
    etags: { files: String(files.headers.etag), commits: String(commits.headers.etag), diff: String(diff.headers.etag) },
  };
}

t.test('kept answers: ETags, 304, force-push and base move', async (t) => {
  const w = await pullWorld(t);
  const dir = w.clones.alice;
  const first = await w.pushBranch('code', { 'a.txt': 'one\n' }, { message: 'a' });
  const second = await w.pushBranch('code', { 'b.txt': 'two\nlines\n' }, { message: 'b' });
  const created = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: 'code', base: 'main', title: 'code' } });
  t.equal(created.statusCode, 201, created.body);
  const pr = `/api/v1/repos/alice/widget/pulls/${created.json().number}`;

  const before = await answers(w, pr);
  t.same(before.stats, { additions: 3, deletions: 0, changed_files: 2, head: second });
  t.same(before.files, ['a.txt', 'b.txt']);
  t.same(before.commits, [second, first]);
  for (const tag of Object.values(before.etags)) t.match(tag, /^"[A-Za-z0-9_-]{32}"$/, 'a strong ETag');

  await t.test('a repeated request is the same answer; If-None-Match is answered 304', async (t) => {
    const again = await answers(w, pr);
    t.same(again, before, 'kept answers equal the first ones (the .diff from the disk cache included)');
    for (const [what, url] of [['files', `${pr}/files`], ['commits', `${pr}/commits`], ['diff', `${pr}.diff`]] as const) {
      const r = await w.api({ url, as: 'alice', headers: { 'if-none-match': before.etags[what] } });
      t.equal(r.statusCode, 304, `${what}: 304`);
      t.equal(r.body, '', `${what}: no body`);
      t.equal(r.headers.etag, before.etags[what]);
      const weak = await w.api({ url, as: 'alice', headers: { 'if-none-match': `"other", W/${before.etags[what]}` } });
      t.equal(weak.statusCode, 304, `${what}: a list and a weak tag match too`);
      t.equal((await w.api({ url, as: 'alice', headers: { 'if-none-match': '"other"' } })).statusCode, 200, `${what}: another tag is a full answer`);
    }
  });

  await t.test('the permission check still runs on every request', async (t) => {
    const priv = await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { private: true } });
    t.equal(priv.statusCode, 200, priv.body);
    for (const url of [pr, `${pr}/files`, `${pr}/commits`, `${pr}.diff`]) {
      t.equal((await w.api({ url, as: 'carol', headers: { 'if-none-match': '*' } })).statusCode, 404, `${url}: hidden from a stranger`);
    }
    t.equal((await w.api({ method: 'PATCH', url: '/api/v1/repos/alice/widget', as: 'alice', body: { private: false } })).statusCode, 200);
  });

  await t.test('a base move changes the answers at once', async (t) => {
    // main fast-forwards to the first commit: the merge base moves, a.txt is no longer a change.
    const r = await w.git(['push', '-q', 'origin', `${first}:refs/heads/main`], dir);
    t.equal(r.code, 0, r.stderr);
    const after = await answers(w, pr);
    t.same(after.stats, { additions: 2, deletions: 0, changed_files: 1, head: second });
    t.same(after.files, ['b.txt']);
    t.same(after.commits, [second]);
    t.notMatch(after.diff, /a\.txt/);
    for (const what of ['files', 'commits', 'diff'] as const) t.not(after.etags[what], before.etags[what], `${what}: another ETag`);
    const stale = await w.api({ url: `${pr}/files`, as: 'alice', headers: { 'if-none-match': before.etags.files } });
    t.equal(stale.statusCode, 200, 'the old ETag is not answered 304');
  });

  await t.test('a force-push changes the answers at once', async (t) => {
    const moved = await answers(w, pr);
    await w.git(['checkout', '-q', '-B', 'code', first], dir);
    await w.git(['rm', '-q', 'a.txt'], dir);
    await w.git(['commit', '-q', '-m', 'rewritten'], dir);
    const push = await w.git(['push', '-q', '-f', 'origin', 'HEAD:refs/heads/code'], dir);
    t.equal(push.code, 0, push.stderr);
    const rewritten = (await w.git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const after = await answers(w, pr);
    t.same(after.stats, { additions: 0, deletions: 1, changed_files: 1, head: rewritten }, 'the statistics of the new head, never the old');
    t.same(after.files, ['a.txt']);
    t.same(after.commits, [rewritten]);
    t.match(after.diff, /deleted file mode/);
    for (const what of ['files', 'commits', 'diff'] as const) t.not(after.etags[what], moved.etags[what], `${what}: another ETag`);
  });
});

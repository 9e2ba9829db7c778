// Context parsing and relative link resolution.
import t from 'tap';
import { parseRepoContext, repoLinksFor, resolveDocumentLink, resolveUnder } from '../../workers/markup/context.js';
import { APP_URL } from './helpers.js';

t.test('Context forms', async (t) => {
  const plain = { owner: 'owner', repo: 'repo', refPath: '', treePath: '' };
  t.same(parseRepoContext('', APP_URL), null);
  t.same(parseRepoContext('owner', APP_URL), null);
  t.same(parseRepoContext('owner/repo', APP_URL), plain);
  t.same(parseRepoContext('/owner/repo', APP_URL), plain);
  t.same(parseRepoContext('/owner/repo/', APP_URL), plain);
  t.same(parseRepoContext(`${APP_URL}owner/repo`, APP_URL), plain);
  t.same(parseRepoContext('/owner/repo/issues/3', APP_URL), plain, 'other pages name the repository only');
  t.same(parseRepoContext('/own er/repo', APP_URL), null, 'not a repository name');
  t.same(parseRepoContext('/owner/repo/src/branch/main', APP_URL), { owner: 'owner', repo: 'repo', refPath: 'branch/main', treePath: '' });
  t.same(parseRepoContext('/owner/repo/src/tag/v1.0/docs/api', APP_URL), { owner: 'owner', repo: 'repo', refPath: 'tag/v1.0', treePath: 'docs/api' });
  t.same(parseRepoContext('/owner/repo/src/commit/abc123', APP_URL), { owner: 'owner', repo: 'repo', refPath: 'commit/abc123', treePath: '' });
  t.same(parseRepoContext('/owner/repo/src/branch/feat/x/docs', APP_URL, 'docs/README.md'),
    { owner: 'owner', repo: 'repo', refPath: 'branch/feat/x', treePath: 'docs' }, 'FilePath tells where a slashed ref ends');
  t.same(parseRepoContext('/sub/owner/repo/src/branch/main/d', 'http://h/sub/'), { owner: 'owner', repo: 'repo', refPath: 'branch/main', treePath: 'd' }, 'sub-path install');
});

t.test('resolveUnder: relative, root-relative, dot segments, query and fragment', async (t) => {
  const base = 'http://h/o/r/src/branch/main';
  t.equal(resolveUnder(base, 'docs', 'a.md'), `${base}/docs/a.md`);
  t.equal(resolveUnder(base, 'docs', './a/../b.md'), `${base}/docs/b.md`);
  t.equal(resolveUnder(base, 'docs', '/top.md'), `${base}/top.md`);
  t.equal(resolveUnder(base, 'docs', '../../../../x'), `${base}/x`, 'never above the base');
  t.equal(resolveUnder(base, 'docs', 'dir/?q=1#frag'), `${base}/docs/dir?q=1#frag`);
  t.equal(resolveUnder(base, '', '/'), base);
  for (const absolute of ['https://example.com/x', 'mailto:a@b.c', '#anchor', '//cdn.example.com/x', '']) {
    t.equal(resolveUnder(base, 'docs', absolute), absolute, `${JSON.stringify(absolute)} unchanged`);
  }
});

t.test('resolveDocumentLink picks src, media, wiki and wiki/raw', async (t) => {
  const withRef = repoLinksFor('/o/r/src/branch/main/docs', APP_URL, 'docs/x.md');
  const withoutRef = repoLinksFor('o/r', APP_URL, '');
  t.equal(resolveDocumentLink(withRef, false, 'link', 'a.md'), `${APP_URL}o/r/src/branch/main/docs/a.md`);
  t.equal(resolveDocumentLink(withRef, false, 'media', 'a.png'), `${APP_URL}o/r/media/branch/main/docs/a.png`);
  t.equal(resolveDocumentLink(withoutRef, false, 'link', 'a.md'), `${APP_URL}o/r/a.md`);
  t.equal(resolveDocumentLink(withoutRef, true, 'link', 'Page'), `${APP_URL}o/r/wiki/Page`);
  t.equal(resolveDocumentLink(withoutRef, true, 'media', 'i.png'), `${APP_URL}o/r/wiki/raw/i.png`);
  t.equal(resolveDocumentLink(null, false, 'link', 'a.md'), 'a.md', 'no repository: left alone');
});

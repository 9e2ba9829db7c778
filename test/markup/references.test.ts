// extractReferenceCandidates: what the route resolves before rendering, and how it agrees with
// what the renderer links.
import t from 'tap';
import { renderDocument } from '../../workers/markup/render.js';
import { extractReferenceCandidates } from '../../workers/markup/references.js';
import { APP_URL, request } from './helpers.js';

t.test('mentions are lower-cased and de-duplicated in first-seen order', async (t) => {
  const found = extractReferenceCandidates('Hi @Bob and @alice, also @bob and @ALICE.', 'o/r');
  t.same(found.mentions, ['bob', 'alice']);
});

t.test('issue references are normalised to owner/repo#N keys', async (t) => {
  const found = extractReferenceCandidates('#12, !7, Other/Proj#0042 and other/proj#42 (#12)', 'Owner/Repo');
  t.same(found.issues, ['owner/repo#12', 'owner/repo#7', 'other/proj#42']);
});

t.test('short references need a Context; cross references do not', async (t) => {
  t.same(extractReferenceCandidates('#1 and a/b#2', '').issues, ['a/b#2']);
});

t.test('every Context form names the same repository', async (t) => {
  const forms = ['owner/repo', '/owner/repo', `${APP_URL}owner/repo`, '/owner/repo/src/branch/main/docs', '/owner/repo/src/branch/feature/x/docs'];
  for (const context of forms) {
    t.same(extractReferenceCandidates('#5', context, 1000, APP_URL).issues, ['owner/repo#5'], context);
  }
  t.same(extractReferenceCandidates('#5', 'http://host/sub/owner/repo', 1000, 'http://host/sub/').issues, ['owner/repo#5'], 'sub-path');
  t.same(extractReferenceCandidates('#5', '/owner/repo/src/branch/main/docs').issues, ['owner/repo#5'], 'without appUrl');
});

t.test('over-long numbers are not candidates; glued names are, since markup may split them', async (t) => {
  // An autolink can end right before `@name` (`www.example.com@name`), so the pre-scan does not ask
  // for a boundary: a few extra names cost a slightly longer IN list, a missing one a wrong page.
  const found = extractReferenceCandidates('mail alice@example.com, issue#3, #1234567890123456789', 'o/r');
  t.same(found, { mentions: ['example.com'], issues: ['o/r#3'] });
});

t.test('markup around a reference does not hide it', async (t) => {
  const found = extractReferenceCandidates('**@bob** _@carol_ `@dave` [@erin](x) ~~#3~~', 'o/r');
  // `carol_` may be a user name as well; both spellings go to the database, which knows.
  t.same(found.mentions, ['bob', 'carol_', 'carol', 'dave', 'erin']);
  t.same(found.issues, ['o/r#3']);
});

t.test('each list is capped at limit distinct entries', async (t) => {
  const text = Array.from({ length: 5000 }, (_, i) => `@user${i} #${i + 1}`).join(' ');
  const found = extractReferenceCandidates(text, 'o/r', 1000);
  t.equal(found.mentions.length, 1000);
  t.equal(found.issues.length, 1000);
  t.equal(found.mentions[999], 'user999');
  t.equal(found.issues[999], 'o/r#1000');
  t.same(extractReferenceCandidates(text, 'o/r', 0), { mentions: [], issues: [] });
});

t.test('the cap counts each list separately', async (t) => {
  const found = extractReferenceCandidates('@a @b @c #1', 'o/r', 2);
  t.same(found, { mentions: ['a', 'b'], issues: ['o/r#1'] });
});

t.test('whatever the renderer links, the pre-scan found', async (t) => {
  const texts = [
    'Thanks @alice.', 'cc @bob..', '(@carol.)', '@dave: done', "'@erin'", '[@frank]', '**@gina**', '_@hank_',
    'See #1.', '(#2)', '"#3"', 'owner/repo#4,', 'x #5: y', '![x](y) @ivan', '- [ ] @judy #6', '> @kate !7',
    'line\n@leo', '@m-n.o_p ok',
  ];
  for (const text of texts) {
    const found = extractReferenceCandidates(text, 'gogits/gogs');
    const issues = Object.fromEntries(found.issues.map((key) => [key, { exists: true, isPull: false }]));
    const withScan = renderDocument(request({ mode: 'comment', text, mentionable: found.mentions, issues }));
    // With every name and number resolvable, the renderer cannot link more than with the scan's lists.
    const everything = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`gogits/gogs#${i}`, { exists: true, isPull: false }]));
    everything['owner/repo#4'] = { exists: true, isPull: false };
    const names = ['alice', 'bob', 'bob.', 'carol', 'carol.', 'dave', 'erin', 'frank', 'gina', 'hank', 'ivan', 'judy', 'kate', 'leo', 'm-n.o_p'];
    const withEverything = renderDocument(request({ mode: 'comment', text, mentionable: names, issues: everything }));
    t.same(withScan, withEverything, text);
  }
});

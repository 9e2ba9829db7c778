import t from 'tap';
import { formatGitDate, parseCommitObject, parseIdentLine } from '../../git/commit-parse.js';
import {
  commitFiles, commitSignature, commitStats, countCommits, listCommits, readCommit, readCommits, unverifiedCommit,
} from '../../git/commits.js';
import { gitOk } from '../../git/runner.js';
import { alice, bareRepo, bob, carol, commit } from './helpers.js';

t.test('date formatting keeps the commit time zone', async (t) => {
  t.equal(formatGitDate(1700000000, '+0200'), '2023-11-15T00:13:20+02:00');
  t.equal(formatGitDate(1700000000, '-0530'), '2023-11-14T16:43:20-05:30');
  t.equal(formatGitDate(1700000000, '+0000'), '2023-11-14T22:13:20Z');
  const who = parseIdentLine('Some One <one@example.com> 1700000000 -0500');
  t.same(who, {
    name: 'Some One', email: 'one@example.com', timestamp: 1700000000, timezone: '-0500',
    date: '2023-11-14T17:13:20-05:00', gitDate: '@1700000000 -0500',
  });
  t.equal(parseIdentLine('broken').name, 'broken', 'malformed lines do not throw');
});

t.test('readCommit', async (t) => {
  const repo = await bareRepo(t);
  const c1 = await commit(repo, null, { a: '1' }, 'First line\n\nBody text\n', { author: alice, committer: bob });
  const c2 = await commit(repo, c1, { a: '2' }, 'second', { author: bob, committer: carol });
  const m = await commit(repo, [c2, c1], {}, 'merge');
  const one = await readCommit(repo, c1);
  t.equal(one.sha, c1);
  t.same(one.parents, []);
  t.equal(one.tree, (await gitOk(['rev-parse', `${c1}^{tree}`], { cwd: repo })).trim());
  t.same(one.author, parseIdentLine('Alice Author <alice@example.com> 1700000000 +0200'));
  t.equal(one.author.date, '2023-11-15T00:13:20+02:00');
  t.equal(one.committer.name, 'Bob Builder');
  t.equal(one.committer.date, '2023-11-14T18:13:20-05:00');
  t.equal(one.message, 'First line\n\nBody text\n');
  t.equal(one.signature, null);
  t.same((await readCommit(repo, m)).parents, [c2, c1]);
  await gitOk(['update-ref', 'refs/heads/main', c2], { cwd: repo });
  t.equal((await readCommit(repo, 'refs/heads/main')).sha, c2, 'full ref names are accepted');
  await t.rejects(readCommit(repo, 'f'.repeat(40)), /not found/);
  await t.rejects(readCommit(repo, 'main~1'), TypeError);
  const tree = (await readCommit(repo, c1)).tree;
  await t.rejects(readCommits(repo, [tree]), 'a tree is not a commit');
});

t.test('listCommits and countCommits follow git log order and paging', async (t) => {
  const repo = await bareRepo(t);
  const base = await commit(repo, null, { a: '0' }, 'base');
  let tip = base;
  const made: string[] = [];
  for (let i = 1; i <= 7; i++) {
    tip = await commit(repo, tip, { a: String(i) }, `c${i}`, { author: { ...alice, date: `@${1700000000 + i * 60} +0000` } });
    made.push(tip);
  }
  const newestFirst = [...made].reverse();
  t.same((await listCommits(repo, { from: base, to: tip })).map((c) => c.sha), newestFirst);
  t.same((await listCommits(repo, { from: base, to: tip }, { skip: 2, limit: 3 })).map((c) => c.message), ['c5\n', 'c4\n', 'c3\n']);
  t.same(await listCommits(repo, { from: base, to: tip }, { skip: 10 }), []);
  t.same(await listCommits(repo, { from: base, to: tip }, { limit: 0 }), []);
  t.equal((await listCommits(repo, { from: null, to: tip })).length, 8, 'from null: whole history');
  t.equal(await countCommits(repo, base, tip), 7);
  t.equal(await countCommits(repo, null, tip), 8);
  t.equal(await countCommits(repo, tip, base), 0);
  t.same((await listCommits(repo, { from: base, to: tip }, { limit: 2 })).map((c) => c.sha), newestFirst.slice(0, 2));
  await t.rejects(listCommits(repo, { from: '--all', to: tip }), TypeError);
  await t.rejects(listCommits(repo, { from: base, to: tip }, { skip: -1 }), TypeError);
});

t.test('commitFiles and commitStats', async (t) => {
  const repo = await bareRepo(t);
  const c1 = await commit(repo, null, { keep: 'a\nb\nc\n', gone: 'x\n', moved: 'lots\nof\nlines\nhere\n' }, 'one');
  const c2 = await commit(repo, c1, { keep: 'a\nB\nc\nd\n', gone: null, moved: null, 'new/place': 'lots\nof\nlines\nhere\n', added: '1\n2\n' }, 'two');
  const files = await commitFiles(repo, c2);
  const byName = Object.fromEntries(files.map((f) => [f.filename, f.status]));
  t.same(byName, { keep: 'modified', gone: 'removed', moved: 'removed', 'new/place': 'added', added: 'added' }, 'no rename detection by default, as Gitea');
  const renamed = await commitFiles(repo, c2, { detectRenames: true });
  t.same(renamed.find((f) => f.status === 'renamed'), { filename: 'new/place', status: 'renamed', previousFilename: 'moved' });
  t.same((await commitFiles(repo, c1)).map((f) => f.status), ['added', 'added', 'added'], 'root commit: all added');

  // keep: +2 -1 (b→B, +d); gone: -1; added: +2; moved→new/place is a rename (no lines).
  t.same(await commitStats(repo, c2), { additions: 4, deletions: 2, total: 6 });
  t.same(await commitStats(repo, c1), { additions: 8, deletions: 0, total: 8 });
  const m = await commit(repo, [c2, c1], { merged: 'm\n' }, 'merge');
  t.same(await commitStats(repo, m), { additions: 1, deletions: 0, total: 1 }, 'merge: against the first parent');
  t.same((await commitFiles(repo, m)).map((f) => f.filename), ['merged']);
});

t.test('signatures are read, not verified', async (t) => {
  const repo = await bareRepo(t);
  const c1 = await commit(repo, null, { a: '1' }, 'plain');
  t.equal(await commitSignature(repo, c1), null);
  t.same(unverifiedCommit(null), { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' });

  const tree = (await readCommit(repo, c1)).tree;
  const sig = '-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----';
  const headers = `tree ${tree}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n`;
  const raw = `${headers}gpgsig ${sig.split('\n').join('\n ')}\n\nsigned message\n`;
  const signed = (await gitOk(['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: repo, input: raw })).trim();
  const got = await commitSignature(repo, signed);
  t.equal(got?.signature, `${sig}\n`);
  t.equal(got?.payload, `${headers}\nsigned message\n`, 'payload is the commit without its signature header');
  t.equal((await readCommit(repo, signed)).message, 'signed message\n');
  const v = unverifiedCommit(got);
  t.equal(v.verified, false);
  t.equal(v.signature, `${sig}\n`);
  t.equal(parseCommitObject('x', raw).signature?.payload, `${headers}\nsigned message\n`);
});

// countBranches reads reference files instead of starting git; it must count what git lists:
// loose and packed branches, nested names, a branch both packed and loose once, tags not at all.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { branchRef, countBranches, createInitialCommit, gitOk, initBareRepository, listBranches, updateRef } from '../../git/index.js';

t.test('branch counts from reference files agree with git', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'pullhost-branch-count-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const repo = join(root, 'r.git');
  await initBareRepository(repo, 'main');
  t.equal(await countBranches(repo), 0, 'an empty repository has none');
  const sha = await createInitialCommit(repo, 'main', { authorName: 'T', authorEmail: 't@example.com', message: 'first', files: { 'a.txt': 'a\n' } });
  const agree = async (what: string) => t.equal(await countBranches(repo), (await listBranches(repo)).length, what);
  await agree('one loose branch');
  for (const name of ['feature/one', 'feature/deep/two', 'x']) await updateRef(repo, branchRef(name), sha, null);
  await gitOk(['tag', 'v1', sha], { cwd: repo });
  await agree('nested loose branches, a tag beside them');
  await gitOk(['pack-refs', '--all'], { cwd: repo });
  await agree('all packed');
  t.equal(await countBranches(repo), 4);
  await updateRef(repo, branchRef('feature/one'), sha, sha);
  await updateRef(repo, branchRef('late'), sha, null);
  writeFileSync(join(repo, 'refs', 'heads', 'busy.lock'), sha);
  await agree('packed and loose at once, a lock file beside them');
  t.equal(await countBranches(repo), 5);
  await gitOk(['update-ref', '-d', 'refs/heads/x'], { cwd: repo });
  await agree('a deleted packed branch');
});

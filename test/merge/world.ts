// Pieces the merge tests share on top of the pull request world: open a pull request from a pushed
// branch, merge it, read the base branch back with git.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test as Tap } from 'tap';
import { repoDiskPath } from '../../core/repositories.js';
import type { PullWorld } from '../pulls/fixtures.js';
import { pullsStore } from '../../db/pulls.js';
import { reposStore } from '../../db/repos.js';
import { usersStore } from '../../db/users.js';
import type { MergeRequest, PullKey } from '../../workflows/pull-messages.js';

export async function openPull(w: PullWorld, branch: string, files: Record<string, string | null>, opts: { title?: string; as?: string; head?: string } = {}): Promise<number> {
  await w.pushBranch(branch, files);
  const r = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: opts.as ?? 'alice', body: { head: opts.head ?? branch, base: 'main', title: opts.title ?? `change ${branch}` } });
  if (r.statusCode !== 201) throw new Error(`create pull: ${r.statusCode} ${r.body}`);
  return r.json().number as number;
}

export function merge(w: PullWorld, index: number, body: Record<string, unknown>, as = 'alice', headers: Record<string, string> = {}) {
  return w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${index}/merge`, as, body, headers });
}

/** `git log` of the bare base repository, one object per commit. */
export function baseLog(w: PullWorld, ref = 'refs/heads/main', count = 5): Array<{ sha: string; parents: string[]; author: string; committer: string; subject: string; body: string }> {
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const out = execFileSync('git', ['--git-dir', path, 'log', `-n${count}`, '--format=%H%x00%P%x00%an <%ae>%x00%cn <%ce>%x00%s%x00%b%x1e', ref], { encoding: 'utf8' });
  return out.split('\x1e').map((s) => s.trim()).filter(Boolean).map((rec) => {
    const [sha, parents, author, committer, subject, body] = rec.split('\x00');
    return { sha: sha!, parents: parents ? parents.split(' ') : [], author: author!, committer: committer!, subject: subject!, body: (body ?? '').trim() };
  });
}

export function refOf(w: PullWorld, ref: string, repo = 'widget', owner = 'alice'): string | null {
  try {
    return execFileSync('git', ['--git-dir', repoDiskPath(w.config, owner, repo), 'rev-parse', '--verify', '-q', ref], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000, stepMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return check();
}

/**
 * A burst of auto-merges (issue #24): main protected with the required check `ci`, `n` branches
 * each adding its own file pushed in one push, a pull request each, all scheduled to auto-merge
 * while the check is pending. Returns the pull request numbers.
 */
export async function scheduledBurst(w: PullWorld, n: number, prefix: string): Promise<number[]> {
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  if (rule.statusCode !== 201) throw new Error(`protection: ${rule.statusCode} ${rule.body}`);
  const dir = w.clones.alice;
  const git = async (args: string[]) => {
    const r = await w.git(args, dir);
    if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  await git(['fetch', '-q', 'origin']);
  const names = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  for (const name of names) {
    await git(['checkout', '-q', '-B', name, 'origin/main']);
    writeFileSync(join(dir, `${name}.txt`), `${name}\n`);
    await git(['add', `${name}.txt`]);
    await git(['commit', '-q', '-m', `add ${name}`]);
  }
  await git(['push', '-q', 'origin', ...names.map((name) => `${name}:refs/heads/${name}`)]);
  const indexes: number[] = [];
  for (const name of names) {
    const r = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/pulls', as: 'alice', body: { head: name, base: 'main', title: name } });
    if (r.statusCode !== 201) throw new Error(`create ${name}: ${r.statusCode} ${r.body}`);
    indexes.push(r.json().number);
  }
  for (const index of indexes) {
    const r = await merge(w, index, { do: 'merge', merge_when_checks_succeed: true });
    if (r.statusCode !== 201) throw new Error(`schedule #${index}: ${r.statusCode} ${r.body}`);
  }
  return indexes;
}

/** Posts `success` for `ci` on each pull request's head, 16 at a time; returns the answers' statuses. */
export async function turnGreen(w: PullWorld, indexes: number[]): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < indexes.length) {
      const head = refOf(w, `refs/pull/${indexes[next++]!}/head`)!;
      statuses.push((await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state: 'success', context: 'ci' } })).statusCode);
    }
  }));
  return statuses;
}

/** Merged pull requests of the world. */
export async function mergedCount(w: PullWorld): Promise<number> {
  return Number((await w.db('pull_requests').where({ has_merged: true }).count({ n: '*' }))[0]!.n);
}

/** Asserts a burst of `n` (files `<prefix>-*`) landed exactly once and left nothing waiting. */
export async function assertLandedOnce(t: Tap, w: PullWorld, prefix: string, n: number, mergesBefore: number): Promise<void> {
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', path, ...args], { encoding: 'utf8' });
  t.equal(Number(git('rev-list', '--count', '--merges', 'refs/heads/main')) - mergesBefore, n, `exactly ${n} merge commits on the base`);
  t.equal(git('ls-tree', '--name-only', 'refs/heads/main').split('\n').filter((f) => f.startsWith(`${prefix}-`)).length, n, 'every file landed');
  const events = await w.db('comments').where({ type: 'merge_pull' }).select('issue_id');
  t.equal(events.length, n, 'one merge event each');
  t.equal(new Set(events.map((e) => e.issue_id)).size, n, 'no pull request merged twice');
  t.equal((await w.db('pull_auto_merges')).length, 0, 'no schedule left waiting');
  const open = await w.db('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id').where({ 'i.is_closed': false }).count({ n: '*' });
  t.equal(Number(open[0]!.n), 0, 'no pull request left open');
  const rows = await w.db('pull_requests').select('merge_commit_sha', 'pending_merge_commit');
  const onMain = new Set(git('rev-list', 'refs/heads/main').split('\n'));
  t.ok(rows.every((r) => onMain.has(r.merge_commit_sha)), 'each pull request names a commit on the base');
  t.ok(rows.every((r) => r.pending_merge_commit === null), 'no journal left');
}

/** Merge commits on main now. */
export function mainMerges(w: PullWorld): number {
  return Number(execFileSync('git', ['--git-dir', repoDiskPath(w.config, 'alice', 'widget'), 'rev-list', '--count', '--merges', 'refs/heads/main'], { encoding: 'utf8' }));
}

/** Merge commits ("Merge pull request …") on main since `before`. */
export function mergesSince(w: PullWorld, before: string): number {
  return baseLog(w, `${before}..refs/heads/main`, 100).filter((c) => c.subject.startsWith('Merge pull request')).length;
}

/** alice/widget's repository id. */
export async function widgetRepoId(w: PullWorld): Promise<number> {
  return Number((await w.db('repositories').where({ lower_name: 'widget', owner_id: w.users.alice.id }).first('id')).id);
}

/** A merge request as alice sends it to the workflow directly (no HTTP): a plain merge, unless overridden. */
export function directMerge(w: PullWorld, overrides: Partial<MergeRequest> = {}): MergeRequest {
  return {
    doerId: w.users.alice.id, style: 'merge', title: '', message: '', mergeCommitId: '', headCommitId: '',
    mergeWhenChecksSucceed: false, forceMerge: false, deleteBranchAfterMerge: null, ...overrides,
  };
}

/** The Temporal handle of alice/widget's pull request `index` workflow (its latest run). */
export async function pullWorkflowHandle(w: PullWorld, index: number) {
  return w.pullWorkflows!.client.workflow.getHandle(w.pullWorkflows!.workflowId({ repoId: await widgetRepoId(w), index }));
}

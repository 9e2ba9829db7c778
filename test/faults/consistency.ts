// What every fault test checks afterwards: the bare repository is sound (fsck clean, no lock files or
// leftover quarantines) and each pull request's merged flag, merge commit, refs and rows agree, with
// every merge done exactly once.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { repoDiskPath } from '../../core/repositories.js';
import type { PullWorld } from '../pulls/fixtures.js';

function git(repoPath: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', repoPath, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function isAncestor(repoPath: string, commit: string, of: string): boolean {
  try {
    git(repoPath, ['merge-base', '--is-ancestor', commit, of]);
    return true;
  } catch {
    return false;
  }
}

/** Files under `dir` (recursively) whose name matches `pattern`, relative to `dir`. */
export function filesMatching(dir: string, pattern: RegExp): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (pattern.test(entry.name)) found.push(join(entry.parentPath, entry.name).slice(dir.length + 1));
  }
  return found;
}

/** `git for-each-ref` of the repository as ref → sha. */
export function refsOf(repoPath: string): Record<string, string> {
  const refs: Record<string, string> = {};
  for (const line of git(repoPath, ['for-each-ref', '--format=%(refname) %(objectname)']).split('\n').filter(Boolean)) {
    const [ref, sha] = line.split(' ');
    refs[ref!] = sha!;
  }
  return refs;
}

export function assertRepositorySound(t: Test, repoPath: string): void {
  let fsck = '';
  try {
    fsck = git(repoPath, ['fsck', '--full', '--no-progress', '--no-dangling']);
    t.pass('git fsck is clean');
  } catch (err) {
    t.fail(`git fsck failed: ${String((err as { stderr?: unknown }).stderr ?? err)}${fsck}`);
  }
  t.same(filesMatching(repoPath, /\.lock$/), [], 'no lock files left in the repository');
  t.same(filesMatching(join(repoPath, 'objects'), /^(tmp_objdir|incoming-)/), [], 'no quarantine directories left behind');
}

/**
 * Every pull request of alice/widget: merged ones have one merge comment, a closed issue, no pending
 * journal and a merge commit on the base branch, made once; open ones have refs/pull/N/head at their
 * recorded head and were never merged.
 */
export async function assertPullsAgree(t: Test, w: PullWorld): Promise<void> {
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const refs = refsOf(path);
  const subjects = git(path, ['log', '--format=%s', 'refs/heads/main']).split('\n');
  for (const pull of await w.db('pull_requests').where({ base_repo_id: 1 })) {
    const label = `#${pull.index}`;
    const issue = await w.db('issues').where({ id: pull.issue_id }).first();
    const mergeComments = await w.db('comments').where({ issue_id: pull.issue_id, type: 'merge_pull' });
    const mergeCommits = subjects.filter((s) => s.startsWith('Merge pull request') && s.includes(`(${label})`));
    t.equal(pull.pending_merge_commit, null, `${label}: no merge journal left pending`);
    if (pull.has_merged) {
      t.ok(issue.is_closed, `${label}: merged and closed`);
      t.equal(mergeComments.length, 1, `${label}: one merge comment`);
      t.equal(mergeCommits.length, 1, `${label}: one merge commit on main`);
      t.ok(isAncestor(path, pull.merge_commit_sha, 'refs/heads/main'), `${label}: its merge commit is on main`);
    } else {
      t.equal(mergeComments.length, 0, `${label}: not merged, no merge comment`);
      t.equal(mergeCommits.length, 0, `${label}: not merged, no merge commit`);
      t.equal(refs[`refs/pull/${pull.index}/head`], pull.head_commit_id, `${label}: refs/pull/N/head is the recorded head`);
    }
  }
}

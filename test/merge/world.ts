// Pieces the merge tests share on top of the pull request world: open a pull request from a pushed
// branch, merge it, read the base branch back with git.
import { execFileSync } from 'node:child_process';
import { repoDiskPath } from '../../core/repositories.js';
import type { PullWorld } from '../pulls/fixtures.js';
import { pullsStore } from '../../db/pulls.js';
import { reposStore } from '../../db/repos.js';
import { usersStore } from '../../db/users.js';
import type { PullKey } from '../../workflows/pull-messages.js';

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

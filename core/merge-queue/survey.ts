// One round's reading of a merge queue: where the base is, the settings, which entries can no
// longer stay (head pushed, closed, retargeted, merged elsewhere) and the checks of the commits
// being checked. Required contexts are the branch protection's, matched as Gitea matches them.
import type { Knex } from 'knex';
import { branchRef, resolveRef } from '../../git/index.js';
import { statusContextMatches } from '../branch-protection.js';
import { latestStatusesByContext } from '../commit-statuses.js';
import { queueSettingsFor, repoPathById } from './settings.js';
import type { ChecksVerdict, QueueKey, QueueSettings, QueueSurvey } from '../../workflows/queue-messages.js';

const GREEN = new Set(['success', 'warning', 'skipped']);

/** The required checks' verdict on a commit: failure at the first red one, success when all are green. */
export async function checksVerdict(db: Knex, repoId: number, sha: string, settings: QueueSettings): Promise<ChecksVerdict> {
  const statuses = await latestStatusesByContext(db, repoId, sha);
  const checks = statuses.map((s) => ({ context: s.context, state: s.state }));
  for (const pattern of settings.requiredContexts) {
    const matching = statuses.filter((s) => statusContextMatches(pattern, s.context));
    const red = matching.find((s) => s.state === 'error' || s.state === 'failure');
    if (red) return { state: 'failure', message: `required check ${red.context} is ${red.state}${red.description ? `: ${red.description}` : ''}`, checks };
    if (matching.length === 0 || !matching.every((s) => GREEN.has(s.state))) return { state: 'pending', message: `waiting for ${pattern}`, checks };
  }
  return { state: 'success', message: '', checks };
}

export async function surveyQueue(
  deps: { db: Knex; config: { APP_DATA_PATH: string } }, key: QueueKey, entries: Array<{ index: number; headSha: string }>, commits: string[],
): Promise<QueueSurvey> {
  const { db } = deps;
  const settings = await queueSettingsFor(db, key.repoId, key.branch);
  const path = await repoPathById(db, deps.config, key.repoId);
  const baseSha = path ? await resolveRef(path, branchRef(key.branch)) : null;
  const rows = entries.length === 0 ? [] : await db('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
    .where('p.base_repo_id', key.repoId).whereIn('p.index', entries.map((e) => e.index))
    .select('p.index', 'p.base_branch', 'p.head_commit_id', 'p.has_merged', 'i.is_closed');
  const byIndex = new Map(rows.map((r: Record<string, unknown>) => [Number(r.index), r]));
  const removals: QueueSurvey['removals'] = [];
  for (const e of entries) {
    const row = byIndex.get(e.index);
    const reason = !row ? 'the pull request was deleted'
      : row.has_merged ? 'the pull request was merged outside the queue'
        : row.is_closed ? 'the pull request was closed'
          : row.base_branch !== key.branch ? `the pull request now targets ${String(row.base_branch)}`
            : row.head_commit_id !== e.headSha ? 'new commits were pushed to the head branch' : null;
    if (reason) removals.push({ index: e.index, reason });
  }
  const verdicts: Record<string, ChecksVerdict> = {};
  for (const sha of new Set(commits)) verdicts[sha] = await checksVerdict(db, key.repoId, sha, settings);
  return { baseSha, settings, removals, verdicts };
}

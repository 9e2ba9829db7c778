// The events of references that moved, as Gitea's push handling sends them: a new branch is
// `create` then `push`, a moved branch `push`, a deleted branch `delete`; a new tag `push` then
// `create`, a deleted tag `push` then `delete`; and every open pull request whose head branch moved
// is `synchronized` (pull_request_sync), all in the caller's transaction.
import type { Knex } from 'knex';
import { isZeroSha } from '../../git/index.js';
import type { HookEventType } from './events.js';
import { isHeard, recordHookEvents, type NewHookEvent } from './outbox.js';

export interface MovedRef {
  ref: string;
  oldSha: string;
  newSha: string;
}

function refEvents(repoId: number, pusherId: number | null, u: MovedRef): NewHookEvent[] {
  const detail = { kind: 'ref' as const, ref: u.ref, before: u.oldSha, after: u.newSha };
  const event = (kind: HookEventType): NewHookEvent => ({ repoId, event: kind, doerId: pusherId, detail });
  const created = isZeroSha(u.oldSha);
  const deleted = isZeroSha(u.newSha);
  if (u.ref.startsWith('refs/heads/')) {
    if (deleted) return [event('delete')];
    return created ? [event('create'), event('push')] : [event('push')];
  }
  if (u.ref.startsWith('refs/tags/')) return [event('push'), event(deleted ? 'delete' : 'create')];
  return [];
}

/** Open pull requests (in any repository) whose head is this branch of this repository. */
async function pullsFrom(trx: Knex, repoId: number, branch: string): Promise<Array<{ baseRepoId: number; issueId: number }>> {
  const rows = await trx('pull_requests as p').join('issues as i', 'i.id', 'p.issue_id')
    .where({ 'p.head_repo_id': repoId, 'p.head_branch': branch, 'i.is_closed': false, 'p.has_merged': false })
    .select('p.base_repo_id', 'i.id as issue_id');
  return rows.map((r: Record<string, unknown>) => ({ baseRepoId: Number(r.base_repo_id), issueId: Number(r.issue_id) }));
}

export async function recordRefEvents(trx: Knex, repoId: number, pusherId: number | null, moved: MovedRef[]): Promise<void> {
  const events: NewHookEvent[] = [];
  const heard = await isHeard(trx, repoId);
  for (const u of moved) {
    if (heard) events.push(...refEvents(repoId, pusherId, u));
    if (!u.ref.startsWith('refs/heads/') || isZeroSha(u.newSha) || u.oldSha === u.newSha) continue;
    for (const pull of await pullsFrom(trx, repoId, u.ref.slice('refs/heads/'.length))) {
      events.push({ repoId: pull.baseRepoId, event: 'pull_request_sync', action: 'synchronized', doerId: pusherId, detail: { kind: 'issue', issueId: pull.issueId } });
    }
  }
  await recordHookEvents(trx, events);
}

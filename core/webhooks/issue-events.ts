// The events of changes to an issue or pull request, named by the issue's kind: `issues`,
// `issue_assign`... for an issue, `pull_request`, `pull_request_assign`... for a pull request.
import type { IssueRow } from '../../db/issues.js';
import type { HookEventType } from './events.js';
import type { EventDetail, NewHookEvent } from './outbox.js';

export type IssueEventFamily = 'main' | 'assign' | 'label' | 'milestone' | 'comment';

const ISSUE_EVENTS: Record<IssueEventFamily, HookEventType> = {
  main: 'issues', assign: 'issue_assign', label: 'issue_label', milestone: 'issue_milestone', comment: 'issue_comment',
};
const PULL_EVENTS: Record<IssueEventFamily, HookEventType> = {
  main: 'pull_request', assign: 'pull_request_assign', label: 'pull_request_label', milestone: 'pull_request_milestone', comment: 'pull_request_comment',
};

type IssueRef = Pick<IssueRow, 'id' | 'repo_id' | 'is_pull'>;

export function issueEvent(issue: IssueRef, family: IssueEventFamily, action: string, doerId: number | null, extra: Partial<Extract<EventDetail, { kind: 'issue' }>> = {}): NewHookEvent {
  return {
    repoId: issue.repo_id, event: (issue.is_pull ? PULL_EVENTS : ISSUE_EVENTS)[family], action, doerId,
    detail: { ...extra, kind: 'issue', issueId: issue.id },
  };
}

/** `unassigned` for each assignee removed, then `assigned` for each added (Gitea's order). */
export function assigneeEvents(issue: IssueRef, before: number[], after: number[], doerId: number | null): NewHookEvent[] {
  const removed = before.filter((id) => !after.includes(id)).map(() => issueEvent(issue, 'assign', 'unassigned', doerId));
  const added = after.filter((id) => !before.includes(id)).map(() => issueEvent(issue, 'assign', 'assigned', doerId));
  return [...removed, ...added];
}

/** `edited` once for a new title and once for a new body, each with what it was. */
export function editedEvents(issue: IssueRow, next: { title?: string; body?: string }, doerId: number | null): NewHookEvent[] {
  const out: NewHookEvent[] = [];
  if (next.title !== undefined && next.title !== issue.title) out.push(issueEvent(issue, 'main', 'edited', doerId, { changes: { title: issue.title } }));
  if (next.body !== undefined && next.body !== issue.content) out.push(issueEvent(issue, 'main', 'edited', doerId, { changes: { body: issue.content } }));
  return out;
}

/** `milestoned` or `demilestoned` when the milestone changed. */
export function milestoneEvents(issue: IssueRow, next: number | null | undefined, doerId: number | null): NewHookEvent[] {
  if (next === undefined || next === issue.milestone_id) return [];
  return [issueEvent(issue, 'milestone', next ? 'milestoned' : 'demilestoned', doerId)];
}

/** `label_updated` when the set of labels changed. */
export function labelEvents(issue: IssueRef, before: number[], after: number[], doerId: number | null): NewHookEvent[] {
  const same = before.length === after.length && before.every((id) => after.includes(id));
  return same ? [] : [issueEvent(issue, 'label', 'label_updated', doerId)];
}

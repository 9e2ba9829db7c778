// Plain issue rules: creation with the shared per-repository index, editing, closing and reopening.
import { isBlocked } from './blocks.js';
import type { Knex } from 'knex';
import { BadRequestError, ForbiddenError, NotFoundError, PreconditionFailedError, UnprocessableError } from './errors.js';
import { atLeast, repoAccessMode, type RepoContext } from './permissions.js';
import { allocateIssueIndex } from './issue-index.js';
import { labelsForIssue } from './labels.js';
import { findMilestone } from './milestones.js';
import { openDependencies } from './dependencies.js';
import { addComment } from './comments.js';
import { issuesStore, type IssueRow } from '../db/issues.js';
import { milestonesStore } from '../db/milestones.js';
import { usersStore, USER_TYPE, type UserRow } from '../db/users.js';
import { nowUnix } from '../db/time.js';
import { recordHookEvents } from './webhooks/outbox.js';
import { assigneeEvents, editedEvents, issueEvent, milestoneEvents } from './webhooks/issue-events.js';

export const MAX_ISSUE_TITLE = 255;

export async function loadIssue(db: Knex, repoId: number, index: number): Promise<IssueRow> {
  const issue = await issuesStore(db).byIndex(repoId, index);
  if (!issue) throw new NotFoundError('issue does not exist');
  return issue;
}

function checkTitle(title: string): string {
  const t = title.trim();
  if (!t) throw new UnprocessableError('[title]: Required');
  if (t.length > MAX_ISSUE_TITLE) throw new UnprocessableError(`[title]: MaxSize(${MAX_ISSUE_TITLE})`);
  return t;
}

/** Assignees must exist and be able to write to the repository, as Gitea's CanBeAssigned says. */
export async function resolveAssignees(db: Knex, ctx: RepoContext, names: string[]): Promise<UserRow[]> {
  const wanted = [...new Set(names.filter((n) => n !== ''))];
  if (wanted.length === 0) return [];
  const users = await usersStore(db).byNames(wanted);
  const byName = new Map(users.map((u) => [u.lower_name, u]));
  const out: UserRow[] = [];
  for (const name of wanted) {
    const user = byName.get(name.toLowerCase());
    if (!user || user.type !== USER_TYPE.user) throw new UnprocessableError(`user does not exist [name: ${name}]`);
    if (!atLeast(await repoAccessMode(db, ctx.repo, ctx.owner, user), 'write')) {
      throw new UnprocessableError(`user ${user.name} does not have access to this repository`);
    }
    out.push(user);
  }
  return out;
}

async function milestoneIdFor(db: Knex, repoId: number, milestone: number | undefined): Promise<number | null> {
  if (!milestone) return null;
  const found = await milestonesStore(db).byId(repoId, milestone);
  if (!found) throw new NotFoundError('milestone does not exist');
  return found.id;
}

/** Dates given without a time mean the end of that day, as Gitea reads `due_date`. */
export function deadlineUnix(value: string): number {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const t = Date.parse(dateOnly ? `${value}T23:59:59Z` : value);
  if (Number.isNaN(t)) throw new UnprocessableError('[due_date]: invalid date');
  return Math.floor(t / 1000);
}

export interface NewIssue {
  title: string;
  body?: string;
  assignee?: string;
  assignees?: string[];
  labels?: number[];
  milestone?: number;
  closed?: boolean;
  due_date?: string | null;
  /** The branch or tag the issue is about, kept as given (Gitea does not check it). */
  ref?: string;
}

export async function createIssue(db: Knex, ctx: RepoContext, doer: UserRow, input: NewIssue): Promise<IssueRow> {
  if (await isBlocked(db, ctx.owner.id, doer.id)) throw new ForbiddenError('user is blocked by the repository owner');
  const title = checkTitle(input.title);
  // Only writers may set labels, milestone, assignees and deadline; Gitea ignores them for others.
  const canWrite = atLeast(ctx.mode, 'write');
  const orgId = ctx.owner.type === USER_TYPE.organization ? ctx.owner.id : null;
  const labels = canWrite ? await labelsForIssue(db, ctx.repo.id, orgId, input.labels ?? []) : [];
  const assignees = canWrite ? await resolveAssignees(db, ctx, [...(input.assignees ?? []), ...(input.assignee ? [input.assignee] : [])]) : [];
  const milestoneId = canWrite ? await milestoneIdFor(db, ctx.repo.id, input.milestone) : null;
  const deadline = canWrite && input.due_date ? deadlineUnix(input.due_date) : null;
  const closed = Boolean(input.closed);

  const id = await db.transaction(async (trx) => {
    const index = await allocateIssueIndex(trx, ctx.repo.id);
    const store = issuesStore(trx);
    const issueId = await store.insert({
      repo_id: ctx.repo.id, index, poster_id: doer.id, title, content: input.body ?? '', is_pull: false,
      is_closed: closed, milestone_id: milestoneId, deadline_unix: deadline, closed_unix: closed ? nowUnix() : null, ref: input.ref ?? '',
    }, trx);
    await store.replaceLabels(issueId, labels.map((l) => l.id), trx);
    await store.replaceAssignees(issueId, assignees.map((u) => u.id), trx);
    // Gitea creates a closed issue open and then closes it, which leaves the close record.
    if (closed) await addComment(trx, { issueId, posterId: doer.id, type: 'close', content: '' });
    // Gitea assigns, then announces the new issue, then closes it.
    const made = { id: issueId, repo_id: ctx.repo.id, is_pull: false };
    await recordHookEvents(trx, [
      ...assigneeEvents(made, [], assignees.map((u) => u.id), doer.id),
      issueEvent(made, 'main', 'opened', doer.id),
      ...(closed ? [issueEvent(made, 'main', 'closed', doer.id)] : []),
    ]);
    return issueId;
  });
  return (await issuesStore(db).byId(id))!;
}

/**
 * Closes or reopens, leaving the close or reopen record on the timeline as Gitea does. Closing while
 * open issues block this one is refused (412), as Gitea refuses. Pull requests pass through the
 * pull request's workflow (core/pulls/state.ts) so this cannot interleave with a merge.
 */
export async function setIssueClosed(db: Knex, issue: IssueRow, closed: boolean, doer: UserRow): Promise<void> {
  if (issue.is_closed === closed) return;
  if (closed && (await openDependencies(db, issue.id)).length > 0) {
    throw new PreconditionFailedError('cannot close this issue or pull request because it still has open dependencies');
  }
  await db.transaction(async (trx) => {
    // Only the request that changes the state records it: two racing closes leave one record.
    const changed = await trx('issues').where({ id: issue.id, is_closed: !closed })
      .update({ is_closed: closed, closed_unix: closed ? nowUnix() : null, updated_unix: nowUnix() });
    if (Number(changed) === 0) return;
    await addComment(trx, { issueId: issue.id, posterId: doer.id, type: closed ? 'close' : 'reopen', content: '' });
    await recordHookEvents(trx, [issueEvent(issue, 'main', closed ? 'closed' : 'reopened', doer.id)]);
  });
}

export interface IssueEdit {
  title?: string;
  body?: string;
  /** The content_version the editor read; a mismatch means someone else changed the body. */
  content_version?: number;
  assignee?: string;
  assignees?: string[];
  milestone?: number | null;
  state?: 'open' | 'closed';
  due_date?: string | null;
  unset_due_date?: boolean;
  ref?: string;
}

export async function editIssue(db: Knex, ctx: RepoContext, issue: IssueRow, doer: UserRow, edit: IssueEdit): Promise<IssueRow> {
  const canWrite = atLeast(ctx.mode, 'write');
  const isPoster = issue.poster_id === doer.id;
  if (!canWrite && !isPoster) throw new ForbiddenError('only the poster or a writer may edit this issue');
  const fields: Partial<IssueRow> = {};
  if (edit.title !== undefined) fields.title = checkTitle(edit.title);
  if (edit.ref !== undefined) fields.ref = edit.ref;
  let assignees: UserRow[] | undefined;
  if (canWrite) {
    if (edit.unset_due_date) fields.deadline_unix = null;
    else if (edit.due_date !== undefined) fields.deadline_unix = edit.due_date ? deadlineUnix(edit.due_date) : null;
    // Gitea treats milestone 0 as "remove".
    if (edit.milestone !== undefined) fields.milestone_id = await milestoneIdFor(db, ctx.repo.id, edit.milestone ?? 0);
    if (edit.assignees !== undefined || edit.assignee !== undefined) {
      assignees = await resolveAssignees(db, ctx, edit.assignees ?? (edit.assignee ? [edit.assignee] : []));
    }
  }
  const body = edit.body !== undefined && edit.body !== issue.content ? edit.body : undefined;
  // One transaction: every change lands with the events hooks hear of it, or none does.
  await db.transaction(async (trx) => {
    const store = issuesStore(trx);
    const assigneesBefore = assignees ? (await store.assigneeIdsOf([issue.id], trx)).get(issue.id) ?? [] : [];
    if (assignees) await store.replaceAssignees(issue.id, assignees.map((u) => u.id), trx);
    if (body !== undefined && !(await store.updateContent(issue.id, edit.content_version ?? issue.content_version, body, trx))) {
      throw new BadRequestError('the issue body was changed by someone else; reload it and apply your change again');
    }
    if (Object.keys(fields).length) await store.update(issue.id, fields, trx);
    await recordHookEvents(trx, [
      ...editedEvents(issue, { title: fields.title, body }, doer.id),
      ...(assignees ? assigneeEvents(issue, assigneesBefore, assignees.map((u) => u.id), doer.id) : []),
      ...milestoneEvents(issue, fields.milestone_id, doer.id),
    ]);
  });
  if (edit.state !== undefined) await setIssueClosed(db, issue, edit.state === 'closed', doer);
  return (await issuesStore(db).byId(issue.id))!;
}

export { findMilestone };

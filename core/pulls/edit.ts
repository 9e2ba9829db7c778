// Editing a pull request's issue fields (spec: PATCH /repos/{owner}/{repo}/pulls/{index}, rules
// 1-7 and 10). State (rule 8) and base (rule 9) go through the pull request's workflow; the cheap,
// I/O-free parts of their checks are here so a refused request changes nothing.
import { isBlocked } from '../blocks.js';
import type { Knex } from 'knex';
import { BadRequestError, ForbiddenError, NotFoundError, PreconditionFailedError, UnprocessableError } from '../errors.js';
import { labelsForIssue } from '../labels.js';
import { atLeast, repoAccessMode, type RepoContext } from '../permissions.js';
import { MERGED_STATE_MESSAGE } from './state.js';
import { issuesStore, type IssueRow } from '../../db/issues.js';
import { recordHookEvents } from '../webhooks/outbox.js';
import { assigneeEvents, editedEvents, labelEvents, milestoneEvents } from '../webhooks/issue-events.js';
import { milestonesStore } from '../../db/milestones.js';
import { pullsStore, type PullRow } from '../../db/pulls.js';
import { reposStore } from '../../db/repos.js';
import { usersStore, USER_TYPE, type UserRow } from '../../db/users.js';

export interface PullEdit {
  title?: string;
  body?: string | null;
  /** The issue's content_version the editor read; a different stored one means a concurrent change. */
  content_version?: number;
  due_date?: string | null;
  unset_due_date?: boolean | null;
  assignee?: string;
  assignees?: string[] | null;
  milestone?: number;
  labels?: number[] | null;
  state?: string | null;
  base?: string;
  allow_maintainer_edit?: boolean | null;
}

/** Rule 1: the poster or a writer of the repository's pull requests. */
export function mayEditPull(ctx: RepoContext, issue: IssueRow, doer: UserRow): boolean {
  return issue.poster_id === doer.id || atLeast(ctx.mode, 'write');
}

/** Rule 8's checks that need no I/O: a merged pull request and an unknown state answer 412. */
export function checkStateChange(pull: PullRow, state: string): 'open' | 'closed' {
  if (pull.has_merged) throw new PreconditionFailedError(MERGED_STATE_MESSAGE);
  if (state !== 'open' && state !== 'closed') throw new PreconditionFailedError(`unknown state: ${state.slice(0, 40)}`);
  return state;
}

/**
 * Only the date of a deadline counts: the end of that day (23:59:59) in the timezone written in the
 * value (`+02:00`, `Z`; UTC when there is none). Go's zero time clears it, as Gitea does.
 */
export function endOfDayUnix(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?$/.exec(value.trim());
  if (!m) throw new UnprocessableError(`[due_date]: invalid date '${value.slice(0, 40)}'`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year <= 1 && month === 1 && day === 1) return null;
  if (month < 1 || month > 12 || day < 1 || day > 31) throw new UnprocessableError(`[due_date]: invalid date '${value.slice(0, 40)}'`);
  let offsetMinutes = 0;
  const zone = m[7];
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    offsetMinutes = (digits[0] === '-' ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  return Math.floor(Date.UTC(year, month - 1, day, 23, 59, 59) / 1000) - offsetMinutes * 60;
}

/** Rule 10: granting maintainers push access to the head branch is for the poster or a writer of the head repository. */
async function mayAllowMaintainerEdit(db: Knex, ctx: RepoContext, pull: PullRow, issue: IssueRow, doer: UserRow): Promise<boolean> {
  if (issue.poster_id === doer.id) return true;
  if (pull.head_repo_id === null) return false;
  if (pull.head_repo_id === ctx.repo.id) return atLeast(ctx.mode, 'write');
  const headRepo = await reposStore(db).byId(pull.head_repo_id);
  const headOwner = headRepo ? await usersStore(db).byId(headRepo.owner_id) : undefined;
  return Boolean(headRepo && headOwner && atLeast(await repoAccessMode(db, headRepo, headOwner, doer), 'write'));
}

async function assigneeIds(db: Knex, ctx: RepoContext, doer: UserRow, names: string[]): Promise<number[]> {
  const wanted = [...new Set(names.filter((n) => n !== ''))];
  const found = new Map((await usersStore(db).byNames(wanted)).map((u) => [u.lower_name, u]));
  const ids: number[] = [];
  for (const name of wanted) {
    const user = found.get(name.toLowerCase());
    if (!user || user.type !== USER_TYPE.user) throw new UnprocessableError(`Assignee does not exist: [name: ${name}]`);
    if (await isBlocked(db, user.id, doer.id)) throw new ForbiddenError(`user ${user.name} has blocked you`);
    if (!atLeast(await repoAccessMode(db, ctx.repo, ctx.owner, user), 'write')) {
      throw new UnprocessableError(`user does not have access to repo [user_id: ${user.id}, repo_name: ${ctx.repo.name}]`);
    }
    ids.push(user.id);
  }
  return ids;
}

/**
 * Applies rules 2-7 and 10 in one transaction: either every field changes or none does. The body
 * is written with a compare-and-swap on content_version, which every body change increments.
 */
export async function editPullFields(db: Knex, ctx: RepoContext, pull: PullRow, issue: IssueRow, doer: UserRow, edit: PullEdit): Promise<void> {
  const canWrite = atLeast(ctx.mode, 'write');
  if (edit.content_version !== undefined && edit.body !== undefined && edit.body !== null && edit.content_version !== issue.content_version) {
    throw new BadRequestError(`the body was changed concurrently: you edited version ${edit.content_version}, the current version is ${issue.content_version}; reload it and apply your change again`);
  }
  const fields: Partial<IssueRow> = {};
  if (edit.title !== undefined && edit.title.trim() !== '') fields.title = edit.title.trim();
  if (edit.unset_due_date === true) fields.deadline_unix = null;
  else if (edit.due_date !== undefined && edit.due_date !== null) fields.deadline_unix = endOfDayUnix(edit.due_date);
  let assignees: number[] | undefined;
  if (canWrite && (edit.assignees !== undefined || edit.assignee !== undefined)) {
    const names = edit.assignees ?? [];
    if (edit.assignee) names.push(edit.assignee);
    assignees = await assigneeIds(db, ctx, doer, names);
  }
  if (canWrite && edit.milestone && edit.milestone !== issue.milestone_id) {
    if (edit.milestone < 0 || !(await milestonesStore(db).byId(ctx.repo.id, edit.milestone))) {
      throw new NotFoundError(`milestone does not exist [id: ${edit.milestone}, repo_id: ${ctx.repo.id}]`);
    }
    fields.milestone_id = edit.milestone;
  }
  let labels: number[] | undefined;
  if (canWrite && edit.labels !== undefined && edit.labels !== null) {
    const orgId = ctx.owner.type === USER_TYPE.organization ? ctx.owner.id : null;
    labels = (await labelsForIssue(db, ctx.repo.id, orgId, edit.labels)).map((l) => l.id);
  }
  const maintainerEdit = edit.allow_maintainer_edit ?? undefined;
  if (maintainerEdit !== undefined && !(await mayAllowMaintainerEdit(db, ctx, pull, issue, doer))) {
    throw new ForbiddenError('only the poster or a writer of the head repository may change allow_maintainer_edit');
  }

  await db.transaction(async (trx) => {
    const store = issuesStore(trx);
    const [assigneesBefore, labelsBefore] = await Promise.all([
      assignees ? store.assigneeIdsOf([issue.id], trx).then((m) => m.get(issue.id) ?? []) : [],
      labels ? store.labelIdsOf([issue.id], trx).then((m) => m.get(issue.id) ?? []) : [],
    ]);
    if (edit.body !== undefined && edit.body !== null && edit.body !== issue.content) {
      if (!(await store.updateContent(issue.id, issue.content_version, edit.body, trx))) {
        throw new BadRequestError('the body was changed concurrently; reload it and apply your change again');
      }
    }
    if (assignees) await store.replaceAssignees(issue.id, assignees, trx);
    if (labels) await store.replaceLabels(issue.id, labels, trx);
    if (maintainerEdit !== undefined && maintainerEdit !== pull.allow_maintainer_edit) {
      await pullsStore(trx).update(pull.id, { allow_maintainer_edit: maintainerEdit }, trx);
    }
    await store.update(issue.id, fields, trx);
    await recordHookEvents(trx, [
      ...editedEvents(issue, { title: fields.title, body: edit.body ?? undefined }, doer.id),
      ...(assignees ? assigneeEvents(issue, assigneesBefore, assignees, doer.id) : []),
      ...(labels ? labelEvents(issue, labelsBefore, labels, doer.id) : []),
      ...milestoneEvents(issue, fields.milestone_id, doer.id),
    ]);
  });
}

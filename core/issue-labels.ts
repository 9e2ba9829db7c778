// The labels on one issue or pull request (Gitea's routers/api/v1/repo/issue_label.go and
// models/issues/issue_label.go): labels named by id or by name, the repository's and its
// organization's; others are dropped silently, as Gitea drops them. Each change leaves a `label`
// event on the timeline (content '1' added, '' removed), and exclusive scopes keep one label each.
import type { Knex } from 'knex';
import { BadRequestError, ForbiddenError, UnprocessableError } from './errors.js';
import { atLeast, type RepoContext } from './permissions.js';
import { addComment } from './comments.js';
import { labelsStore, type LabelRow } from '../db/labels.js';
import { issuesStore, type IssueRow } from '../db/issues.js';
import { USER_TYPE, type UserRow } from '../db/users.js';

/** The labels the issue carries, by name as Gitea lists them. */
export async function labelsOfIssue(db: Knex, issueId: number): Promise<LabelRow[]> {
  const ids = (await issuesStore(db).labelIdsOf([issueId])).get(issueId) ?? [];
  return labelsStore(db).byIds(ids);
}

export function assertMayLabel(ctx: RepoContext): void {
  if (!atLeast(ctx.mode, 'write')) throw new ForbiddenError('write permission is required');
}

/**
 * Reads Gitea's IssueLabelsOption: every item an integer (an id; JSON numbers are truncated as Go
 * reads them) or every item a string (a name); a mixture is refused with 400.
 */
export function parseLabelRefs(items: unknown[]): { ids: number[]; names: string[] } {
  const ids: number[] = [];
  const names: string[] = [];
  for (const item of items) {
    if (typeof item === 'number' && Number.isFinite(item)) ids.push(Math.trunc(item));
    else if (typeof item === 'string') names.push(item);
    else throw new BadRequestError('a label must be an integer or a string');
  }
  if (ids.length > 0 && names.length > 0) throw new BadRequestError('labels should be an array of strings or integers');
  return { ids, names };
}

/** The labels named, restricted to those usable on this repository's issues. */
export async function resolveLabelRefs(db: Knex, ctx: RepoContext, refs: { ids: number[]; names: string[] }): Promise<LabelRow[]> {
  const orgId = ctx.owner.type === USER_TYPE.organization ? ctx.owner.id : null;
  const usable = await labelsStore(db).usableIn(ctx.repo.id, orgId);
  const byId = new Set(refs.ids);
  const byName = new Set(refs.names);
  return usable.filter((l) => byId.has(l.id) || byName.has(l.name)).sort(byIdAsc);
}

const byIdAsc = (a: LabelRow, b: LabelRow) => a.id - b.id;

/** Gitea's Label.ExclusiveScope: `scope/name` of an exclusive label, '' otherwise. */
export function exclusiveScope(label: LabelRow): string {
  if (!label.exclusive) return '';
  const i = label.name.lastIndexOf('/');
  return i <= 0 || i === label.name.length - 1 ? '' : label.name.slice(0, i);
}

/** Of labels sharing a scope the last one given wins (Gitea's RemoveDuplicateExclusiveLabels). */
function oneOfEachScope(labels: LabelRow[]): LabelRow[] {
  return labels.filter((label, i) => {
    const scope = exclusiveScope(label);
    return scope === '' || !labels.slice(i + 1).some((other) => exclusiveScope(other) === scope);
  });
}

async function attach(trx: Knex, issue: IssueRow, label: LabelRow, doer: UserRow): Promise<void> {
  await trx('issue_labels').insert({ issue_id: issue.id, label_id: label.id });
  await addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'label', content: '1', label_id: label.id });
}

async function detach(trx: Knex, issue: IssueRow, label: LabelRow, doer: UserRow): Promise<void> {
  const n = await trx('issue_labels').where({ issue_id: issue.id, label_id: label.id }).delete();
  if (Number(n) > 0) await addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'label', content: '', label_id: label.id });
}

async function addLabelsIn(trx: Knex, issue: IssueRow, labels: LabelRow[], doer: UserRow): Promise<void> {
  let current = await labelsOfIssue(trx, issue.id);
  for (const label of labels) {
    if (current.some((c) => c.id === label.id)) continue;
    const scope = exclusiveScope(label);
    if (scope) for (const other of current.filter((c) => c.id !== label.id && exclusiveScope(c) === scope)) await detach(trx, issue, other, doer);
    await attach(trx, issue, label, doer);
    current = await labelsOfIssue(trx, issue.id);
  }
}

export async function addIssueLabels(db: Knex, issue: IssueRow, labels: LabelRow[], doer: UserRow): Promise<void> {
  await db.transaction((trx) => addLabelsIn(trx, issue, labels, doer));
}

export async function replaceIssueLabels(db: Knex, issue: IssueRow, labels: LabelRow[], doer: UserRow): Promise<void> {
  const wanted = oneOfEachScope(labels);
  // Gitea adds first, then removes what is no longer wanted.
  await db.transaction(async (trx) => {
    const before = await labelsOfIssue(trx, issue.id);
    await addLabelsIn(trx, issue, wanted, doer);
    for (const label of before) if (!wanted.some((w) => w.id === label.id)) await detach(trx, issue, label, doer);
  });
}

export async function clearIssueLabels(db: Knex, issue: IssueRow, doer: UserRow): Promise<void> {
  await db.transaction(async (trx) => {
    for (const label of await labelsOfIssue(trx, issue.id)) await detach(trx, issue, label, doer);
  });
}

/** Removes one label by id; an id that names no label is 422 with Gitea's text (which says 0 for an unknown positive id). */
export async function removeIssueLabel(db: Knex, issue: IssueRow, labelId: number, doer: UserRow): Promise<void> {
  const label = labelId > 0 ? await labelsStore(db).byIdAnywhere(labelId) : undefined;
  if (!label) throw new UnprocessableError(`label does not exist [label_id: ${labelId > 0 ? 0 : labelId}]`);
  await db.transaction(async (trx) => detach(trx, issue, label, doer));
}

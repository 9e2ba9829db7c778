// Milestone rules: `{id}` in paths is an id or a name; closing records when.
import type { Knex } from 'knex';
import { NotFoundError, UnprocessableError } from './errors.js';
import { milestonesStore, type MilestoneRow } from '../db/milestones.js';
import { nowUnix } from '../db/time.js';

export const MAX_MILESTONE_TITLE = 255;

/** Gitea looks a path value up as an id first when it is a number, then as a name. */
export async function findMilestone(db: Knex, repoId: number, idOrName: string): Promise<MilestoneRow> {
  const store = milestonesStore(db);
  if (/^\d{1,15}$/.test(idOrName)) {
    const byId = await store.byId(repoId, Number(idOrName));
    if (byId) return byId;
  }
  const byName = await store.byName(repoId, idOrName);
  if (!byName) throw new NotFoundError('milestone does not exist');
  return byName;
}

export interface MilestoneInput {
  title?: string;
  description?: string;
  /** `closed` closes the milestone; any other value opens it (Gitea's rule). */
  state?: string;
  due_on?: string | null;
}

function dueUnix(dueOn: string | null | undefined): number | null | undefined {
  if (dueOn === undefined) return undefined;
  if (dueOn === null || dueOn === '') return null;
  const t = Date.parse(dueOn);
  if (Number.isNaN(t)) throw new UnprocessableError('[due_on]: invalid date');
  return Math.floor(t / 1000);
}

function checkTitle(title: string): string {
  const t = title.trim();
  if (!t) throw new UnprocessableError('[title]: Required');
  if (t.length > MAX_MILESTONE_TITLE) throw new UnprocessableError(`[title]: MaxSize(${MAX_MILESTONE_TITLE})`);
  return t;
}

export async function createMilestone(db: Knex, repoId: number, input: MilestoneInput & { title: string }): Promise<MilestoneRow> {
  const closed = input.state === 'closed';
  const store = milestonesStore(db);
  const id = await store.insert({
    repo_id: repoId, name: checkTitle(input.title), content: input.description ?? '', is_closed: closed,
    deadline_unix: dueUnix(input.due_on) ?? null, closed_unix: closed ? nowUnix() : null,
  });
  return (await store.byId(repoId, id))!;
}

export async function editMilestone(db: Knex, repoId: number, idOrName: string, input: MilestoneInput): Promise<MilestoneRow> {
  const milestone = await findMilestone(db, repoId, idOrName);
  const fields: Parameters<ReturnType<typeof milestonesStore>['update']>[1] = {};
  if (input.title !== undefined) fields.name = checkTitle(input.title);
  if (input.description !== undefined) fields.content = input.description;
  // Gitea sets the deadline from every edit: one without due_on (a Go client's null) clears it.
  fields.deadline_unix = dueUnix(input.due_on) ?? null;
  if (input.state !== undefined && (input.state === 'closed') !== milestone.is_closed) {
    fields.is_closed = input.state === 'closed';
    fields.closed_unix = fields.is_closed ? nowUnix() : null;
  }
  await milestonesStore(db).update(milestone.id, fields);
  return (await milestonesStore(db).byId(repoId, milestone.id))!;
}

export async function deleteMilestone(db: Knex, repoId: number, idOrName: string): Promise<void> {
  const milestone = await findMilestone(db, repoId, idOrName);
  await milestonesStore(db).remove(milestone.id);
}

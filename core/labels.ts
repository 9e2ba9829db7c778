// Label rules: Gitea accepts colours with or without '#', stores them with it, answers without it.
import type { Knex } from 'knex';
import { NotFoundError, UnprocessableError } from './errors.js';
import { labelsStore, type LabelOwner, type LabelRow } from '../db/labels.js';

export const MAX_LABEL_NAME = 255;
export const MAX_LABEL_DESCRIPTION = 255;

/** `#rrggbb` from `rrggbb` or `#rrggbb` (also the short `#rgb`), or null when it is not a colour. */
export function normalizeColor(input: string): string | null {
  const c = input.trim().replace(/^#/, '');
  if (/^[0-9a-fA-F]{6}$/.test(c)) return `#${c.toLowerCase()}`;
  if (/^[0-9a-fA-F]{3}$/.test(c)) return `#${[...c.toLowerCase()].map((d) => d + d).join('')}`;
  return null;
}

export interface LabelInput {
  name?: string;
  color?: string;
  description?: string;
  exclusive?: boolean;
  is_archived?: boolean;
}

function checkedFields(input: LabelInput): Partial<Pick<LabelRow, 'name' | 'color' | 'description' | 'exclusive' | 'is_archived'>> {
  const out: Partial<Pick<LabelRow, 'name' | 'color' | 'description' | 'exclusive' | 'is_archived'>> = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (!name) throw new UnprocessableError('[name]: Required');
    if (name.length > MAX_LABEL_NAME) throw new UnprocessableError(`[name]: MaxSize(${MAX_LABEL_NAME})`);
    out.name = name;
  }
  if (input.color !== undefined) {
    const color = normalizeColor(input.color);
    if (!color) throw new UnprocessableError(`invalid color: ${JSON.stringify(input.color.slice(0, 20))}`);
    out.color = color;
  }
  if (input.description !== undefined) out.description = input.description;
  if (input.exclusive !== undefined) out.exclusive = input.exclusive;
  if (input.is_archived !== undefined) out.is_archived = input.is_archived;
  return out;
}

export async function createLabel(db: Knex, owner: LabelOwner, input: LabelInput & { name: string; color: string }): Promise<LabelRow> {
  const fields = checkedFields(input);
  const store = labelsStore(db);
  const id = await store.insert(owner, {
    name: fields.name!, color: fields.color!, description: fields.description ?? '',
    exclusive: fields.exclusive ?? false, is_archived: fields.is_archived ?? false,
  });
  return (await store.byId(owner, id))!;
}

export async function getLabel(db: Knex, owner: LabelOwner, id: number): Promise<LabelRow> {
  const label = await labelsStore(db).byId(owner, id);
  if (!label) throw new NotFoundError('label does not exist');
  return label;
}

export async function editLabel(db: Knex, owner: LabelOwner, id: number, input: LabelInput): Promise<LabelRow> {
  await getLabel(db, owner, id);
  await labelsStore(db).update(id, checkedFields(input));
  return getLabel(db, owner, id);
}

/** Deleting a label that does not exist (or is another owner's) changes nothing and succeeds, as in Gitea. */
export async function deleteLabel(db: Knex, owner: LabelOwner, id: number): Promise<void> {
  if (await labelsStore(db).byId(owner, id)) await labelsStore(db).remove(id);
}

/**
 * Resolves label ids given for an issue of a repository: its own labels and its organization's.
 * Unknown ids are refused (Gitea drops them silently, which hides typos).
 */
export async function labelsForIssue(db: Knex, repoId: number, orgId: number | null, ids: number[]): Promise<LabelRow[]> {
  if (ids.length === 0) return [];
  const usable = new Map((await labelsStore(db).usableIn(repoId, orgId)).map((l) => [l.id, l]));
  const missing = ids.filter((id) => !usable.has(id));
  if (missing.length) throw new UnprocessableError(`label does not exist [id: ${missing[0]}]`);
  return [...new Set(ids)].map((id) => usable.get(id)!);
}

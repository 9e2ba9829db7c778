// A user's own settings (routers/api/v1/user/settings.go, services/user/update.go UpdateUser):
// read them, and change the fields given. An empty string is a value here: it clears the field.
import type { Knex } from 'knex';
import { isValidWebsite } from './account-fields.js';
import { UnprocessableError } from './errors.js';
import { usersStore, type UserRow } from '../db/users.js';

export interface UserSettings {
  full_name: string;
  website: string;
  description: string;
  location: string;
  language: string;
  theme: string;
  diff_view_style: string;
  hide_email: boolean;
  hide_activity: boolean;
}

export type UserSettingsChange = Partial<UserSettings>;

export function userSettingsOf(user: UserRow): UserSettings {
  return {
    full_name: user.full_name,
    website: user.website,
    description: user.description,
    location: user.location,
    language: user.language,
    theme: user.theme,
    diff_view_style: user.diff_view_style,
    hide_email: user.keep_email_private,
    hide_activity: user.keep_activity_private,
  };
}

// Gitea's binding limits (UserSettingsOptions), with its messages.
const MAX_SIZES: Array<[keyof UserSettingsChange, string, number]> = [
  ['full_name', 'FullName', 100], ['website', 'Website', 255], ['description', 'Description', 255], ['location', 'Location', 50],
];

export async function updateUserSettings(db: Knex, user: UserRow, change: UserSettingsChange): Promise<UserRow> {
  for (const [field, goName, max] of MAX_SIZES) {
    const value = change[field];
    if (typeof value === 'string' && [...value].length > max) throw new UnprocessableError(`[${goName}]: MaxSize`);
  }
  if (change.website !== undefined && !isValidWebsite(change.website)) throw new UnprocessableError('[Website]: Url');
  const fields: Partial<UserRow> = {};
  for (const key of ['full_name', 'website', 'description', 'location', 'language', 'theme', 'diff_view_style'] as const) {
    if (change[key] !== undefined) fields[key] = change[key];
  }
  if (change.hide_email !== undefined) fields.keep_email_private = change.hide_email;
  if (change.hide_activity !== undefined) fields.keep_activity_private = change.hide_activity;
  if (Object.keys(fields).length > 0) await usersStore(db).update(user.id, fields);
  return (await usersStore(db).byId(user.id))!;
}

// Creating and editing hooks with Gitea's checks and messages (routers/api/v1/utils/hook.go).
// Secrets (config.secret, authorization_header) are sealed at rest and never shown back.
import type { Knex } from 'knex';
import { openSecret, sealSecret } from '../auth/secret-box.js';
import { NotFoundError, UnprocessableError } from '../errors.js';
import { hooksStore, type HookFields, type HookRow, type HookScope } from '../../db/hooks.js';
import { nowUnix } from '../../db/time.js';
import { compileGlob, GlobError } from './branch-filter.js';
import { chooseEvents } from './events.js';

/**
 * The types delivered here: Gitea's own two and Forgejo's name for the same payload. Gitea also
 * accepts chat services (slack, discord, msteams...) whose messages this service does not build:
 * those are refused with Gitea's words for an unknown type rather than stored and never delivered.
 */
export const HOOK_TYPES = ['gitea', 'gogs', 'forgejo'] as const;

export interface HookInput {
  config?: Record<string, string>;
  events?: string[];
  branch_filter?: string;
  authorization_header?: string;
  active?: boolean;
  name?: string;
}

export interface NewHookInput extends HookInput {
  type: string;
  config: Record<string, string>;
}

/** Gitea's validation.IsValidURL: an absolute http or https URL. */
export function isValidHookUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

function checkBranchFilter(filter: string | undefined): void {
  if (!filter) return;
  try {
    compileGlob(filter);
  } catch (err) {
    if (err instanceof GlobError) throw new UnprocessableError(`[BranchFilter]: ${err.message}`);
    throw err;
  }
}

function checkName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if ([...name].length > 255) throw new UnprocessableError('[Name]: MaxSize(255)');
  return name.trim();
}

const seal = (value: string, key: Buffer) => (value ? sealSecret(value, key) : '');

/** What the API shows of an Authorization header: its scheme, never its credentials. */
export function maskedAuthorization(sealed: string, key: Buffer): string {
  if (!sealed) return '';
  const header = openSecret(sealed, key) ?? '';
  const space = header.indexOf(' ');
  return space > 0 ? `${header.slice(0, space)} ******` : '******';
}

export async function createHook(db: Knex, scope: HookScope, input: NewHookInput, key: Buffer): Promise<HookRow> {
  checkBranchFilter(input.branch_filter);
  const name = checkName(input.name) ?? '';
  const type = input.type.trim();
  if (!(HOOK_TYPES as readonly string[]).includes(type)) throw new UnprocessableError(`Invalid hook type: ${input.type}`);
  for (const option of ['url', 'content_type']) {
    if (!Object.hasOwn(input.config, option)) throw new UnprocessableError(`Missing config option: ${option}`);
  }
  const contentType = input.config.content_type;
  if (contentType !== 'json' && contentType !== 'form') throw new UnprocessableError('Invalid content type');
  if (!isValidHookUrl(input.config.url!)) throw new UnprocessableError('Invalid url');
  const system = input.config.is_system_webhook;
  // Gitea reads the flag with strconv.ParseBool; system hooks do not exist here, so it is read and ignored.
  if (system && !/^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/.test(system)) throw new UnprocessableError('Invalid is_system_webhook value');
  const now = nowUnix();
  const fields: HookFields = {
    repo_id: scope.repoId ?? null, owner_id: scope.repoId === undefined ? scope.ownerId ?? null : null, name, type,
    url: input.config.url!, content_type: contentType, secret_sealed: seal(input.config.secret ?? '', key),
    authorization_sealed: seal(input.authorization_header ?? '', key), events: chooseEvents(input.events),
    branch_filter: input.branch_filter ?? '', is_active: input.active ?? false, created_unix: now, updated_unix: now,
  };
  const store = hooksStore(db);
  return (await store.byId(await store.insert(fields)))!;
}

export async function loadHook(db: Knex, scope: HookScope, id: number): Promise<HookRow> {
  const hook = await hooksStore(db).inScope(scope, id);
  if (!hook) throw new NotFoundError();
  return hook;
}

/**
 * Gitea's editHook, except that what the request leaves out is kept: Gitea resets `events` to push
 * and clears the branch filter and Authorization header of an edit that does not name them.
 * `config.secret` may be changed here (Gitea's API cannot); an Authorization header sent back as the
 * API shows it (masked) keeps the stored one.
 */
export async function editHook(db: Knex, hook: HookRow, input: HookInput, key: Buffer): Promise<HookRow> {
  checkBranchFilter(input.branch_filter);
  const name = checkName(input.name);
  const fields: Partial<HookFields> = {};
  const config = input.config ?? {};
  if (config.url !== undefined) {
    if (!isValidHookUrl(config.url)) throw new UnprocessableError('Invalid url');
    fields.url = config.url;
  }
  if (config.content_type !== undefined) {
    if (config.content_type !== 'json' && config.content_type !== 'form') throw new UnprocessableError('Invalid content type');
    fields.content_type = config.content_type;
  }
  if (config.secret !== undefined) fields.secret_sealed = seal(config.secret, key);
  if (input.events !== undefined) fields.events = chooseEvents(input.events);
  if (input.branch_filter !== undefined) fields.branch_filter = input.branch_filter;
  if (input.authorization_header !== undefined && input.authorization_header !== maskedAuthorization(hook.authorization_sealed, key)) {
    fields.authorization_sealed = seal(input.authorization_header, key);
  }
  if (input.active !== undefined) fields.is_active = input.active;
  if (name !== undefined) fields.name = name;
  fields.updated_unix = nowUnix();
  const store = hooksStore(db);
  await store.update(hook.id, fields);
  return (await store.byId(hook.id))!;
}

export async function deleteHook(db: Knex, hook: HookRow): Promise<void> {
  await db.transaction((trx) => hooksStore(trx).remove(hook.id, trx));
}

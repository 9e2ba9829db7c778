// Tag protection (Gitea's models/git/protected_tag.go and routers/api/v1/repo/tag.go): rules whose
// name pattern is a glob, or a regular expression between slashes, and who may create or delete
// the tags they cover. Enforced on the tag API and on git push.
//
// For other modules: `tagChangeAllowed(db, repoId, tagName, doer)` (or `tagRules` once, then
// `tagChangeAllowedBy` per tag) and the `TAG_PROTECTED_*` messages.
import type { Knex } from 'knex';
import { RE2JS } from 're2js';
import { globToRegExp } from './branch-protection.js';
import { BadRequestError, ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import type { RepoContext } from './permissions.js';
import { repoGrantees } from './repo-people.js';
import { protectedTagsStore, type ProtectedTagFields, type ProtectedTagRow } from '../db/protected-tags.js';
import { teamReposStore } from '../db/team-repos.js';
import { USER_TYPE, type UserRow } from '../db/users.js';

/** Gitea's answers when the tag API meets a protected tag (422). */
export const TAG_PROTECTED_CREATE = 'user not allowed to create protected tag';
export const TAG_PROTECTED_DELETE = 'user not allowed to delete protected tag';

type TagMatcher = (name: string) => boolean;

const compiled = new Map<string, TagMatcher | null>();
const MAX_COMPILED = 1_000;

/**
 * The matcher of a pattern, or null when it does not compile. Both kinds run on RE2 (linear time,
 * Go's regular expression syntax), so a hostile pattern cannot stall the server on a long tag name.
 */
export function compileTagPattern(pattern: string): TagMatcher | null {
  let matcher = compiled.get(pattern);
  if (matcher === undefined) {
    matcher = compileUncached(pattern);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, matcher);
  }
  return matcher;
}

function compileUncached(pattern: string): TagMatcher | null {
  try {
    if (pattern.length >= 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
      const regex = RE2JS.compile(pattern.slice(1, -1));
      return (name) => regex.matcher(name).find();
    }
    // A glob without separators, as Gitea compiles tag patterns: '*' crosses '/'.
    const glob = globToRegExp(pattern, null);
    if (!glob) return null;
    const regex = RE2JS.compile(`(?s)${glob.source}`);
    return (name) => regex.matches(name);
  } catch {
    return null;
  }
}

async function isInAnyTeam(db: Knex, userId: number, teamIds: number[]): Promise<boolean> {
  if (teamIds.length === 0) return false;
  return Boolean(await db('team_members').whereIn('team_id', teamIds).andWhere('user_id', userId).first('user_id'));
}

/** A repository's rules, for checking many tags at once (a push) with tagChangeAllowedBy. */
export function tagRules(db: Knex, repoId: number): Promise<ProtectedTagRow[]> {
  return protectedTagsStore(db).list(repoId);
}

/**
 * Whether `doer` may create, move or delete the tag `tagName` (Gitea's IsUserAllowedToControlTag):
 * yes when no rule covers it, or when one covering rule lists the doer or one of the doer's teams.
 * Nobody is exempt, not even the owner or a site administrator. A stored pattern that no longer
 * compiles covers every tag, so a broken rule refuses rather than lets through.
 */
export async function tagChangeAllowedBy(db: Knex, rules: ProtectedTagRow[], tagName: string, doer: UserRow | null): Promise<boolean> {
  let allowed = true;
  for (const rule of rules) {
    const matches = compileTagPattern(rule.name_pattern) ?? (() => true);
    if (!matches(tagName)) continue;
    allowed = doer !== null && (rule.allowlist_user_ids.includes(doer.id) || (await isInAnyTeam(db, doer.id, rule.allowlist_team_ids)));
    if (allowed) break;
  }
  return allowed;
}

export async function tagChangeAllowed(db: Knex, repoId: number, tagName: string, doer: UserRow | null): Promise<boolean> {
  return tagChangeAllowedBy(db, await tagRules(db, repoId), tagName, doer);
}

/** User ids by name, any kind of account; 422 names the first unknown one, as Gitea does. */
async function userIdsOf(db: Knex, names: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const name of names) {
    const row = await db('users').where({ lower_name: name.toLowerCase() }).first('id');
    if (!row) throw new UnprocessableError(`user does not exist [uid: 0, name: ${name}]`);
    ids.push(Number(row.id));
  }
  return ids;
}

/** Team ids of the repository's organization by name; a user's repository has no teams (the names are ignored). */
async function teamIdsOf(db: Knex, ctx: RepoContext, names: string[]): Promise<number[]> {
  if (ctx.owner.type !== USER_TYPE.organization) return [];
  const ids: number[] = [];
  for (const name of names) {
    const row = await db('teams').where({ org_id: ctx.owner.id, lower_name: name.toLowerCase() }).first('id');
    if (!row) throw new UnprocessableError(`team does not exist [org_id ${ctx.owner.id}, team_id 0, name: ${name}]`);
    ids.push(Number(row.id));
  }
  return ids;
}

function assertCompiles(pattern: string): void {
  // Gitea stores any pattern and then fails every tag change with a 500; refusing it here instead.
  if (!compileTagPattern(pattern)) throw new UnprocessableError(`name_pattern is not a valid glob or regular expression: ${pattern}`);
}

export interface TagProtectionInput {
  name_pattern?: string;
  whitelist_usernames?: string[];
  whitelist_teams?: string[];
}

export async function createTagProtection(db: Knex, ctx: RepoContext, input: TagProtectionInput): Promise<ProtectedTagRow> {
  const pattern = (input.name_pattern ?? '').trim();
  if (pattern === '') throw new BadRequestError('name_pattern are empty');
  const usernames = input.whitelist_usernames ?? [];
  const teams = input.whitelist_teams ?? [];
  if (usernames.length === 0 && teams.length === 0) throw new BadRequestError('both whitelist_usernames and whitelist_teams are empty');
  const store = protectedTagsStore(db);
  if (await store.byPattern(ctx.repo.id, pattern)) throw new ForbiddenError('Tag protection already exist');
  const fields: ProtectedTagFields = {
    name_pattern: pattern, allowlist_user_ids: await userIdsOf(db, usernames), allowlist_team_ids: await teamIdsOf(db, ctx, teams),
  };
  assertCompiles(pattern);
  return (await store.byId(ctx.repo.id, await store.insert(ctx.repo.id, fields)))!;
}

/** The repository's rules, oldest first. */
export function listTagProtections(db: Knex, ctx: RepoContext): Promise<ProtectedTagRow[]> {
  return protectedTagsStore(db).list(ctx.repo.id);
}

export async function findTagProtection(db: Knex, ctx: RepoContext, id: number): Promise<ProtectedTagRow> {
  const rule = await protectedTagsStore(db).byId(ctx.repo.id, id);
  if (!rule) throw new NotFoundError();
  return rule;
}

/** Changes what is given: a null or missing list keeps the list, an empty one clears it (Gitea's edit). */
export async function editTagProtection(db: Knex, ctx: RepoContext, id: number, input: TagProtectionInput): Promise<ProtectedTagRow> {
  const rule = await findTagProtection(db, ctx, id);
  const fields: ProtectedTagFields = { name_pattern: rule.name_pattern, allowlist_user_ids: rule.allowlist_user_ids, allowlist_team_ids: rule.allowlist_team_ids };
  if (input.name_pattern !== undefined) fields.name_pattern = input.name_pattern;
  if (input.whitelist_teams !== undefined) fields.allowlist_team_ids = await teamIdsOf(db, ctx, input.whitelist_teams);
  if (input.whitelist_usernames !== undefined) fields.allowlist_user_ids = await userIdsOf(db, input.whitelist_usernames);
  assertCompiles(fields.name_pattern);
  await protectedTagsStore(db).update(rule.id, fields);
  return findTagProtection(db, ctx, id);
}

export async function deleteTagProtection(db: Knex, ctx: RepoContext, id: number): Promise<void> {
  const rule = await findTagProtection(db, ctx, id);
  await protectedTagsStore(db).remove(rule.id);
}

/**
 * The allow-lists as Gitea shows them: the names of listed users who hold a grant on the
 * repository, and of listed teams that reach it, each by name. Others stay stored but unshown.
 */
export async function allowListNames(db: Knex, ctx: RepoContext, rule: ProtectedTagRow): Promise<{ users: string[]; teams: string[] }> {
  const users = (await repoGrantees(db, ctx)).filter((u) => rule.allowlist_user_ids.includes(u.id)).map((u) => u.name);
  let teams: string[] = [];
  if (ctx.owner.type === USER_TYPE.organization && rule.allowlist_team_ids.length > 0) {
    const reaching = await teamReposStore(db).teamsOfRepo(ctx.owner.id, ctx.repo.id);
    teams = reaching.filter((t) => rule.allowlist_team_ids.includes(t.id)).sort((a, b) => (a.lower_name < b.lower_name ? -1 : a.lower_name > b.lower_name ? 1 : 0)).map((t) => t.name);
  }
  return { users, teams };
}

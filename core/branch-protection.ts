// Branch protection: which rule governs a branch (exact names first, then glob rules by priority),
// who may push, force-push and merge, and which status contexts a rule requires.
//
// For other modules: `protectionFor(db, repoId, branch)`, `canPush(db, ctx, branch, doer, { force })`,
// `canMerge(db, ctx, branch, doer)`, `statusContextMatches(pattern, context)`.
import type { Knex } from 'knex';
import { atLeast, type RepoContext } from './permissions.js';
import { protectedBranchesStore, type ProtectedBranchRow } from '../db/protected-branches.js';
import type { UserRow } from '../db/users.js';

/** The stored options of a rule: BranchProtection without rule_name, priority and the times. */
export interface BranchProtectionSettings {
  enable_push: boolean;
  enable_push_whitelist: boolean;
  push_whitelist_usernames: string[];
  push_whitelist_teams: string[];
  push_whitelist_deploy_keys: boolean;
  enable_force_push: boolean;
  enable_force_push_allowlist: boolean;
  force_push_allowlist_usernames: string[];
  force_push_allowlist_teams: string[];
  force_push_allowlist_deploy_keys: boolean;
  enable_merge_whitelist: boolean;
  merge_whitelist_usernames: string[];
  merge_whitelist_teams: string[];
  enable_status_check: boolean;
  status_check_contexts: string[];
  required_approvals: number;
  enable_approvals_whitelist: boolean;
  approvals_whitelist_username: string[];
  approvals_whitelist_teams: string[];
  block_on_rejected_reviews: boolean;
  block_on_official_review_requests: boolean;
  block_on_outdated_branch: boolean;
  dismiss_stale_approvals: boolean;
  ignore_stale_approvals: boolean;
  require_signed_commits: boolean;
  protected_file_patterns: string;
  unprotected_file_patterns: string;
  block_admin_merge_override: boolean;
  enable_bypass_allowlist: boolean;
  bypass_allowlist_usernames: string[];
  bypass_allowlist_teams: string[];
  block_on_codeowner_reviews: boolean;
  /** The merge queue (core/merge-queue): pull requests land through queue/<repo id>/<branch>. */
  enable_merge_queue: boolean;
  merge_queue_merge_style: 'merge' | 'squash' | 'rebase' | 'rebase-merge';
  /** How many entries (batches) are built and checked at once. */
  merge_queue_depth: number;
  merge_queue_max_batch: number;
  /** How long the queue waits for a batch to fill before building a smaller one. */
  merge_queue_batch_wait_seconds: number;
  /** Required checks not finished this long after a build fail the entry. */
  merge_queue_check_timeout_seconds: number;
}

export const DEFAULT_PROTECTION: BranchProtectionSettings = {
  enable_push: false, enable_push_whitelist: false, push_whitelist_usernames: [], push_whitelist_teams: [],
  push_whitelist_deploy_keys: false, enable_force_push: false, enable_force_push_allowlist: false,
  force_push_allowlist_usernames: [], force_push_allowlist_teams: [], force_push_allowlist_deploy_keys: false,
  enable_merge_whitelist: false, merge_whitelist_usernames: [], merge_whitelist_teams: [], enable_status_check: false,
  status_check_contexts: [], required_approvals: 0, enable_approvals_whitelist: false, approvals_whitelist_username: [],
  approvals_whitelist_teams: [], block_on_rejected_reviews: false, block_on_official_review_requests: false,
  block_on_outdated_branch: false, dismiss_stale_approvals: false, ignore_stale_approvals: false,
  require_signed_commits: false, protected_file_patterns: '', unprotected_file_patterns: '',
  block_admin_merge_override: false, enable_bypass_allowlist: false, bypass_allowlist_usernames: [],
  bypass_allowlist_teams: [], block_on_codeowner_reviews: false,
  enable_merge_queue: false, merge_queue_merge_style: 'merge', merge_queue_depth: 1, merge_queue_max_batch: 1,
  merge_queue_batch_wait_seconds: 0, merge_queue_check_timeout_seconds: 3600,
};

export type ProtectionRule = ProtectedBranchRow<BranchProtectionSettings>;

const GLOB_CHARS = /[*?[\]{}]/;

export function isGlobRule(ruleName: string): boolean {
  return GLOB_CHARS.test(ruleName);
}

/**
 * A glob as Gitea compiles it (gobwas/glob): `*` and `?` stop at `separator` when one is given, `**`
 * crosses it, `[...]` is a class, `{a,b}` alternatives. Returns null for a malformed pattern.
 */
export function globToRegExp(pattern: string, separator: string | null): RegExp | null {
  const notSep = separator ? `[^${separator.replace(/[\\\]^-]/g, '\\$&')}]` : '.';
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') { out += '.*'; i++; } else out += `${notSep}*`;
    } else if (c === '?') out += notSep;
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1) return null;
      let body = pattern.slice(i + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (c === '{') { braces++; out += '(?:'; }
    else if (c === '}' && braces > 0) { braces--; out += ')'; }
    else if (c === ',' && braces > 0) out += '|';
    else if (c === '\\' && i + 1 < pattern.length) { out += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'); }
    else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  if (braces !== 0) return null;
  try {
    return new RegExp(`^${out}$`, 's');
  } catch {
    return null;
  }
}

/** Whether a rule (a branch name or a glob with '/' as separator) covers `branch`. */
export function ruleMatches(ruleName: string, branch: string): boolean {
  if (!isGlobRule(ruleName)) return ruleName.toLowerCase() === branch.toLowerCase();
  return globToRegExp(ruleName, '/')?.test(branch) ?? false;
}

/** Status contexts are matched as globs without a separator, as Gitea's required-contexts check does. */
export function statusContextMatches(pattern: string, context: string): boolean {
  return globToRegExp(pattern, null)?.test(context) ?? pattern === context;
}

/** The first rule that governs `branch`: an exact-name rule wins, then glob rules by priority. */
export function firstMatchingRule(rules: ProtectionRule[], branch: string): ProtectionRule | null {
  const exact = rules.find((r) => !isGlobRule(r.rule_name) && ruleMatches(r.rule_name, branch));
  if (exact) return exact;
  return rules.find((r) => isGlobRule(r.rule_name) && ruleMatches(r.rule_name, branch)) ?? null;
}

export async function protectionFor(db: Knex, repoId: number, branch: string): Promise<ProtectionRule | null> {
  return firstMatchingRule(await protectionRules(db, repoId), branch);
}

/** Every rule of a repository, defaults filled in: for callers that match many branches at once. */
export async function protectionRules(db: Knex, repoId: number): Promise<ProtectionRule[]> {
  return (await protectedBranchesStore<BranchProtectionSettings>(db).list(repoId)).map(withDefaults);
}

export function withDefaults(rule: ProtectionRule): ProtectionRule {
  return { ...rule, settings: { ...DEFAULT_PROTECTION, ...rule.settings } };
}

/** Whether the doer is named, or is in one of the named teams of the repository's organization. */
export async function inList(db: Knex, ctx: RepoContext, doer: UserRow, usernames: string[], teams: string[]): Promise<boolean> {
  if (usernames.some((u) => u.toLowerCase() === doer.lower_name)) return true;
  if (teams.length === 0) return false;
  const row = await db('teams as t').join('team_members as m', 'm.team_id', 't.id')
    .where({ 't.org_id': ctx.owner.id, 'm.user_id': doer.id })
    .whereIn('t.lower_name', teams.map((t) => t.toLowerCase()))
    .first('t.id');
  return Boolean(row);
}

/**
 * Whether `doer` may update `branch` by pushing (a force push when `force`). Without a rule,
 * write access is enough. With one, pushing must be enabled and, with a whitelist, the doer on it;
 * a force push must be enabled separately (and the doer on its allowlist when there is one).
 */
export async function canPush(db: Knex, ctx: RepoContext, branch: string, doer: UserRow | null, opts: { force?: boolean } = {}): Promise<boolean> {
  if (!doer || !atLeast(ctx.mode, 'write')) return false;
  return canPushUnder(db, ctx, doer, await protectionFor(db, ctx.repo.id, branch), opts);
}

/** canPush when the caller has already read the branch's protection rule. */
export async function canPushUnder(db: Knex, ctx: RepoContext, doer: UserRow | null, rule: ProtectionRule | null, opts: { force?: boolean } = {}): Promise<boolean> {
  if (!doer || !atLeast(ctx.mode, 'write')) return false;
  if (!rule) return true;
  const s = rule.settings;
  if (!s.enable_push) return false;
  if (s.enable_push_whitelist && !(await inList(db, ctx, doer, s.push_whitelist_usernames, s.push_whitelist_teams))) return false;
  if (opts.force) {
    if (!s.enable_force_push) return false;
    if (s.enable_force_push_allowlist && !(await inList(db, ctx, doer, s.force_push_allowlist_usernames, s.force_push_allowlist_teams))) return false;
  }
  return true;
}

/** Whether `doer` may merge into `branch` (the merge whitelist, or write access without one). */
export async function canMerge(db: Knex, ctx: RepoContext, branch: string, doer: UserRow | null): Promise<boolean> {
  if (!doer || !atLeast(ctx.mode, 'write')) return false;
  return canMergeUnder(db, ctx, doer, await protectionFor(db, ctx.repo.id, branch));
}

/** canMerge when the caller has already read the branch's protection rule. */
export async function canMergeUnder(db: Knex, ctx: RepoContext, doer: UserRow | null, rule: ProtectionRule | null): Promise<boolean> {
  if (!doer || !atLeast(ctx.mode, 'write')) return false;
  if (!rule || !rule.settings.enable_merge_whitelist) return true;
  return inList(db, ctx, doer, rule.settings.merge_whitelist_usernames, rule.settings.merge_whitelist_teams);
}

/**
 * Whether `path` matches a rule's protected or unprotected file patterns: ';'-separated globs,
 * matched lower-cased with '.' and '/' as separators (Gitea's getFilePatterns). Malformed globs are
 * skipped, as Gitea skips them.
 */
export function matchesFilePatterns(patterns: string, path: string): boolean {
  const target = path.trim().toLowerCase();
  return patterns.toLowerCase().split(';').map((p) => p.trim()).filter(Boolean)
    .some((p) => globToRegExp(p, './')?.test(target) ?? false);
}

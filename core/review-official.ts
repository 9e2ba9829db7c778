// Whose verdict counts (Gitea's IsOfficialReviewer, IsOfficialReviewerTeam): with no protection
// rule on the base branch, anyone who may write to the repository; with one that keeps an
// approvals whitelist, those it names (users or teams); otherwise writers again.
import type { Knex } from 'knex';
import { inList, protectionFor } from './branch-protection.js';
import { atLeast, repoAccessMode, type RepoContext } from './permissions.js';
import { reviewsStore } from '../db/reviews.js';
import type { IssueRow } from '../db/issues.js';
import type { TeamRow } from '../db/teams.js';
import type { UserRow } from '../db/users.js';

async function ruleOf(db: Knex, ctx: RepoContext, issue: IssueRow) {
  const pull = await reviewsStore(db).pullOfIssue(issue.id);
  return pull ? protectionFor(db, ctx.repo.id, pull.base_branch) : null;
}

export async function isOfficialReviewer(db: Knex, ctx: RepoContext, issue: IssueRow, user: UserRow): Promise<boolean> {
  const rule = await ruleOf(db, ctx, issue);
  if (rule?.settings.enable_approvals_whitelist) {
    return inList(db, ctx, user, rule.settings.approvals_whitelist_username, rule.settings.approvals_whitelist_teams);
  }
  return atLeast(await repoAccessMode(db, ctx.repo, ctx.owner, user), 'write');
}

/** A team's request is official only under a protection rule: whitelisted, or able to write code. */
export async function isOfficialReviewerTeam(db: Knex, ctx: RepoContext, issue: IssueRow, team: TeamRow): Promise<boolean> {
  const rule = await ruleOf(db, ctx, issue);
  if (!rule) return false;
  if (rule.settings.enable_approvals_whitelist) return rule.settings.approvals_whitelist_teams.some((t) => t.toLowerCase() === team.lower_name);
  const code = team.units['repo.code'] ?? team.permission;
  return ['write', 'admin', 'owner'].includes(code);
}

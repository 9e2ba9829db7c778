// Pull requests to Gitea's PullRequest JSON (modules/structs/pull.go, services/convert/pull.go).
// A list is converted with a fixed number of queries and git calls whatever its length: users,
// labels, milestones and repositories are loaded in batches, branch heads with one listing per
// repository.
import type { Knex } from 'knex';
import { repoAccessMode, type AccessMode, type RepoContext } from '../permissions.js';
import { repoDiskPath } from '../repositories.js';
import { isWorkInProgress } from '../pulls/wip.js';
import type { PullListItem } from '../pulls/list.js';
import { issuesStore } from '../../db/issues.js';
import { labelsStore, type LabelRow } from '../../db/labels.js';
import { milestonesStore, type MilestoneRow } from '../../db/milestones.js';
import { reposStore, type RepoRow } from '../../db/repos.js';
import { unixToIso } from '../../db/time.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { branchRef, isValidBranchName, listBranches, pullHeadRef, readRefs, type ShortStat } from '../../git/index.js';
import { isSettledCheck, type PullRow } from '../../db/pulls.js';
import { pullRange, pullStats } from '../pulls/compare.js';
import { toApiRepo, type ApiRepository } from './repo.js';
import { toApiUser } from './user.js';
import { toApiOrganization, toApiTeam } from './organization.js';
import { requestedReviewersOf, type RequestedReviewers } from '../review-requests.js';
import { teamsStore } from '../../db/teams.js';

export interface PullSerializerDeps {
  db: Knex;
  config: { APP_URL: string; APP_DATA_PATH: string };
  /** From core/pulls/wip.ts workInProgressPrefixes. */
  wipPrefixes: string[];
}

interface RepoFacts {
  view: { repo: RepoRow; owner: UserRow; mode: AccessMode };
  api: ApiRepository | null;
  branches: Map<string, string> | null;
}

const time = (unix: number | null | undefined): string | null => (unix ? unixToIso(unix) : null);

// Until the issue serializers exist these follow Gitea's Label and Milestone JSON here.
function labelJson(label: LabelRow, base: RepoContext, orgName: string, appUrl: string) {
  const url = label.org_id !== null
    ? `${appUrl}api/v1/orgs/${orgName}/labels/${label.id}`
    : `${appUrl}api/v1/repos/${base.owner.name}/${base.repo.name}/labels/${label.id}`;
  return {
    id: label.id, name: label.name, exclusive: label.exclusive, is_archived: label.is_archived,
    color: label.color.replace(/^#/, ''), description: label.description, url,
  };
}

function milestoneJson(m: MilestoneRow) {
  return {
    id: m.id, title: m.name, description: m.content, state: m.is_closed ? 'closed' : 'open',
    open_issues: m.num_issues - m.num_closed_issues, closed_issues: m.num_closed_issues,
    created_at: unixToIso(m.created_unix), updated_at: time(m.updated_unix), closed_at: time(m.closed_unix), due_on: time(m.deadline_unix),
  };
}

async function readBranchHeads(path: string): Promise<Map<string, string> | null> {
  try {
    return new Map((await listBranches(path)).map((b) => [b.name, b.sha]));
  } catch {
    return null;
  }
}

// Lists under load would spawn git once per request per repository; concurrent list requests share
// one listing for a second instead (single flight). Single-record views always read fresh heads.
const LIST_BRANCH_TTL_MS = 1000;
const branchCache = new Map<string, { at: number; heads: Promise<Map<string, string> | null> }>();

function branchHeads(path: string, fresh: boolean): Promise<Map<string, string> | null> {
  const now = Date.now();
  const hit = branchCache.get(path);
  if (!fresh && hit && now - hit.at < LIST_BRANCH_TTL_MS) return hit.heads;
  const heads = readBranchHeads(path);
  if (branchCache.size > 1000) branchCache.clear();
  branchCache.set(path, { at: now, heads });
  return heads;
}

/** Every repository the page refers to, serialized once, with its branch heads. */
async function loadRepos(deps: PullSerializerDeps, base: RepoContext, viewer: UserRow | null, items: PullListItem[], fresh: boolean): Promise<Map<number, RepoFacts>> {
  const out = new Map<number, RepoFacts>();
  const baseFacts: RepoFacts = { view: base, api: toApiRepo(base, viewer, deps.config.APP_URL), branches: null };
  out.set(base.repo.id, baseFacts);
  const otherIds = [...new Set(items.map((i) => i.pull.head_repo_id).filter((id): id is number => id !== null && id !== base.repo.id))];
  const repos = (await Promise.all(otherIds.map((id) => reposStore(deps.db).byId(id)))).filter((r): r is RepoRow => Boolean(r));
  const owners = await usersStore(deps.db).byIds(repos.map((r) => r.owner_id));
  await Promise.all(repos.map(async (repo) => {
    const owner = owners.get(repo.owner_id);
    if (!owner) return;
    const mode = await repoAccessMode(deps.db, repo, owner, viewer);
    const view = { repo, owner, mode };
    out.set(repo.id, { view, api: mode === 'none' ? null : toApiRepo(view, viewer, deps.config.APP_URL), branches: null });
  }));
  await Promise.all([...out.values()].map(async (f) => {
    const path = repoDiskPath(deps.config, f.view.owner.name, f.view.repo.name);
    f.branches = fresh ? await namedBranchHeads(path, branchesIn(f.view.repo.id, base.repo.id, items)) : await branchHeads(path, false);
  }));
  return out;
}

/** The branches of repository `repoId` that the records refer to (base branches of the base repository, head branches). */
function branchesIn(repoId: number, baseId: number, items: PullListItem[]): string[] {
  const names = items.flatMap(({ pull }) => [...(repoId === baseId ? [pull.base_branch] : []), ...(pull.head_repo_id === repoId ? [pull.head_branch] : [])]);
  return [...new Set(names)].filter(isValidBranchName);
}

/** A few branches read from their reference files: no git process for a single record. */
async function namedBranchHeads(path: string, names: string[]): Promise<Map<string, string> | null> {
  try {
    const refs = await readRefs(path, names.map(branchRef));
    return new Map(names.flatMap((n) => (refs.has(branchRef(n)) ? [[n, refs.get(branchRef(n))!] as const] : [])));
  } catch {
    return null;
  }
}

export interface ToApiPullOptions {
  /** The single-record view adds additions, deletions and changed_files (Gitea: never in lists). */
  stats?: Map<number, ShortStat>;
  /** Single-record views read branch heads fresh; lists may share a listing up to a second old. */
  fresh?: boolean;
}

export async function toApiPulls(
  deps: PullSerializerDeps,
  base: RepoContext,
  viewer: UserRow | null,
  items: PullListItem[],
  opts: ToApiPullOptions = {},
): Promise<Array<Record<string, unknown>>> {
  if (items.length === 0) return [];
  const { db, config } = deps;
  const appUrl = config.APP_URL;
  const issueIds = items.map((i) => i.issue.id);
  const issues = issuesStore(db);
  // Read with the rows already (a single record), or one query each for the page.
  const preloaded = items.every((i) => i.extras);
  const [labelIds, assigneeIds, repos, reviewers, queued] = await Promise.all([
    preloaded ? new Map(items.map((i) => [i.issue.id, i.extras!.labelIds])) : issues.labelIdsOf(issueIds),
    preloaded ? new Map(items.map((i) => [i.issue.id, i.extras!.assigneeIds])) : issues.assigneeIdsOf(issueIds),
    loadRepos(deps, base, viewer, items, opts.fresh ?? false),
    preloaded && items.every((i) => !i.extras!.hasReviews) ? new Map<number, RequestedReviewers>() : requestedReviewersOf(db, issueIds),
    preloaded ? queueEntriesFrom(items.flatMap((i) => (i.extras!.queueEntry ? [i.extras!.queueEntry] : []))) : queueEntriesOf(db, items.map((i) => i.pull.id)),
  ]);
  const allLabelIds = [...new Set([...labelIds.values()].flat())];
  const milestoneIds = [...new Set(items.map((i) => i.issue.milestone_id).filter((id): id is number => id !== null))];
  const userIds = items.flatMap((i) => [i.issue.poster_id ?? 0, i.pull.merger_id ?? 0, ...(assigneeIds.get(i.issue.id) ?? []), ...(reviewers.get(i.issue.id)?.userIds ?? [])]);
  const teamIds = [...new Set([...reviewers.values()].flatMap((r) => r.teamIds))];
  const [labels, milestones, users, teams] = await Promise.all([
    labelsStore(db).byIds(allLabelIds),
    milestonesStore(db).byIds(milestoneIds),
    usersPreloaded(db, items, userIds),
    Promise.all(teamIds.map((id) => teamsStore(db).byId(id))),
  ]);
  // Gitea shows reviewers as seen by nobody in particular, and teams with their organization.
  const teamById = new Map(teams.flatMap((t) => (t ? [[t.id, toApiTeam(t, toApiOrganization(base.owner, appUrl))] as const] : [])));
  const reviewerJson = (id: number) => (users.get(id) ? [toApiUser(users.get(id)!, null, appUrl)] : []);
  const labelById = new Map(labels.map((l) => [l.id, l]));
  const milestoneById = new Map(milestones.map((m) => [m.id, m]));
  const apiUser = (id: number | null | undefined) => {
    const u = id ? users.get(id) : undefined;
    return u ? toApiUser(u, viewer, appUrl) : null;
  };
  const repoHtml = `${appUrl}${base.owner.name}/${base.repo.name}`;
  const baseFacts = repos.get(base.repo.id)!;

  return items.map(({ issue, pull }) => {
    const headFacts = pull.head_repo_id !== null ? repos.get(pull.head_repo_id) : undefined;
    const headBranchSha = headFacts?.branches?.get(pull.head_branch);
    const headExists = Boolean(headBranchSha) && !pull.head_branch_deleted;
    const assignees = (assigneeIds.get(issue.id) ?? []).map((id) => apiUser(id)).filter((u) => u !== null);
    const milestone = issue.milestone_id !== null ? milestoneById.get(issue.milestone_id) : undefined;
    const html = `${repoHtml}/pulls/${issue.index}`;
    const stat = opts.stats?.get(pull.id);
    const wip = isWorkInProgress(issue.title, deps.wipPrefixes);
    const status = pull.status;
    const out: Record<string, unknown> = {
      id: pull.id,
      url: html,
      number: issue.index,
      user: apiUser(issue.poster_id),
      title: issue.title,
      body: issue.content,
      labels: (labelIds.get(issue.id) ?? []).map((id) => labelById.get(id)).filter((l): l is LabelRow => Boolean(l))
        .map((l) => labelJson(l, base, base.owner.name, appUrl)),
      milestone: milestone ? milestoneJson(milestone) : null,
      assignee: assignees[0] ?? null,
      assignees,
      requested_reviewers: (reviewers.get(issue.id)?.userIds ?? []).flatMap(reviewerJson),
      requested_reviewers_teams: (reviewers.get(issue.id)?.teamIds ?? []).flatMap((id) => (teamById.get(id) ? [teamById.get(id)!] : [])),
      state: issue.is_closed || pull.has_merged ? 'closed' : 'open',
      draft: wip,
      is_locked: issue.is_locked,
      comments: issue.num_comments,
      ...(stat ? { additions: stat.additions, deletions: stat.deletions, changed_files: stat.files } : {}),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      mergeable: status !== 'checking' && status !== 'conflict' && status !== 'error' && !wip,
      merged: pull.has_merged,
      merged_at: pull.has_merged ? time(pull.merged_unix) : null,
      merge_commit_sha: pull.has_merged ? pull.merge_commit_sha : null,
      merged_by: pull.has_merged ? apiUser(pull.merger_id) : null,
      allow_maintainer_edit: pull.allow_maintainer_edit,
      base: {
        label: pull.base_branch,
        ref: pull.base_branch,
        sha: baseFacts.branches?.get(pull.base_branch) ?? (pull.has_merged ? pull.merge_commit_sha ?? '' : ''),
        repo_id: base.repo.id,
        repo: baseFacts.api,
      },
      head: {
        label: pull.head_branch,
        ref: headExists ? pull.head_branch : `refs/pull/${issue.index}/head`,
        sha: headExists ? headBranchSha : pull.head_commit_id,
        repo_id: headFacts ? headFacts.view.repo.id : -1,
        repo: headFacts?.api ?? null,
      },
      merge_base: pull.merge_base,
      due_date: time(issue.deadline_unix),
      created_at: unixToIso(issue.created_unix),
      updated_at: unixToIso(issue.updated_unix),
      closed_at: issue.is_closed ? time(issue.closed_unix) : null,
      pin_order: 0,
      content_version: issue.content_version,
    };
    // Only a queued pull request says so (the field is this server's, not Gitea's).
    const entry = queued.get(pull.id);
    if (entry) out.merge_queue = entry;
    return out;
  });
}

/** The accounts of `ids`: those read with the rows (a single record's poster and merger), the rest in one query. */
async function usersPreloaded(db: Knex, items: PullListItem[], ids: number[]): Promise<Map<number, UserRow>> {
  const users = new Map(items.flatMap((i) => i.extras?.users ?? []).map((u) => [u.id, u] as const));
  const missing = ids.filter((id) => id > 0 && !users.has(id));
  if (missing.length > 0) for (const [id, u] of await usersStore(db).byIds(missing)) users.set(id, u);
  return users;
}

/** Where each queued pull request is in its merge queue (GET .../merge_queue/{branch} has the rest). */
async function queueEntriesOf(db: Knex, pullIds: number[]): Promise<Map<number, Record<string, unknown>>> {
  return queueEntriesFrom(await db('merge_queue_entries').whereIn('pull_id', pullIds).select('pull_id', 'base_branch', 'position', 'state', 'spec_commit', 'spec_branch'));
}

function queueEntriesFrom(rows: Array<Record<string, unknown>>): Map<number, Record<string, unknown>> {
  return new Map(rows.map((r) => [Number(r.pull_id), {
    branch: r.base_branch, position: Number(r.position), state: r.state, speculative_commit: r.spec_commit ?? null, speculative_branch: r.spec_branch ?? null,
  }]));
}

/** One pull request as the single-record endpoints (and webhook payloads) send it: with its diff stats. */
export async function toApiPull(deps: PullSerializerDeps, base: RepoContext, viewer: UserRow | null, item: PullListItem): Promise<Record<string, unknown>> {
  const stats = new Map<number, ShortStat>();
  // A pull request whose head ref or history is gone still has a record to show.
  const stat = await statsOf(repoDiskPath(deps.config, base.owner.name, base.repo.name), item.pull).catch(() => null);
  if (stat) stats.set(item.pull.id, stat);
  const [out] = await toApiPulls(deps, base, viewer, [item], { stats, fresh: true });
  return out!;
}

/**
 * The record's diff statistics: what the workflow stored when its check was of exactly the current
 * head and base commits (no git at all), else those of merge base..head computed once per pair of
 * commits; never those of another head.
 */
async function statsOf(path: string, pull: PullRow): Promise<ShortStat> {
  if (!pull.has_merged && pull.merge_base && isSettledCheck(pull.status) && isValidBranchName(pull.base_branch)) {
    const refs = await readRefs(path, [pullHeadRef(pull.index), branchRef(pull.base_branch)]);
    if (refs.get(pullHeadRef(pull.index)) === pull.checked_head && refs.get(branchRef(pull.base_branch)) === pull.checked_base) {
      return { files: pull.changed_files, additions: pull.additions, deletions: pull.deletions };
    }
  }
  return pullStats(path, await pullRange(path, pull));
}

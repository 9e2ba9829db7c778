// Issue, comment and review rows to Gitea's JSON (services/convert/issue.go, issue_comment.go,
// pull_review.go). Loads what the rows refer to (users, labels, milestones, pull request facts) in
// batches so a page of issues costs a fixed number of queries.
import type { Knex } from 'knex';
import { issuesStore, type CommentRow, type IssueRow } from '../../db/issues.js';
import { labelsStore } from '../../db/labels.js';
import { milestonesStore } from '../../db/milestones.js';
import { reposStore, type RepoRow } from '../../db/repos.js';
import { usersStore, USER_TYPE, type UserRow } from '../../db/users.js';
import { unixToIso } from '../../db/time.js';
import { toApiUser } from './user.js';
import { toApiLabel, toApiMilestone } from './label.js';

export interface IssueRenderContext {
  db: Knex;
  viewer: UserRow | null;
  appUrl: string;
}

interface PullFacts { merged: boolean; merged_unix: number | null }

async function pullFacts(db: Knex, issueIds: number[]): Promise<Map<number, PullFacts>> {
  if (issueIds.length === 0) return new Map();
  const rows = await db('pull_requests').whereIn('issue_id', issueIds).select('issue_id', 'has_merged', 'merged_unix');
  return new Map(rows.map((r: Record<string, unknown>) => [Number(r.issue_id), {
    merged: Boolean(r.has_merged), merged_unix: r.merged_unix === null ? null : Number(r.merged_unix),
  }]));
}

/** Issues may come from several repositories (dependencies across repositories). */
async function reposOf(db: Knex, issues: IssueRow[]): Promise<Map<number, { repo: RepoRow; owner: UserRow }>> {
  const out = new Map<number, { repo: RepoRow; owner: UserRow }>();
  for (const repoId of new Set(issues.map((i) => i.repo_id))) {
    const repo = await reposStore(db).byId(repoId);
    const owner = repo ? await usersStore(db).byId(repo.owner_id) : undefined;
    if (repo && owner) out.set(repoId, { repo, owner });
  }
  return out;
}

const WIP_PREFIXES = ['WIP:', '[WIP]'];

export async function renderIssues(rc: IssueRenderContext, issues: IssueRow[]) {
  const { db, viewer, appUrl } = rc;
  const ids = issues.map((i) => i.id);
  const store = issuesStore(db);
  const [labelIds, assigneeIds, repos, pulls] = await Promise.all([store.labelIdsOf(ids), store.assigneeIdsOf(ids), reposOf(db, issues), pullFacts(db, ids)]);
  const labels = new Map((await labelsStore(db).byIds([...new Set([...labelIds.values()].flat())])).map((l) => [l.id, l]));
  const milestones = new Map((await milestonesStore(db).byIds([...new Set(issues.flatMap((i) => (i.milestone_id ? [i.milestone_id] : [])))])).map((m) => [m.id, m]));
  const users = await usersStore(db).byIds([...issues.flatMap((i) => (i.poster_id ? [i.poster_id] : [])), ...[...assigneeIds.values()].flat()]);

  return issues.map((issue) => {
    const where = repos.get(issue.repo_id);
    const ownerName = where?.owner.name ?? '';
    const fullName = `${ownerName}/${where?.repo.name ?? ''}`;
    const kind = issue.is_pull ? 'pulls' : 'issues';
    const poster = issue.poster_id ? users.get(issue.poster_id) : undefined;
    const assignees = (assigneeIds.get(issue.id) ?? []).flatMap((id) => (users.get(id) ? [toApiUser(users.get(id)!, viewer, appUrl)] : []));
    const milestone = issue.milestone_id ? milestones.get(issue.milestone_id) : undefined;
    const pull = pulls.get(issue.id);
    const htmlUrl = `${appUrl}${fullName}/${kind}/${issue.index}`;
    return {
      id: issue.id,
      url: `${appUrl}api/v1/repos/${fullName}/issues/${issue.index}`,
      html_url: htmlUrl,
      number: issue.index,
      user: poster ? toApiUser(poster, viewer, appUrl) : ghostUser(appUrl),
      original_author: '',
      original_author_id: 0,
      title: issue.title,
      body: issue.content,
      ref: issue.ref ?? '',
      assets: [],
      // By name, as Gitea loads an issue's labels.
      labels: (labelIds.get(issue.id) ?? []).flatMap((id) => (labels.get(id) ? [labels.get(id)!] : []))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id))
        .map((l) => toApiLabel(l, l.org_id !== null ? { orgName: where?.owner.type === USER_TYPE.organization ? ownerName : '' } : { repoFullName: fullName }, appUrl)),
      milestone: milestone ? toApiMilestone(milestone) : null,
      assignee: assignees[0] ?? null,
      assignees: assignees.length ? assignees : null,
      state: issue.is_closed ? 'closed' : 'open',
      is_locked: issue.is_locked,
      comments: issue.num_comments,
      created_at: unixToIso(issue.created_unix)!,
      updated_at: unixToIso(issue.updated_unix)!,
      closed_at: issue.is_closed && issue.closed_unix ? unixToIso(issue.closed_unix) : null,
      due_date: issue.deadline_unix ? unixToIso(issue.deadline_unix) : null,
      time_estimate: 0,
      pull_request: issue.is_pull
        ? {
          merged: pull?.merged ?? false,
          merged_at: pull?.merged && pull.merged_unix ? unixToIso(pull.merged_unix) : null,
          draft: WIP_PREFIXES.some((p) => issue.title.toUpperCase().startsWith(p)),
          html_url: htmlUrl,
        }
        : null,
      repository: { id: where?.repo.id ?? issue.repo_id, name: where?.repo.name ?? '', owner: ownerName, full_name: fullName },
      pin_order: 0,
      content_version: issue.content_version,
    };
  });
}

export async function renderIssue(rc: IssueRenderContext, issue: IssueRow) {
  return (await renderIssues(rc, [issue]))[0]!;
}

/** Gitea shows deleted accounts as the "Ghost" user (id -1). */
export function ghostUser(appUrl: string) {
  return {
    id: -1, login: 'Ghost', login_name: '', source_id: 0, full_name: '', email: '', avatar_url: `${appUrl}assets/img/avatar_default.png`, html_url: `${appUrl}Ghost`,
    language: '', is_admin: false, last_login: '0001-01-01T00:00:00Z', created: '0001-01-01T00:00:00Z', restricted: false,
    active: false, prohibit_login: false, location: '', website: '', description: '', visibility: 'public',
    followers_count: 0, following_count: 0, starred_repos_count: 0, username: 'Ghost',
  };
}

export async function renderComments(rc: IssueRenderContext, repoFullName: string, issue: IssueRow, comments: CommentRow[]) {
  return renderCommentsOf(rc, repoFullName, new Map([[issue.id, issue]]), comments);
}

/** Comments of several issues of one repository (the repository-wide list). */
export async function renderRepoComments(rc: IssueRenderContext, repoFullName: string, comments: CommentRow[]) {
  const issues = await issuesStore(rc.db).byIds([...new Set(comments.map((c) => c.issue_id))]);
  return renderCommentsOf(rc, repoFullName, new Map(issues.map((i) => [i.id, i])), comments);
}

async function renderCommentsOf(rc: IssueRenderContext, repoFullName: string, issues: Map<number, IssueRow>, comments: CommentRow[]) {
  const users = await usersStore(rc.db).byIds(comments.flatMap((c) => (c.poster_id ? [c.poster_id] : [])));
  const repoHtml = `${rc.appUrl}${repoFullName}`;
  return comments.flatMap((c) => {
    const issue = issues.get(c.issue_id);
    if (!issue) return [];
    const poster = c.poster_id ? users.get(c.poster_id) : undefined;
    return [{
      id: c.id,
      html_url: `${repoHtml}/${issue.is_pull ? 'pulls' : 'issues'}/${issue.index}#issuecomment-${c.id}`,
      pull_request_url: issue.is_pull ? `${repoHtml}/pulls/${issue.index}` : '',
      issue_url: issue.is_pull ? '' : `${repoHtml}/issues/${issue.index}`,
      // As Gitea's ToAPIComment: the poster as seen by nobody in particular, never the real address.
      user: poster ? toApiUser(poster, null, rc.appUrl) : ghostUser(rc.appUrl),
      original_author: '',
      original_author_id: 0,
      body: c.content,
      assets: [],
      created_at: unixToIso(c.created_unix)!,
      updated_at: unixToIso(c.updated_unix)!,
    }];
  });
}

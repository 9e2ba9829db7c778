// Review and code comment rows to Gitea's JSON (services/convert/pull_review.go): a review's
// html_url points at its own timeline row, a code comment's at its line (under /files while its
// review is pending), and the hunk shown is the stored patch from its first hunk header on.
import type { Knex } from 'knex';
import { commentsStore, type CommentRow } from '../../db/comments.js';
import type { IssueRow } from '../../db/issues.js';
import { reviewsStore, type ReviewRow } from '../../db/reviews.js';
import { teamsStore } from '../../db/teams.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { unixToIso } from '../../db/time.js';
import { diffHunkOf } from '../../core/review-hunk.js';
import { toApiUser } from './user.js';
import { toApiTeam } from './organization.js';
import { ghostUser } from './issue.js';

export interface ReviewRenderContext {
  db: Knex;
  viewer: UserRow | null;
  appUrl: string;
}

const pullHtml = (rc: ReviewRenderContext, repoFullName: string, issue: IssueRow) => `${rc.appUrl}${repoFullName}/pulls/${issue.index}`;

export async function renderReviews(rc: ReviewRenderContext, repoFullName: string, issue: IssueRow, reviews: ReviewRow[]) {
  const ids = reviews.map((r) => r.id);
  const comments = commentsStore(rc.db);
  const teamIds = [...new Set(reviews.flatMap((r) => (r.reviewer_team_id ? [r.reviewer_team_id] : [])))];
  const [users, counts, rowIds, teamRows] = await Promise.all([
    usersStore(rc.db).byIds(reviews.flatMap((r) => (r.reviewer_id ? [r.reviewer_id] : []))),
    comments.countCodeComments(ids),
    comments.reviewRowIds(ids),
    Promise.all(teamIds.map((id) => teamsStore(rc.db).byId(id))),
  ]);
  // Gitea's ToTeam without its organization (ToTeams with loadOrgs false).
  const teams = new Map(teamRows.flatMap((t) => (t ? [[t.id, toApiTeam(t, null)] as const] : [])));
  const html = pullHtml(rc, repoFullName, issue);
  return reviews.map((r) => {
    const reviewer = r.reviewer_id ? users.get(r.reviewer_id) : undefined;
    const rowId = rowIds.get(r.id);
    return {
      id: r.id,
      // A team's request has no reviewer; a deleted account shows as Gitea's ghost.
      user: reviewer ? toApiUser(reviewer, rc.viewer, rc.appUrl) : r.reviewer_id ? ghostUser(rc.appUrl) : null,
      team: r.reviewer_team_id ? teams.get(r.reviewer_team_id) ?? null : null,
      state: r.type,
      body: r.content,
      commit_id: r.commit_id,
      stale: r.stale,
      official: r.official,
      dismissed: r.dismissed,
      comments_count: counts.get(r.id) ?? 0,
      submitted_at: unixToIso(r.created_unix)!,
      updated_at: unixToIso(r.updated_unix)!,
      html_url: rowId ? `${html}#issuecomment-${rowId}` : '',
      pull_request_url: html,
    };
  });
}

export async function renderReviewComments(rc: ReviewRenderContext, repoFullName: string, issue: IssueRow, rows: CommentRow[]) {
  const users = await usersStore(rc.db).byIds(rows.flatMap((c) => [c.poster_id ?? 0, c.resolve_doer_id ?? 0]).filter((id) => id > 0));
  const reviews = new Map((await reviewsStore(rc.db).byIds([...new Set(rows.flatMap((c) => (c.review_id ? [c.review_id] : [])))])).map((r) => [r.id, r]));
  const html = pullHtml(rc, repoFullName, issue);
  const user = (id: number | null) => {
    const u = id ? users.get(id) : undefined;
    return u ? toApiUser(u, rc.viewer, rc.appUrl) : id ? ghostUser(rc.appUrl) : null;
  };
  return rows.map((c) => {
    const pending = !c.review_id || reviews.get(c.review_id)?.type === 'PENDING';
    return {
      id: c.id,
      body: c.content,
      user: user(c.poster_id),
      resolver: user(c.resolve_doer_id),
      pull_request_review_id: c.review_id ?? 0,
      created_at: unixToIso(c.created_unix)!,
      updated_at: unixToIso(c.updated_unix)!,
      path: c.tree_path,
      commit_id: c.commit_sha,
      original_commit_id: '',
      diff_hunk: diffHunkOf(c.patch),
      position: c.line > 0 ? c.line : 0,
      original_position: c.line < 0 ? -c.line : 0,
      html_url: `${html}${pending ? '/files' : ''}#issuecomment-${c.id}`,
      pull_request_url: html,
    };
  });
}

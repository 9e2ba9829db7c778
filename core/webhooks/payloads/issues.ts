// issues, pull_request (with its review and review-request kinds), issue_comment and
// pull_request_comment payloads, field for field as Gitea's webhook notifier builds them.
import type { CommentRow } from '../../../db/comments.js';
import { commentsStore } from '../../../db/comments.js';
import { issuesStore, type IssueRow } from '../../../db/issues.js';
import { pullsStore } from '../../../db/pulls.js';
import type { UserRow } from '../../../db/users.js';
import { renderComments, renderIssue } from '../../wire/issue.js';
import { toApiPull } from '../../wire/pull.js';
import type { HookEventType } from '../events.js';
import type { EventDetail } from '../outbox.js';
import type { PayloadContext, RepoPermissionOf } from './context.js';

type IssueDetail = Extract<EventDetail, { kind: 'issue' }>;
type CommentDetail = Extract<EventDetail, { kind: 'comment' }>;
type ReviewDetail = Extract<EventDetail, { kind: 'review' }>;

/** Gitea's ChangesPayload: the label lists have no omitempty, so they travel as null. */
function changesPayload(changes: { title?: string; body?: string; ref?: string } | undefined) {
  if (!changes) return undefined;
  return {
    ...(changes.title !== undefined ? { title: { from: changes.title } } : {}),
    ...(changes.body !== undefined ? { body: { from: changes.body } } : {}),
    ...(changes.ref !== undefined ? { ref: { from: changes.ref } } : {}),
    added_labels: null,
    removed_labels: null,
  };
}

/**
 * Whose permission Gitea's notifier puts in `repository.permissions` for each kind of change: the
 * owner's for labels on pull requests and synchronisation, the poster's for their own issue's life,
 * the doer's for what the doer did to it (assignees, milestones, review requests, comments, merges).
 */
function permissionFor(event: HookEventType, action: string, d: { merged?: boolean }, poster: UserRow | null, doer: UserRow | null): RepoPermissionOf {
  if (event === 'pull_request_sync' || (event === 'pull_request_label' && action === 'label_updated')) return { mode: 'owner' };
  if (event === 'issue_label' || event === 'pull_request_label') return { user: poster };
  if (event === 'issues' || event === 'pull_request') return { user: d.merged ? doer : poster };
  if (event.startsWith('pull_request_review_') && event !== 'pull_request_review_request') return { user: poster };
  return { user: doer };
}

async function pullJson(pc: PayloadContext, issue: IssueRow, viewer: UserRow | null) {
  const pull = await pullsStore(pc.deps.db).byIssueId(issue.id);
  if (!pull) return null;
  return toApiPull(pc.pullDeps(), await pc.repoContextFor(viewer), viewer, { issue, pull });
}

async function loadIssue(pc: PayloadContext, issueId: number): Promise<IssueRow | null> {
  const issue = await issuesStore(pc.deps.db).byId(issueId);
  return issue && issue.repo_id === pc.view.repo.id ? issue : null;
}

/** An issues or pull_request event; null when the issue (or its pull request) is gone. */
export async function issuePayload(pc: PayloadContext, event: HookEventType, action: string, d: IssueDetail, doerId: number | null) {
  const issue = await loadIssue(pc, d.issueId);
  if (!issue) return null;
  const [doer, poster] = await Promise.all([pc.user(doerId), pc.user(issue.poster_id)]);
  const repository = await pc.repository(permissionFor(event, action, d, poster ?? null, doer ?? null));
  const sender = await pc.sender(doerId);
  const changes = changesPayload(d.changes);
  if (!event.startsWith('pull_request')) {
    return {
      action, number: issue.index, ...(changes ? { changes } : {}),
      issue: await renderIssue({ db: pc.deps.db, viewer: doer ?? null, appUrl: pc.appUrl }, issue),
      repository, sender, commit_id: d.commitId ?? '',
    };
  }
  const pull = await pullJson(pc, issue, doer ?? null);
  if (!pull) return null;
  return {
    action, number: issue.index, ...(changes ? { changes } : {}), pull_request: pull,
    requested_reviewer: d.reviewerId ? await pc.sender(d.reviewerId) : null,
    repository, sender, commit_id: d.commitId ?? '', review: null,
    // The merge queue's `dequeued` says why (GitHub's field; Gitea has no queue).
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
  };
}

/** A review submitted: Gitea's PullRequestReview notification, action `reviewed`. */
export async function reviewPayload(pc: PayloadContext, event: HookEventType, d: ReviewDetail) {
  const issue = await loadIssue(pc, d.issueId);
  if (!issue) return null;
  const [reviewer, poster] = await Promise.all([pc.user(d.reviewerId), pc.user(issue.poster_id)]);
  const pull = await pullJson(pc, issue, reviewer ?? null);
  if (!pull) return null;
  const reviewerJson = await pc.sender(d.reviewerId);
  return {
    action: 'reviewed', number: issue.index, pull_request: pull, requested_reviewer: reviewerJson,
    repository: await pc.repository(permissionFor(event, 'reviewed', {}, poster ?? null, reviewer ?? null)),
    sender: reviewerJson, commit_id: '', review: { type: event, content: d.content },
  };
}

function snapshotRow(d: CommentDetail): CommentRow | undefined {
  const s = d.deleted;
  if (!s) return undefined;
  return {
    id: s.id, issue_id: d.issueId, poster_id: s.poster_id, type: 'comment', content: s.content, created_unix: s.created_unix, updated_unix: s.updated_unix,
    review_id: null, tree_path: '', line: 0, patch: '', commit_sha: '', resolve_doer_id: null, invalidated: false, label_id: null,
    assignee_id: null, assignee_team_id: null, removed_assignee: false, content_version: 0,
  };
}

/** issue_comment / pull_request_comment: the comment as it is, or as it was for `deleted`. */
export async function commentPayload(pc: PayloadContext, event: HookEventType, action: string, d: CommentDetail, doerId: number | null) {
  const issue = await loadIssue(pc, d.issueId);
  const comment = snapshotRow(d) ?? await commentsStore(pc.deps.db).byId(d.commentId);
  if (!issue || !comment) return null;
  const doer = (await pc.user(doerId)) ?? null;
  const rc = { db: pc.deps.db, viewer: doer, appUrl: pc.appUrl };
  const [commentJson] = await renderComments(rc, `${pc.view.owner.name}/${pc.view.repo.name}`, issue, [comment]);
  const pull = issue.is_pull ? await pullJson(pc, issue, doer) : null;
  const changes = d.changes ? changesPayload({ body: d.changes.body }) : undefined;
  return {
    action, issue: await renderIssue(rc, issue), ...(pull ? { pull_request: pull } : {}), comment: commentJson,
    ...(changes ? { changes } : {}), repository: await pc.repository(permissionFor(event, action, {}, null, doer)),
    sender: await pc.sender(doerId), is_pull: issue.is_pull,
  };
}

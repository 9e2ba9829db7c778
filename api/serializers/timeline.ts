// Comment rows of every type to Gitea's TimelineComment JSON (services/convert/issue_comment.go
// ToTimelineComment). The service keeps some events under its own type names and keeps their
// details in `content`; Gitea keeps them in columns of their own (old_ref, new_ref...), so each
// kind says here which Gitea name it has and which fields its content fills.
import type { Knex } from 'knex';
import type { CommentRow, IssueRow } from '../../db/issues.js';
import { labelsStore, type LabelRow } from '../../db/labels.js';
import { teamsStore } from '../../db/teams.js';
import { usersStore } from '../../db/users.js';
import { unixToIso } from '../../db/time.js';
import { toApiUser } from './user.js';
import { ghostUser } from './issue.js';
import { toApiLabel } from './label.js';
import { toApiTeam } from './organization.js';

/** A label names where it lives: the repository's, or its organization's. */
function labelJson(label: LabelRow, repoFullName: string, ownerName: string, appUrl: string) {
  return toApiLabel(label, label.org_id !== null ? { orgName: ownerName } : { repoFullName }, appUrl);
}

interface EventFields {
  body?: string;
  old_ref?: string;
  new_ref?: string;
}

interface TimelineKind {
  /** The name Gitea gives the event (models/issues/comment.go). */
  giteaType: string;
  fields?: (content: string) => EventFields;
}

/** A base change keeps `{"old": ..., "new": ...}` (core/pulls/state.ts, delete-head-branch.ts). */
function baseChange(content: string): EventFields {
  try {
    const parsed = JSON.parse(content) as { old?: unknown; new?: unknown };
    return { old_ref: typeof parsed.old === 'string' ? parsed.old : '', new_ref: typeof parsed.new === 'string' ? parsed.new : '' };
  } catch {
    return {};
  }
}

// The body is the person's text only: Gitea's events carry no content, so the service's own notes
// in `content` (merge style, cancel reason, merge commit) stay out of it.
const KINDS: Record<string, TimelineKind> = {
  comment: { giteaType: 'comment', fields: (content) => ({ body: content }) },
  close: { giteaType: 'close' },
  reopen: { giteaType: 'reopen' },
  merge_pull: { giteaType: 'merge_pull' },
  delete_branch: { giteaType: 'delete_branch', fields: (branch) => ({ old_ref: branch }) },
  change_target_branch: { giteaType: 'change_target_branch', fields: baseChange },
  schedule_auto_merge: { giteaType: 'pull_scheduled_merge' },
  // The merge queue's own events (Gitea has no queue): the content says why.
  merge_queue_join: { giteaType: 'merge_queue_join', fields: (content) => ({ body: content }) },
  merge_queue_leave: { giteaType: 'merge_queue_leave', fields: (content) => ({ body: content }) },
  cancel_auto_merge: { giteaType: 'pull_cancel_scheduled_merge' },
  // Gitea's own kinds, kept with Gitea's content: '1' added / '' removed for a label.
  label: { giteaType: 'label', fields: (content) => ({ body: content }) },
  review: { giteaType: 'review', fields: (content) => ({ body: content }) },
  dismiss_review: { giteaType: 'dismiss_review', fields: (content) => ({ body: content }) },
  review_request: { giteaType: 'review_request' },
};

// Gitea's types whose content is a person's text (CommentType.HasContentSupport).
const TEXT_TYPES = new Set(['comment', 'code', 'review', 'dismiss_review']);

/** A type this file does not know yet is shown under its stored name, with its text only if Gitea's kind has text. */
function kindOf(type: string): TimelineKind {
  return KINDS[type] ?? { giteaType: type, fields: TEXT_TYPES.has(type) ? (content) => ({ body: content }) : undefined };
}

export interface TimelineRenderContext {
  db: Knex;
  appUrl: string;
}

export async function renderTimeline(rc: TimelineRenderContext, repoFullName: string, issue: IssueRow, rows: CommentRow[]) {
  const userIds = rows.flatMap((c) => [c.poster_id, c.assignee_id, c.resolve_doer_id]).filter((id): id is number => id !== null);
  const teamIds = [...new Set(rows.flatMap((c) => (c.assignee_team_id ? [c.assignee_team_id] : [])))];
  const [users, labels, teams] = await Promise.all([
    usersStore(rc.db).byIds(userIds),
    labelsStore(rc.db).byIds([...new Set(rows.flatMap((c) => (c.label_id ? [c.label_id] : [])))]),
    Promise.all(teamIds.map((id) => teamsStore(rc.db).byId(id))),
  ]);
  const labelById = new Map(labels.map((l) => [l.id, l]));
  const teamById = new Map(teams.flatMap((t) => (t ? [[t.id, toApiTeam(t, null)] as const] : [])));
  const [ownerName] = repoFullName.split('/');
  // Gitea converts these users as seen by nobody in particular.
  const userJson = (id: number | null) => (id && users.get(id) ? toApiUser(users.get(id)!, null, rc.appUrl) : null);
  const issueHtml = `${rc.appUrl}${repoFullName}/${issue.is_pull ? 'pulls' : 'issues'}/${issue.index}`;
  return rows.map((c) => {
    const kind = kindOf(c.type);
    const poster = c.poster_id ? users.get(c.poster_id) : undefined;
    const fields = kind.fields?.(c.content) ?? {};
    return {
      id: c.id,
      type: kind.giteaType,
      html_url: `${issueHtml}#issuecomment-${c.id}`,
      pull_request_url: issue.is_pull ? issueHtml : '',
      issue_url: issue.is_pull ? '' : issueHtml,
      // Gitea converts the poster as seen by nobody in particular: never the real e-mail.
      user: poster ? toApiUser(poster, null, rc.appUrl) : ghostUser(rc.appUrl),
      body: fields.body ?? '',
      created_at: unixToIso(c.created_unix)!,
      updated_at: unixToIso(c.updated_unix)!,
      old_project_id: 0,
      project_id: 0,
      old_milestone: null,
      milestone: null,
      tracked_time: null,
      old_title: '',
      new_title: '',
      old_ref: fields.old_ref ?? '',
      new_ref: fields.new_ref ?? '',
      ref_issue: null,
      ref_comment: null,
      ref_action: 'none',
      ref_commit_sha: '',
      review_id: c.review_id ?? 0,
      label: c.label_id && labelById.get(c.label_id) ? labelJson(labelById.get(c.label_id)!, repoFullName, ownerName ?? '', rc.appUrl) : null,
      assignee: userJson(c.assignee_id),
      assignee_team: c.assignee_team_id ? teamById.get(c.assignee_team_id) ?? null : null,
      removed_assignee: c.removed_assignee,
      resolve_doer: userJson(c.resolve_doer_id),
      dependent_issue: null,
    };
  });
}

// Wire schemas for labels, milestones, issues, comments, dependencies, reviews and commit statuses
// (Gitea's modules/structs/issue*.go, pull_review.go, status.go). Response objects list every field
// in Gitea's order; Fastify's serializer keeps that order and drops anything not listed.
import Type from 'typebox';
import { User } from './user.js';

/** A Go pointer field: JSON null when unset. */
const NullableTime = Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, 'x-nullable': true });
const NullableObject = <T extends object>(schema: T) => Type.Unsafe<unknown>({ ...schema, nullable: true, 'x-nullable': true });
/** Integers that fit in a JavaScript number and in a signed 64-bit column. */
export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const OwnerRepoParams = Type.Object({
  owner: Type.String({ maxLength: 255, description: 'owner of the repo' }),
  repo: Type.String({ maxLength: 255, description: 'name of the repo' }),
});
// Gitea parses path ids with ParseInt and lets the lookup answer: 0 and unknown numbers are 404.
export const IssueParams = Type.Object({ ...OwnerRepoParams.properties, index: Type.Integer({ description: 'index of the issue' }) });
export const OrgParams = Type.Object({ org: Type.String({ maxLength: 255, description: 'name of the organization' }) });

export const ApiError = Type.Object({ message: Type.String(), url: Type.String() }, { additionalProperties: true, description: 'APIError' });

export const Label = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  exclusive: Type.Boolean(),
  is_archived: Type.Boolean(),
  color: Type.String({ description: 'six hex digits, without #' }),
  description: Type.String(),
  url: Type.String(),
}, { title: 'Label' });

const Color = Type.String({ maxLength: 7, description: 'rrggbb or #rrggbb', examples: ['#00aabb'] });
export const CreateLabelOption = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  color: Color,
  description: Type.Optional(Type.String({ maxLength: 255 })),
  exclusive: Type.Optional(Type.Boolean()),
  is_archived: Type.Optional(Type.Boolean()),
}, { title: 'CreateLabelOption' });
export const EditLabelOption = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  color: Type.Optional(Color),
  description: Type.Optional(Type.String({ maxLength: 255 })),
  exclusive: Type.Optional(Type.Boolean()),
  is_archived: Type.Optional(Type.Boolean()),
}, { title: 'EditLabelOption' });

export const Milestone = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  description: Type.String(),
  state: Type.String(),
  open_issues: Type.Integer(),
  closed_issues: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: NullableTime,
  closed_at: NullableTime,
  due_on: NullableTime,
}, { title: 'Milestone' });

const State = Type.Union([Type.Literal('open'), Type.Literal('closed')]);
/** Gitea closes a milestone for `closed` and opens it for any other value. */
const MilestoneState = Type.String({ maxLength: 40, description: '`closed` closes it; any other value opens it' });
const DateTime = Type.String({ maxLength: 64, description: 'RFC 3339 date-time' });
export const CreateMilestoneOption = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.String({ maxLength: 65535 })),
  due_on: Type.Optional(Type.Union([DateTime, Type.Null()])),
  state: Type.Optional(MilestoneState),
}, { title: 'CreateMilestoneOption' });
export const EditMilestoneOption = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  description: Type.Optional(Type.String({ maxLength: 65535 })),
  due_on: Type.Optional(Type.Union([DateTime, Type.Null()])),
  state: Type.Optional(MilestoneState),
}, { title: 'EditMilestoneOption' });

const PullRequestMeta = Type.Object({
  merged: Type.Boolean(),
  merged_at: NullableTime,
  draft: Type.Boolean(),
  html_url: Type.String(),
}, { title: 'PullRequestMeta' });
const RepositoryMeta = Type.Object({ id: Type.Integer(), name: Type.String(), owner: Type.String(), full_name: Type.String() }, { title: 'RepositoryMeta' });

export const Issue = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  html_url: Type.String(),
  number: Type.Integer(),
  user: User,
  original_author: Type.String(),
  original_author_id: Type.Integer(),
  title: Type.String(),
  body: Type.String(),
  ref: Type.String(),
  assets: Type.Array(Type.Object({}, { additionalProperties: true })),
  labels: Type.Array(Label),
  milestone: NullableObject(Milestone),
  assignee: NullableObject(User),
  assignees: Type.Unsafe<unknown>({ type: 'array', items: User, nullable: true, 'x-nullable': true }),
  state: Type.String(),
  is_locked: Type.Boolean(),
  comments: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  closed_at: NullableTime,
  due_date: NullableTime,
  time_estimate: Type.Integer(),
  pull_request: NullableObject(PullRequestMeta),
  repository: RepositoryMeta,
  pin_order: Type.Integer(),
  content_version: Type.Integer({ description: 'send it back in an edit to refuse overwriting a body someone else changed' }),
}, { title: 'Issue' });

const UserNames = Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 });
const LabelIds = Type.Array(Id, { maxItems: 100, description: 'label ids (integers)' });
export const CreateIssueOption = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 255 }),
  body: Type.Optional(Type.String({ maxLength: 262144 })),
  ref: Type.Optional(Type.String({ maxLength: 255 })),
  assignee: Type.Optional(Type.String({ maxLength: 255, description: 'deprecated' })),
  assignees: Type.Optional(UserNames),
  due_date: Type.Optional(Type.Union([DateTime, Type.Null()])),
  milestone: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  labels: Type.Optional(LabelIds),
  closed: Type.Optional(Type.Boolean()),
}, { title: 'CreateIssueOption' });
export const EditIssueOption = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  body: Type.Optional(Type.String({ maxLength: 262144 })),
  ref: Type.Optional(Type.String({ maxLength: 255 })),
  assignee: Type.Optional(Type.String({ maxLength: 255 })),
  assignees: Type.Optional(UserNames),
  milestone: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()])),
  state: Type.Optional(Type.String({ maxLength: 40, description: '`open` or `closed`; anything else is 412' })),
  due_date: Type.Optional(Type.Union([DateTime, Type.Null()])),
  unset_due_date: Type.Optional(Type.Boolean()),
  content_version: Type.Optional(Type.Integer({ minimum: 0 })),
}, { title: 'EditIssueOption' });

export const Comment = Type.Object({
  id: Type.Integer(),
  html_url: Type.String(),
  pull_request_url: Type.String(),
  issue_url: Type.String(),
  user: NullableObject(User),
  original_author: Type.String(),
  original_author_id: Type.Integer(),
  body: Type.String(),
  assets: Type.Array(Type.Object({}, { additionalProperties: true })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'Comment' });
export const CreateIssueCommentOption = Type.Object({ body: Type.String({ maxLength: 65535 }) }, { title: 'CreateIssueCommentOption' });
export const EditIssueCommentOption = Type.Object({ body: Type.String({ maxLength: 65535 }) }, { title: 'EditIssueCommentOption' });

/** Gitea's `since`/`before` on comment lists: RFC 3339 bounds on when a comment was last updated. */
export const CommentRangeQuery = {
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'if provided, only comments updated since the specified time are returned.' })),
  before: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'if provided, only comments updated before the provided time are returned.' })),
};

// Records the service never keeps (tracked time, teams): always null, any object shape in Gitea.
const AlwaysNullObject = (name: string) => NullableObject(Type.Object({}, { additionalProperties: true, description: `${name} (not kept by this service: always null)` }));

/** Gitea's TimelineComment (modules/structs/issue_comment.go): a comment row of any type, in Gitea's field order. */
export const TimelineComment = Type.Object({
  id: Type.Integer(),
  type: Type.String({ description: "Gitea's comment type name: comment, close, reopen, merge_pull, delete_branch, change_target_branch, pull_scheduled_merge, pull_cancel_scheduled_merge..." }),
  html_url: Type.String(),
  pull_request_url: Type.String({ description: 'the pull request page; empty on an issue' }),
  issue_url: Type.String({ description: 'the issue page; empty on a pull request' }),
  user: NullableObject(User),
  body: Type.String({ description: 'the text of a comment; empty for events' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  old_project_id: Type.Integer(),
  project_id: Type.Integer(),
  old_milestone: NullableObject(Milestone),
  milestone: NullableObject(Milestone),
  tracked_time: AlwaysNullObject('TrackedTime'),
  old_title: Type.String(),
  new_title: Type.String(),
  old_ref: Type.String({ description: 'change_target_branch: the former base branch; delete_branch: the deleted branch' }),
  new_ref: Type.String({ description: 'change_target_branch: the new base branch' }),
  ref_issue: NullableObject(Issue),
  ref_comment: NullableObject(Comment),
  ref_action: Type.String(),
  ref_commit_sha: Type.String(),
  review_id: Type.Integer(),
  label: NullableObject(Label),
  assignee: NullableObject(User),
  assignee_team: AlwaysNullObject('Team'),
  removed_assignee: Type.Boolean(),
  resolve_doer: NullableObject(User),
  dependent_issue: NullableObject(Issue),
}, { title: 'TimelineComment' });

export const IssueMeta = Type.Object({
  index: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  owner: Type.Optional(Type.String({ maxLength: 255 })),
  repo: Type.Optional(Type.String({ maxLength: 255 })),
}, { title: 'IssueMeta', description: 'an issue in owner/repo (the path repository when omitted)' });

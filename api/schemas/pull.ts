// Wire schemas for pull requests (Gitea's modules/structs/pull.go, repo_commit.go): the record in
// Gitea's field order, the create and edit options, list queries, commits and changed files.
import Type from 'typebox';
import { Label, Milestone } from './issue.js';
import { Repository } from './repo.js';
import { Team, User } from './user.js';

const Nullable = <T extends object>(schema: T) => Type.Unsafe<unknown>({ ...schema, nullable: true, 'x-nullable': true });
const NullableTime = Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, 'x-nullable': true });
const DateTime = Type.String({ maxLength: 64, description: 'RFC 3339 date-time' });

export const PullParams = Type.Object({
  owner: Type.String({ maxLength: 255, description: 'owner of the repo' }),
  repo: Type.String({ maxLength: 255, description: 'name of the repo' }),
  index: Type.Integer({ description: 'index of the pull request' }),
});

const PRBranchInfo = Type.Object({
  label: Type.String(),
  ref: Type.String(),
  sha: Type.String(),
  repo_id: Type.Integer(),
  repo: Nullable(Repository),
}, { title: 'PRBranchInfo' });

export const PullRequest = Type.Object({
  id: Type.Integer(),
  url: Type.String({ description: 'the HTML URL, as Gitea sends it' }),
  number: Type.Integer(),
  user: Nullable(User),
  title: Type.String(),
  body: Type.String(),
  labels: Type.Array(Label),
  milestone: Nullable(Milestone),
  assignee: Nullable(User),
  assignees: Type.Array(User),
  requested_reviewers: Type.Array(User),
  requested_reviewers_teams: Type.Array(Team),
  state: Type.String(),
  draft: Type.Boolean(),
  is_locked: Type.Boolean(),
  comments: Type.Integer(),
  review_comments: Type.Optional(Type.Integer()),
  additions: Type.Optional(Type.Integer({ description: 'single-record responses only' })),
  deletions: Type.Optional(Type.Integer({ description: 'single-record responses only' })),
  changed_files: Type.Optional(Type.Integer({ description: 'single-record responses only' })),
  html_url: Type.String(),
  diff_url: Type.String(),
  patch_url: Type.String(),
  mergeable: Type.Boolean({ description: 'false while the mergeability check runs, on conflict or error, and for work-in-progress titles' }),
  merged: Type.Boolean(),
  merged_at: NullableTime,
  merge_commit_sha: Type.Unsafe<string | null>({ type: 'string', nullable: true, 'x-nullable': true }),
  merged_by: Nullable(User),
  allow_maintainer_edit: Type.Boolean(),
  base: PRBranchInfo,
  head: PRBranchInfo,
  merge_base: Type.String(),
  due_date: NullableTime,
  created_at: NullableTime,
  updated_at: NullableTime,
  closed_at: NullableTime,
  pin_order: Type.Integer(),
  content_version: Type.Integer({ description: 'the body version; send it back in an edit so a concurrent body change is refused' }),
  merge_queue: Type.Optional(Type.Object({
    branch: Type.String(), position: Type.Integer(), state: Type.String({ description: 'waiting, building, pending (checks), landing or failed' }),
    speculative_commit: Type.Unsafe<string | null>({ type: 'string', nullable: true }), speculative_branch: Type.Unsafe<string | null>({ type: 'string', nullable: true }),
  }, { description: 'present while the pull request is in a merge queue' })),
}, { title: 'PullRequest' });

const UserNames = Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 });
const LabelIds = Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { maxItems: 100 });

export const CreatePullRequestOption = Type.Object({
  head: Type.String({ minLength: 1, maxLength: 600, description: '`branch`, `owner:branch` or `owner/repo:branch`' }),
  base: Type.String({ minLength: 1, maxLength: 255 }),
  title: Type.String({ minLength: 1, maxLength: 255 }),
  body: Type.Optional(Type.String({ maxLength: 262144 })),
  assignee: Type.Optional(Type.String({ maxLength: 255 })),
  assignees: Type.Optional(UserNames),
  milestone: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  labels: Type.Optional(LabelIds),
  due_date: Type.Optional(Type.Union([DateTime, Type.Null()])),
  reviewers: Type.Optional(UserNames),
  team_reviewers: Type.Optional(UserNames),
  allow_maintainer_edit: Type.Optional(Type.Boolean()),
}, { title: 'CreatePullRequestOption' });

export const EditPullRequestOption = Type.Object({
  title: Type.Optional(Type.String({ maxLength: 255 })),
  body: Type.Optional(Type.Union([Type.String({ maxLength: 262144 }), Type.Null()])),
  base: Type.Optional(Type.String({ maxLength: 255 })),
  assignee: Type.Optional(Type.String({ maxLength: 255 })),
  assignees: Type.Optional(Type.Union([UserNames, Type.Null()])),
  milestone: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  labels: Type.Optional(Type.Union([LabelIds, Type.Null()])),
  state: Type.Optional(Type.Union([Type.String({ maxLength: 40, description: '`open` or `closed`; anything else is 412' }), Type.Null()])),
  due_date: Type.Optional(Type.Union([DateTime, Type.Null()])),
  unset_due_date: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  allow_maintainer_edit: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  content_version: Type.Optional(Type.Integer({
    minimum: 0,
    description: 'Optimistic locking of the body: the content_version you read. When the stored version differs (someone changed the body since), the edit is refused with 400 and nothing changes. Every body change increments it. Gitea answers 409 here on its latest main; the spec says 400.',
  })),
}, { title: 'EditPullRequestOption' });

export const PullListQuery = Type.Object({
  state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all'), Type.Literal('')], { description: 'open when absent or empty' })),
  sort: Type.Optional(Type.Union(['', 'oldest', 'recentupdate', 'leastupdate', 'mostcomment', 'leastcomment', 'priority'].map((s) => Type.Literal(s)), {
    description: 'newest first when absent or empty',
  })),
  milestone: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  labels: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), {
    maxItems: 50,
    description: 'label ids, repeated. A value that is not an integer is answered 422 with the value named (Gitea answers 500; we do not copy that).',
  })),
  poster: Type.Optional(Type.String({ maxLength: 255, description: 'user name of the poster' })),
  page: Type.Optional(Type.Integer({ description: 'page number of results to return (1-based)' })),
  limit: Type.Optional(Type.Integer({ description: 'page size of results' })),
});

export { Commit } from './code.js';

export const ChangedFile = Type.Object({
  filename: Type.String(),
  previous_filename: Type.Optional(Type.String()),
  status: Type.String(),
  additions: Type.Integer(),
  deletions: Type.Integer(),
  changes: Type.Integer(),
  html_url: Type.String(),
  contents_url: Type.String(),
  raw_url: Type.String(),
}, { title: 'ChangedFile' });

export { GoBool, goBool } from './code.js';

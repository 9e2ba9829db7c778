// Wire schemas for pull request reviews, their code comments and review requests (Gitea's
// modules/structs/pull_review.go).
import Type from 'typebox';
import { Team, User } from './user.js';

const Nullable = <T extends object>(schema: T) => Type.Unsafe<unknown>({ ...schema, nullable: true, 'x-nullable': true });
const ReviewEvent = Type.String({ maxLength: 40, description: 'APPROVED, REQUEST_CHANGES, COMMENT or PENDING; any other value makes a pending review, as in Gitea' });

export const PullReview = Type.Object({
  id: Type.Integer(),
  user: Nullable(User),
  team: Nullable(Team),
  state: Type.String({ description: 'APPROVED, PENDING, COMMENT, REQUEST_CHANGES or REQUEST_REVIEW' }),
  body: Type.String(),
  commit_id: Type.String(),
  stale: Type.Boolean(),
  official: Type.Boolean(),
  dismissed: Type.Boolean(),
  comments_count: Type.Integer(),
  submitted_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  html_url: Type.String(),
  pull_request_url: Type.String(),
}, { title: 'PullReview', description: 'PullReview represents a pull request review' });

export const PullReviewComment = Type.Object({
  id: Type.Integer(),
  body: Type.String(),
  user: Nullable(User),
  resolver: Nullable(User),
  pull_request_review_id: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  path: Type.String(),
  commit_id: Type.String(),
  original_commit_id: Type.String(),
  diff_hunk: Type.String(),
  position: Type.Integer({ description: 'the line on the new side, 0 for a comment on the old side' }),
  original_position: Type.Integer({ description: 'the line on the old side, 0 for a comment on the new side' }),
  html_url: Type.String(),
  pull_request_url: Type.String(),
}, { title: 'PullReviewComment', description: 'PullReviewComment represents a comment on a pull request review' });

export const CreatePullReviewComment = Type.Object({
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'the tree path' })),
  body: Type.Optional(Type.String({ maxLength: 65535 })),
  old_position: Type.Optional(Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: 'if comment to old file line or 0' })),
  new_position: Type.Optional(Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: 'if comment to new file line or 0' })),
}, { title: 'CreatePullReviewComment', description: 'CreatePullReviewComment represent a review comment for creation api' });

export const CreatePullReviewOptions = Type.Object({
  event: Type.Optional(ReviewEvent),
  body: Type.Optional(Type.String({ maxLength: 65535 })),
  commit_id: Type.Optional(Type.String({ maxLength: 64 })),
  comments: Type.Optional(Type.Array(CreatePullReviewComment, { maxItems: 500 })),
}, { title: 'CreatePullReviewOptions', description: 'CreatePullReviewOptions are options to create a pull request review' });

export const SubmitPullReviewOptions = Type.Object({
  event: Type.Optional(ReviewEvent),
  body: Type.Optional(Type.String({ maxLength: 65535 })),
}, { title: 'SubmitPullReviewOptions', description: 'SubmitPullReviewOptions are options to submit a pending pull request review' });

export const DismissPullReviewOptions = Type.Object({
  message: Type.Optional(Type.String({ maxLength: 65535 })),
  priors: Type.Optional(Type.Boolean()),
}, { title: 'DismissPullReviewOptions', description: 'DismissPullReviewOptions are options to dismiss a pull request review' });

export const PullReviewRequestOptions = Type.Object({
  reviewers: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
  team_reviewers: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
}, { title: 'PullReviewRequestOptions', description: 'PullReviewRequestOptions are options to add or remove pull request review requests' });

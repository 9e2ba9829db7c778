// Wire schemas for commit statuses (Gitea's modules/structs/status.go).
import Type from 'typebox';
import { User } from './user.js';
import { Repository } from './repo.js';

export const StatusStateValues = ['pending', 'success', 'error', 'failure', 'warning', 'skipped'] as const;
export const StatusState = Type.Union(StatusStateValues.map((s) => Type.Literal(s)));

export const CommitStatus = Type.Object({
  id: Type.Integer({ description: 'the per-commit index of this status, not a database id' }),
  status: Type.String({ description: 'the state (the request calls it `state`)' }),
  target_url: Type.String(),
  description: Type.String(),
  url: Type.String(),
  context: Type.String(),
  creator: Type.Unsafe<unknown>({ ...User, nullable: true, 'x-nullable': true }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'CommitStatus' });

export const CombinedStatus = Type.Object({
  state: Type.String(),
  sha: Type.String(),
  total_count: Type.Integer(),
  statuses: Type.Unsafe<unknown[] | null>({ type: 'array', items: CommitStatus, nullable: true, 'x-nullable': true, description: 'null when the commit has no status, as Gitea sends it' }),
  repository: Repository,
  commit_url: Type.String(),
  url: Type.String(),
}, { title: 'CombinedStatus' });

export const CreateStatusOption = Type.Object({
  state: StatusState,
  target_url: Type.Optional(Type.String({ maxLength: 2048 })),
  description: Type.Optional(Type.String({ maxLength: 1024 })),
  context: Type.Optional(Type.String({ maxLength: 255 })),
}, { title: 'CreateStatusOption' });

// Gitea ignores a `sort` or `state` it does not know (it lists everything, newest first).
export const StatusListQuery = Type.Object({
  sort: Type.Optional(Type.String({ maxLength: 64, description: 'oldest, recentupdate, leastupdate, leastindex (highest index first, as Gitea) or highestindex (lowest first)' })),
  state: Type.Optional(Type.String({ maxLength: 64, description: 'pending, success, error, failure or warning; any other value lists every state' })),
  page: Type.Optional(Type.Integer()),
  limit: Type.Optional(Type.Integer()),
});

// Wire schemas of the search routes (Gitea's users/search, repos/search, repos/issues/search).
import Type from 'typebox';
import { formBool, formInt } from '../go-form.js';
import { PagingQuery } from '../paging.js';
import { Repository } from './repo.js';
import { User } from './user.js';

export const UserSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 255, description: 'keyword in the name, full name or public e-mail' })),
  uid: formInt('ID of the user to search for'),
  ...PagingQuery,
});

/** Gitea answers user search with this envelope, not a bare list. */
export const UserSearchResults = Type.Object({ data: Type.Array(User), ok: Type.Boolean() }, { description: 'the users found' });

export const RepoSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 255, description: 'keyword; a comma separates several' })),
  topic: formBool('limit search to repositories with keyword as topic'),
  includeDesc: formBool('include search of keyword within repository description'),
  uid: formInt('search only for repos that the user with the given id owns or contributes to'),
  priority_owner_id: formInt('repo owner to prioritize in the results'),
  team_id: formInt('search only for repos that belong to the given team id'),
  starredBy: formInt('ignored: there are no stars here'),
  private: formBool('include private repositories this user has access to (defaults to true)'),
  is_private: formBool('show only public, private or all repositories (defaults to all)'),
  template: formBool('include template repositories this user has access to (defaults to true)'),
  archived: formBool('show only archived, non-archived or all repositories (defaults to all)'),
  mode: Type.Optional(Type.String({ maxLength: 64, description: 'fork, source, mirror or collaborative' })),
  exclusive: formBool('if `uid` is given, search only for repos that the user owns'),
  sort: Type.Optional(Type.String({ maxLength: 64, description: 'alpha, created, updated, size, git_size, lfs_size, stars, forks and id' })),
  order: Type.Optional(Type.String({ maxLength: 64, description: 'asc (default) or desc; ignored without sort' })),
  ...PagingQuery,
});

export const SearchResults = Type.Object({ ok: Type.Boolean(), data: Type.Array(Repository) }, { title: 'SearchResults' });

export const IssueSearchQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 64, description: 'open (default), closed or all' })),
  labels: Type.Optional(Type.String({ maxLength: 2048, description: 'comma-separated label names; issues with any of them' })),
  milestones: Type.Optional(Type.String({ maxLength: 2048, description: 'comma-separated milestone names' })),
  q: Type.Optional(Type.String({ maxLength: 255, description: 'search string' })),
  type: Type.Optional(Type.String({ maxLength: 64, description: 'issues or pulls; both otherwise' })),
  since: Type.Optional(Type.String({ maxLength: 64, description: 'only issues updated after this RFC 3339 time' })),
  before: Type.Optional(Type.String({ maxLength: 64, description: 'only issues updated before this RFC 3339 time' })),
  assigned: formBool('issues assigned to the signed-in user'),
  created: formBool('issues created by the signed-in user'),
  mentioned: formBool('issues mentioning the signed-in user'),
  review_requested: formBool('pull requests the signed-in user is asked to review'),
  reviewed: formBool('pull requests the signed-in user reviewed'),
  owner: Type.Optional(Type.String({ maxLength: 255, description: 'only repositories of this owner' })),
  created_by: Type.Optional(Type.String({ maxLength: 255, description: 'only issues created by this user' })),
  team: Type.Optional(Type.String({ maxLength: 255, description: 'only repositories of this team (needs owner)' })),
  ...PagingQuery,
});

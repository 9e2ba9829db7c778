// Searches across the instance (routers/api/v1/user/user.go Search, repo/repo.go Search,
// repo/issue.go SearchIssues): users, repositories, and issues with pull requests, each limited
// to what the caller may see.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { searchAccounts } from '../../db/account-search.js';
import { searchVisibleIssues } from '../../core/issue-search.js';
import { applySearchMode, repoOrder, searchRepositories, type RepoSearch } from '../../core/repo-search.js';
import { parseFormBool, parseFormInt, parseFormOptionalBool } from '../go-form.js';
import { readPaging, setPagingHeaders } from '../paging.js';
import { IssueSearchQuery, RepoSearchQuery, SearchResults, UserSearchQuery, UserSearchResults } from '../schemas/search.js';
import { Issue } from '../schemas/issue.js';
import { ApiErrorBody } from '../schemas/user.js';
import { ghostUser, renderIssues } from '../serializers/issue.js';
import { loadApiRepoList } from '../serializers/repo.js';
import { toApiUser } from '../serializers/user.js';

const errors = { 400: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 422: ApiErrorBody };

/** Gitea's built-in Actions user (id -2), which user search answers for uid=-2. */
function actionsUser(appUrl: string) {
  return { ...ghostUser(appUrl), id: -2, login: 'gitea-actions', full_name: 'Gitea Actions', html_url: `${appUrl}gitea-actions`, username: 'gitea-actions' };
}

export async function searchRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const appUrl = config.APP_URL;

  app.get<{ Querystring: Static<typeof UserSearchQuery> }>('/api/v1/users/search', {
    config: { scope: 'user' },
    schema: {
      operationId: 'userSearch', tags: ['user'], summary: 'Search for users',
      description: 'Users (not organizations) the caller may see, by name; `uid=-1` finds the Ghost user and `-2` the Actions user, as in Gitea.',
      querystring: UserSearchQuery,
      response: { 200: UserSearchResults, ...errors },
    },
  }, async (request, reply) => {
    const q = request.query;
    const paging = readPaging(q, config);
    const uid = parseFormInt(q.uid);
    if (uid === -1 || uid === -2) {
      setPagingHeaders(request, reply, 1, paging, appUrl);
      return { data: [uid === -1 ? ghostUser(appUrl) : actionsUser(appUrl)], ok: true };
    }
    const { accounts, total } = await searchAccounts(db, {
      type: 'user', actor: request.doer, keyword: q.q?.trim(), uid, searchByEmail: true,
      visible: request.auth.publicOnly ? ['public'] : undefined, order: [{ column: 'u.lower_name', order: 'asc' }],
    }, paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return { data: accounts.map((u) => toApiUser(u, request.doer, appUrl)), ok: true };
  });

  app.get<{ Querystring: Static<typeof RepoSearchQuery> }>('/api/v1/repos/search', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoSearch', tags: ['repository'], summary: 'Search for repositories',
      description: 'Repositories the caller may see. An unknown `mode`, `sort` or `order` answers 422. `starredBy` is ignored (there are no stars here).',
      querystring: RepoSearchQuery,
      response: { 200: SearchResults, ...errors },
    },
  }, async (request, reply) => {
    const q = request.query;
    const doer = request.doer;
    const search: RepoSearch = {
      viewer: doer,
      includePrivate: doer !== null && !request.auth.publicOnly && (q.private === undefined || q.private === '' || parseFormBool(q.private)),
      keyword: q.q?.trim(),
      topicOnly: parseFormBool(q.topic),
      includeDescription: parseFormBool(q.includeDesc),
      ownerId: parseFormInt(q.uid) || undefined,
      priorityOwnerId: parseFormInt(q.priority_owner_id) || undefined,
      teamId: parseFormInt(q.team_id) || undefined,
      template: parseFormOptionalBool(q.template),
      archived: parseFormOptionalBool(q.archived),
      isPrivate: parseFormOptionalBool(q.is_private),
      collaborate: parseFormBool(q.exclusive) ? false : undefined,
      order: repoOrder(q.sort, q.order),
    };
    applySearchMode(search, q.mode);
    const paging = readPaging(q, config);
    const { found, total } = await searchRepositories(db, search, paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return { ok: true, data: await loadApiRepoList({ db, config }, found, doer, appUrl) };
  });

  app.get<{ Querystring: Static<typeof IssueSearchQuery> }>('/api/v1/repos/issues/search', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'issueSearchIssues', tags: ['issue'], summary: 'Search for issues across the repositories that the user has access to',
      description: 'Open ones unless `state` says otherwise, newest first. An unknown `owner` or `team` answers 400, an unknown `created_by` 404, ' +
        'a `since`/`before` that is not RFC 3339 422.',
      querystring: IssueSearchQuery,
      response: { 200: Type.Array(Issue), ...errors },
    },
  }, async (request, reply) => {
    const q = request.query;
    const paging = readPaging(q, config);
    const { issues, total } = await searchVisibleIssues(db, request.doer, Boolean(request.auth.publicOnly), {
      state: q.state, labels: q.labels, milestones: q.milestones, q: q.q, type: q.type, since: q.since, before: q.before,
      assigned: parseFormBool(q.assigned), created: parseFormBool(q.created), mentioned: parseFormBool(q.mentioned),
      reviewRequested: parseFormBool(q.review_requested), reviewed: parseFormBool(q.reviewed),
      owner: q.owner, createdBy: q.created_by, team: q.team,
    }, paging);
    setPagingHeaders(request, reply, total, paging, appUrl);
    return renderIssues({ db, viewer: request.doer, appUrl }, issues);
  });
}

// Repository topics (routers/api/v1/repo/topic.go): list, replace, add and remove a repository's
// topics, and search every topic. Changing topics needs admin access to the repository.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { addTopic, removeTopic, replaceTopics } from '../../core/topics.js';
import { topicsStore } from '../../db/topics.js';
import { unixToIso } from '../../db/time.js';
import { readPaging, setTotalCount } from '../paging.js';
import { repoForChange, repoFromRequest } from '../repo-request.js';
import { OwnerRepoParams } from '../schemas/repo.js';
import {
  RepoTopicOptions, RepoTopicParams, TopicListQuery, TopicListResponse, TopicName, TopicRefusal, TopicSearchQuery,
} from '../schemas/topics.js';
import { ApiErrorBody } from '../schemas/user.js';

const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };
const ADMIN_NEEDED = 'user should be an owner or a collaborator with admin write of a repository';
const NoContent = Type.Null({ description: 'done' });

export async function topicRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  app.get<{ Params: Static<typeof OwnerRepoParams>; Querystring: Static<typeof TopicListQuery> }>('/api/v1/repos/:owner/:repo/topics', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoListTopics', tags: ['repository'], summary: 'Get list of topics that a repository has',
      description: 'By name. Sets X-Total-Count (and, as in Gitea, no Link).',
      params: OwnerRepoParams, querystring: TopicListQuery,
      response: { 200: TopicName, ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoFromRequest(request, request.params);
    const paging = readPaging(request.query, config);
    const store = topicsStore(db);
    const [topics, total] = await Promise.all([store.namesOfRepo(ctx.repo.id, paging), store.countOfRepo(ctx.repo.id)]);
    setTotalCount(reply, total);
    return { topics };
  });

  app.put<{ Params: Static<typeof OwnerRepoParams>; Body: Static<typeof RepoTopicOptions> }>('/api/v1/repos/:owner/:repo/topics', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoUpdateTopics', tags: ['repository'], summary: 'Replace list of topics for a repository',
      description: 'Repository admins. Names are trimmed and lower-cased; blanks and repeats are dropped. More than 25, or any invalid name, is 422 ' +
        'with Gitea\'s body (`invalidTopics`, `message`) and changes nothing.',
      params: OwnerRepoParams, body: RepoTopicOptions,
      response: { 204: NoContent, 422: TopicRefusal, ...errors },
    },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'admin', { allowArchived: true, message: ADMIN_NEEDED });
    await replaceTopics(db, ctx.repo.id, request.body?.topics ?? []);
    return reply.code(204).send();
  });

  for (const [method, operationId, summary, description, change] of [
    ['PUT', 'repoAddTopic', 'Add a topic to a repository', 'Repository admins. Adding a topic the repository has is fine; a repository with 25 topics refuses any (422).', addTopic],
    ['DELETE', 'repoDeleteTopic', 'Delete a topic from a repository', 'Repository admins. 404 when the repository does not have the topic; an invalid name is 422.', removeTopic],
  ] as const) {
    app.route<{ Params: Static<typeof RepoTopicParams> }>({
      method, url: '/api/v1/repos/:owner/:repo/topics/:topic',
      config: { scope: 'repository' },
      schema: { operationId, tags: ['repository'], summary, description, params: RepoTopicParams, response: { 204: NoContent, 422: TopicRefusal, ...errors } },
      handler: async (request, reply) => {
        const ctx = await repoForChange(request, request.params, 'admin', { allowArchived: true, message: ADMIN_NEEDED });
        await change(db, ctx.repo.id, request.params.topic);
        return reply.code(204).send();
      },
    });
  }

  app.get<{ Querystring: Static<typeof TopicSearchQuery> }>('/api/v1/topics/search', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'topicSearch', tags: ['repository'], summary: 'Search topics via keyword',
      description: 'Topics whose name contains `q`, most used first; topics no repository uses any more are listed with a count of 0, as in Gitea.',
      querystring: TopicSearchQuery,
      response: { 200: TopicListResponse, ...errors },
    },
  }, async (request, reply) => {
    const paging = readPaging(request.query, config);
    const { topics, total } = await topicsStore(db).search(request.query.q ?? '', paging);
    setTotalCount(reply, total);
    return {
      topics: topics.map((t) => ({ id: t.id, topic_name: t.name, repo_count: t.repo_count, created: unixToIso(t.created_unix)!, updated: unixToIso(t.updated_unix)! })),
    };
  });
}

// Wire schemas for repository topics (Gitea's modules/structs/repo_topic.go).
import Type from 'typebox';
import { PagingQuery } from '../paging.js';

export const TopicName = Type.Object({ topics: Type.Array(Type.String()) }, { title: 'TopicName' });

export const RepoTopicOptions = Type.Object({
  topics: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 1000, description: 'the new topics; blanks and duplicates are dropped' })),
}, { title: 'RepoTopicOptions' });

export const TopicResponse = Type.Object({
  id: Type.Integer(),
  topic_name: Type.String(),
  repo_count: Type.Integer(),
  created: Type.String({ format: 'date-time' }),
  updated: Type.String({ format: 'date-time' }),
}, { title: 'TopicResponse' });

export const TopicListResponse = Type.Object({ topics: Type.Array(TopicResponse) }, { description: 'TopicListResponse: the topics found (Gitea answers an object, not the array its document shows)' });

/** Gitea's 422 for bad topics: `invalidTopics` (a list, a single name, or null) and a message. */
export const TopicRefusal = Type.Object({
  invalidTopics: Type.Optional(Type.Unsafe<string[] | string | null>({ description: 'the refused names' })),
  message: Type.String(),
}, { additionalProperties: true });

export const RepoTopicParams = Type.Object({
  owner: Type.String({ description: 'owner of the repo' }),
  repo: Type.String({ description: 'name of the repo' }),
  topic: Type.String({ description: 'name of the topic' }),
});

export const TopicSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 255, description: 'keyword to search for' })),
  ...PagingQuery,
});

export const TopicListQuery = Type.Object({ ...PagingQuery });

// Store for repository topics: the topic rows (shared by every repository that uses the name) and
// the repository-to-topic links. A topic's repository count is counted, not stored, so deleting a
// repository (its links cascade) can never leave it wrong.
import type { Knex } from 'knex';
import { isSqlite, isUniqueViolation } from './connection.js';
import { likePattern } from './issues.js';
import { nowUnix } from './time.js';

export interface TopicRow {
  id: number;
  name: string;
  repo_count: number;
  created_unix: number;
  updated_unix: number;
}

function toTopicRow(raw: Record<string, unknown>): TopicRow {
  return {
    id: Number(raw.id),
    name: String(raw.name),
    repo_count: Number(raw.repo_count ?? 0),
    created_unix: Number(raw.created_unix),
    updated_unix: Number(raw.updated_unix),
  };
}

function withRepoCount(trx: Knex): Knex.QueryBuilder {
  return trx('topics as t').leftJoin('repo_topics as rt', 'rt.topic_id', 't.id')
    .groupBy('t.id', 't.name', 't.created_unix', 't.updated_unix')
    .select('t.id', 't.name', 't.created_unix', 't.updated_unix', trx.raw('COUNT(rt.repo_id) as repo_count'));
}

export function topicsStore(db: Knex) {
  return {
    /** The repository's topic names, by name (Gitea's order for one repository). */
    async namesOfRepo(repoId: number, page?: { limit: number; offset: number }, trx: Knex = db): Promise<string[]> {
      const q = trx('topics as t').join('repo_topics as rt', 'rt.topic_id', 't.id').where('rt.repo_id', repoId).orderBy('t.name').select('t.name');
      if (page) q.limit(page.limit).offset(page.offset);
      return (await q).map((r: { name: string }) => r.name);
    },
    /** Topic names of many repositories at once, each list by name. */
    async namesOfRepos(repoIds: number[], trx: Knex = db): Promise<Map<number, string[]>> {
      const out = new Map<number, string[]>();
      if (repoIds.length === 0) return out;
      const rows = await trx('topics as t').join('repo_topics as rt', 'rt.topic_id', 't.id').whereIn('rt.repo_id', repoIds)
        .orderBy('t.name').select('rt.repo_id', 't.name');
      for (const r of rows as Array<{ repo_id: unknown; name: string }>) {
        const list = out.get(Number(r.repo_id)) ?? [];
        list.push(r.name);
        out.set(Number(r.repo_id), list);
      }
      return out;
    },
    async countOfRepo(repoId: number, trx: Knex = db): Promise<number> {
      const row = await trx('repo_topics').where({ repo_id: repoId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /** Makes sure a topic row exists for `name` and returns its id. */
    async ensure(name: string, trx: Knex = db): Promise<number> {
      const found = await trx('topics').where({ name }).first('id');
      if (found) return Number(found.id);
      const now = nowUnix();
      try {
        const [id] = await trx('topics').insert({ name, created_unix: now, updated_unix: now });
        return Number(id);
      } catch (err) {
        // Another repository created the same topic at the same moment: use theirs.
        if (!isUniqueViolation(err)) throw err;
        // A locking read sees the other transaction's committed row, which a snapshot read would not.
        const q = trx('topics').where({ name });
        return Number((await (isSqlite(trx) ? q : q.forShare()).first('id')).id);
      }
    },
    /** Serialises topic changes of one repository until the transaction ends (the 25-topic limit). */
    async lockRepo(repoId: number, trx: Knex): Promise<void> {
      if (!isSqlite(trx)) await trx('repositories').where({ id: repoId }).forUpdate().first('id');
    },
    /** Links the topic to the repository; false when it already was. */
    async link(repoId: number, name: string, trx: Knex = db): Promise<boolean> {
      const topicId = await this.ensure(name, trx);
      if (await trx('repo_topics').where({ repo_id: repoId, topic_id: topicId }).first('topic_id')) return false;
      await trx('repo_topics').insert({ repo_id: repoId, topic_id: topicId });
      await trx('topics').where({ id: topicId }).update({ updated_unix: nowUnix() });
      return true;
    },
    /** Unlinks the topic; false when the repository did not have it. Topic rows stay, as in Gitea. */
    async unlink(repoId: number, name: string, trx: Knex = db): Promise<boolean> {
      const topic = await trx('topics').where({ name }).first('id');
      if (!topic) return false;
      const removed = Number(await trx('repo_topics').where({ repo_id: repoId, topic_id: topic.id }).delete());
      if (removed > 0) await trx('topics').where({ id: topic.id }).update({ updated_unix: nowUnix() });
      return removed > 0;
    },
    /** Topics whose name contains `keyword` (all when empty), most used first. */
    async search(keyword: string, page: { limit: number; offset: number }, trx: Knex = db): Promise<{ topics: TopicRow[]; total: number }> {
      const filter = (q: Knex.QueryBuilder) => (keyword ? q.whereRaw("t.name LIKE ? ESCAPE '!'", [likePattern(keyword.toLowerCase())]) : q);
      const [rows, count] = await Promise.all([
        filter(withRepoCount(trx)).orderBy([{ column: 'repo_count', order: 'desc' }, { column: 't.id' }]).limit(page.limit).offset(page.offset),
        filter(trx('topics as t')).count({ n: '*' }).first(),
      ]);
      return { topics: rows.map(toTopicRow), total: Number(count?.n ?? 0) };
    },
  };
}

export type TopicsStore = ReturnType<typeof topicsStore>;

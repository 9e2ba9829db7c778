// Repository topics with Gitea's rules (models/repo/topic.go, routers/api/v1/repo/topic.go): names
// are trimmed and lower-cased, at most 35 characters of [a-z0-9] then [-.a-z0-9], at most 25 per
// repository. The refusals carry Gitea's own bodies, `invalidTopics` included.
import type { Knex } from 'knex';
import { NotFoundError, ServiceError } from './errors.js';
import { topicsStore } from '../db/topics.js';

export const MAX_TOPICS_PER_REPO = 25;
const TOPIC_PATTERN = /^[a-z0-9][-.a-z0-9]*$/;

export function normaliseTopic(name: string): string {
  return name.trim().toLowerCase();
}

export function isValidTopic(name: string): boolean {
  return name.length <= 35 && TOPIC_PATTERN.test(name);
}

/** A 422 whose body is Gitea's (a message and, for bad names, `invalidTopics`), not {message, url}. */
class TopicRefusal extends ServiceError {
  constructor(body: { invalidTopics?: string[] | string | null; message: string }) {
    super(422, body.message, body);
  }
}

/** Gitea's SanitizeAndValidateTopics: blanks dropped, duplicates dropped, the rest valid or not. */
export function sanitizeTopics(names: string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of names) {
    const name = normaliseTopic(raw);
    if (name === '' || valid.includes(name)) continue;
    (isValidTopic(name) ? valid : invalid).push(name);
  }
  return { valid, invalid };
}

/** PUT .../topics: the repository's topics become exactly `names`. */
export async function replaceTopics(db: Knex, repoId: number, names: string[]): Promise<void> {
  const { valid, invalid } = sanitizeTopics(names);
  if (valid.length > MAX_TOPICS_PER_REPO) throw new TopicRefusal({ invalidTopics: null, message: 'Exceeding maximum number of topics per repo' });
  if (invalid.length > 0) throw new TopicRefusal({ invalidTopics: invalid, message: 'Topic names are invalid' });
  await db.transaction(async (trx) => {
    const store = topicsStore(db);
    await store.lockRepo(repoId, trx);
    const current = await store.namesOfRepo(repoId, undefined, trx);
    for (const name of current) if (!valid.includes(name)) await store.unlink(repoId, name, trx);
    for (const name of valid) if (!current.includes(name)) await store.link(repoId, name, trx);
  });
}

function validTopicOrRefuse(raw: string): string {
  const name = normaliseTopic(raw);
  // Gitea puts the one bad name in `invalidTopics` as a string here, not a list.
  if (!isValidTopic(name)) throw new TopicRefusal({ invalidTopics: name, message: 'Topic name is invalid' });
  return name;
}

/** PUT .../topics/{topic}: idempotent, but a repository at the limit refuses even a topic it has. */
export async function addTopic(db: Knex, repoId: number, raw: string): Promise<void> {
  const name = validTopicOrRefuse(raw);
  await db.transaction(async (trx) => {
    const store = topicsStore(db);
    await store.lockRepo(repoId, trx);
    if ((await store.countOfRepo(repoId, trx)) >= MAX_TOPICS_PER_REPO) throw new TopicRefusal({ message: 'Exceeding maximum allowed topics per repo.' });
    await store.link(repoId, name, trx);
  });
}

/** DELETE .../topics/{topic}: 404 when the repository does not have it. */
export async function removeTopic(db: Knex, repoId: number, raw: string): Promise<void> {
  const name = validTopicOrRefuse(raw);
  if (!(await topicsStore(db).unlink(repoId, name))) throw new NotFoundError();
}

// Resolves the mentions and issue references a document may link, in bulk and only as far as the
// doer may see: a private repository's issues or a hidden user are never revealed by a link.
import type { Knex } from 'knex';
import { loadRepository } from './permissions.js';
import { ServiceError } from './errors.js';
import { placeholders, selectRows } from '../db/hot-query.js';
import type { UserRow } from '../db/users.js';

export interface ReferenceCandidatesInput {
  mentions: string[];
  issues: string[]; // 'owner/repo#N', lower-cased owner and repo
}

export interface ResolvedReferences {
  mentionable: string[];
  issues: Record<string, { exists: boolean; isPull: boolean }>;
}

/** At most this many distinct repositories are looked up for one document. */
const MAX_REPOSITORIES = 20;

export async function resolveReferences(db: Knex, doer: UserRow | null, candidates: ReferenceCandidatesInput): Promise<ResolvedReferences> {
  const [mentionable, issues] = await Promise.all([resolveMentions(db, doer, candidates.mentions), resolveIssues(db, doer, candidates.issues)]);
  return { mentionable, issues };
}

async function resolveMentions(db: Knex, doer: UserRow | null, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  // Every rendered document with a mention asks: straight through the driver outside a transaction
  // (knex prepared the statement anew each time, about a sixth of a small document's main-thread CPU).
  const rows = (db.isTransaction
    ? await db('users').whereIn('lower_name', names).andWhere('is_active', true).select('lower_name', 'visibility', 'id')
    : await selectRows(db, `SELECT lower_name, visibility, id FROM users WHERE is_active = 1 AND lower_name IN (${placeholders(names.length)})`, names)
  ) as Array<{ lower_name: string; visibility: string; id: number }>;
  return rows
    .filter((u) => u.visibility === 'public' || (u.visibility === 'limited' && doer) || doer?.is_admin || Number(u.id) === doer?.id)
    .map((u) => u.lower_name);
}

async function resolveIssues(db: Knex, doer: UserRow | null, keys: string[]): Promise<ResolvedReferences['issues']> {
  const byRepo = new Map<string, number[]>();
  for (const key of keys) {
    const m = /^([^/#]+)\/([^/#]+)#(\d{1,18})$/.exec(key);
    if (!m) continue;
    const repoKey = `${m[1]}/${m[2]}`;
    if (!byRepo.has(repoKey) && byRepo.size >= MAX_REPOSITORIES) continue;
    byRepo.set(repoKey, [...(byRepo.get(repoKey) ?? []), Number(m[3])]);
  }
  const resolved: ResolvedReferences['issues'] = {};
  for (const [repoKey, indexes] of byRepo) {
    const [ownerName, repoName] = repoKey.split('/') as [string, string];
    let repoId: number;
    try {
      repoId = (await loadRepository(db, { ownerName, repoName, doer })).repo.id;
    } catch (err) {
      if (err instanceof ServiceError) continue; // missing or hidden: leave the references as text
      throw err;
    }
    const rows: Array<{ index: number; is_pull: number | boolean }> = await db('issues').where('repo_id', repoId).whereIn('index', indexes).select('index', 'is_pull');
    for (const row of rows) resolved[`${repoKey}#${Number(row.index)}`] = { exists: true, isPull: Boolean(row.is_pull) };
  }
  return resolved;
}

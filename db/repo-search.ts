// Repository search and listings with Gitea's conditions (models/repo/repo_list.go
// SearchRepositoryCondition): visibility, owner and collaboration, team, keyword over names,
// topics and descriptions, flags, order and paging, counted in the database.
import type { Knex } from 'knex';
import { toRepoRow, type RepoRow } from './repos.js';
import { memberOfOrg, teamReachesRepo, whereRepoVisibleTo } from './repo-visibility.js';
import { usersStore, type UserRow } from './users.js';

export type RepoOrder = Array<{ column: string; order: 'asc' | 'desc' }>;

export interface RepoSearch {
  viewer: UserRow | null;
  /** Gitea's `Private`: include the private repositories the viewer may see (else public ones of public owners only). */
  includePrivate: boolean;
  keyword?: string | undefined;
  topicOnly?: boolean | undefined;
  includeDescription?: boolean | undefined;
  /** Repositories of this account and, unless `collaborate` is false, those it works on. */
  ownerId?: number | undefined;
  /** true: only repositories the owner works on but does not own; false: only its own. */
  collaborate?: boolean | undefined;
  teamId?: number | undefined;
  isPrivate?: boolean | undefined;
  template?: boolean | undefined;
  archived?: boolean | undefined;
  fork?: boolean | undefined;
  /** There are no mirrors here: `true` finds nothing. */
  mirror?: boolean | undefined;
  priorityOwnerId?: number | undefined;
  order: RepoOrder;
}

export interface FoundRepo {
  repo: RepoRow;
  owner: UserRow;
}

/** Repositories a user works on without owning them (Gitea's collaborateCond). */
function collaboratesOn(q: Knex.QueryBuilder, userId: number, includePrivate: boolean): void {
  q.whereNot('r.owner_id', userId).andWhere((access) => {
    access.whereExists((e) => e.select(1).from('collaborations as sc').whereRaw('sc.repo_id = r.id').andWhere('sc.user_id', userId))
      .orWhere((team) => team.where('o.type', 1).whereExists((e) => teamReachesRepo(e, userId)))
      .orWhere((pub) => pub.where('r.is_private', false).andWhere('o.type', 1).whereExists((e) => memberOfOrg(e, userId)));
  });
  // Without private access, organizations where the user's membership is concealed stay out.
  if (!includePrivate) {
    q.where((w) => w.where('o.type', '<>', 1).orWhereNot((hidden) => hidden.whereExists((e) => memberOfOrg(e, userId))
      .whereNotExists((e) => e.select(1).from('org_public_members as pm').whereRaw('pm.org_id = o.id').andWhere('pm.user_id', userId))));
  }
}

function keywordMatches(q: Knex.QueryBuilder, s: RepoSearch): void {
  const pieces = (s.keyword ?? '').split(',').map((p) => p.toLowerCase()).filter((p) => p !== '');
  if (pieces.length === 0) return;
  // Gitea's LIKE takes the keyword's own % and _ as wildcards; so does this.
  const like = (p: string) => `%${p}%`;
  q.where((w) => {
    w.whereExists((e) => {
      e.select(1).from('repo_topics as kt').join('topics as ktn', 'ktn.id', 'kt.topic_id').whereRaw('kt.repo_id = r.id')
        .andWhere((names) => { for (const p of pieces) names.orWhere('ktn.name', s.topicOnly ? '=' : 'like', s.topicOnly ? p : like(p)); });
    });
    if (s.topicOnly) return;
    for (const p of pieces) {
      w.orWhere('r.lower_name', 'like', like(p));
      const slash = (s.keyword ?? '').split('/');
      if (!s.teamId && slash.length === 2) {
        w.orWhere((both) => both.where('o.lower_name', 'like', like(slash[0]!.toLowerCase())).andWhere('r.lower_name', 'like', like(slash[1]!.toLowerCase())));
      }
      if (s.includeDescription) w.orWhereRaw('LOWER(r.description) LIKE ?', [like(p)]);
    }
  });
}

function conditions(db: Knex, s: RepoSearch): Knex.QueryBuilder {
  const q = db('repositories as r').join('users as o', 'o.id', 'r.owner_id');
  if (s.includePrivate) whereRepoVisibleTo(q, s.viewer);
  else {
    q.where('r.is_private', false).andWhere('o.visibility', 'public');
    if (s.viewer?.restricted) whereRepoVisibleTo(q, s.viewer);
  }
  if (s.isPrivate !== undefined) q.andWhere('r.is_private', s.isPrivate);
  if (s.template !== undefined) q.andWhere('r.is_template', s.template);
  if (s.ownerId !== undefined && s.ownerId > 0) {
    const ownerId = s.ownerId;
    q.andWhere((w) => {
      if (s.collaborate !== true) w.where('r.owner_id', ownerId);
      if (s.collaborate !== false) w.orWhere((c) => collaboratesOn(c, ownerId, s.includePrivate));
    });
  }
  if (s.teamId !== undefined && s.teamId > 0) {
    const teamId = s.teamId;
    q.whereExists((e) => e.select(1).from('teams as st').where('st.id', teamId).whereRaw('st.org_id = r.owner_id')
      .andWhere((w) => w.where('st.includes_all_repositories', true)
        .orWhereExists((x) => x.select('str.repo_id').from('team_repos as str').whereRaw('str.team_id = st.id').andWhereRaw('str.repo_id = r.id'))));
  }
  keywordMatches(q, s);
  if (s.fork !== undefined) q.andWhere(s.fork ? (w) => w.whereNotNull('r.fork_id') : (w) => w.whereNull('r.fork_id'));
  if (s.mirror === true) q.whereRaw('1 = 0');
  if (s.archived !== undefined) q.andWhere('r.is_archived', s.archived);
  return q;
}

export async function searchRepositories(db: Knex, s: RepoSearch, page: { limit: number; offset: number }): Promise<{ found: FoundRepo[]; total: number }> {
  const count = await conditions(db, s).count({ n: 'r.id' }).first();
  const q = conditions(db, s).select('r.*');
  const firstPiece = (s.keyword ?? '').split('/');
  if (s.priorityOwnerId) q.orderByRaw('CASE WHEN r.owner_id = ? THEN 0 ELSE r.owner_id END', [s.priorityOwnerId]);
  else if (firstPiece.length === 2) q.orderByRaw('CASE WHEN o.lower_name LIKE ? THEN 0 ELSE 1 END', [firstPiece[0]!.toLowerCase()]);
  q.orderBy([...s.order, { column: 'r.id', order: 'asc' }]).limit(page.limit).offset(page.offset);
  const repos = ((await q) as Array<Record<string, unknown>>).map((r) => toRepoRow(r)!);
  const owners = await usersStore(db).byIds(repos.map((r) => r.owner_id));
  return { found: repos.flatMap((repo) => (owners.has(repo.owner_id) ? [{ repo, owner: owners.get(repo.owner_id)! }] : [])), total: Number(count?.n ?? 0) };
}

/** The ids of the repositories the search finds, as a query to nest in another one. */
export function repositoryIdsQuery(db: Knex, s: Omit<RepoSearch, 'order'>): Knex.QueryBuilder {
  return conditions(db, { ...s, order: [] }).select('r.id');
}

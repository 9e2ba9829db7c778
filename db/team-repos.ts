// Store for the repositories a team reaches: every repository of its organization when it includes
// all of them (nothing stored, so new repositories are in at once), else its team_repos rows.
import type { Knex } from 'knex';
import { toRepoRow, type RepoRow } from './repos.js';
import { toTeamRow, type TeamRow } from './teams.js';

function reposOf(trx: Knex, team: TeamRow): Knex.QueryBuilder {
  const q = trx('repositories as r').where('r.owner_id', team.org_id);
  if (!team.includes_all_repositories) q.whereIn('r.id', trx('team_repos').where('team_id', team.id).select('repo_id'));
  return q;
}

export function teamReposStore(db: Knex) {
  return {
    async has(team: TeamRow, repo: RepoRow, trx: Knex = db): Promise<boolean> {
      if (repo.owner_id !== team.org_id) return false;
      if (team.includes_all_repositories) return true;
      return Boolean(await trx('team_repos').where({ team_id: team.id, repo_id: repo.id }).first('repo_id'));
    },
    /** Idempotent. */
    async add(team: TeamRow, repo: RepoRow, trx: Knex = db): Promise<void> {
      if (await trx('team_repos').where({ team_id: team.id, repo_id: repo.id }).first('repo_id')) return;
      await trx('team_repos').insert({ team_id: team.id, repo_id: repo.id });
    },
    async remove(team: TeamRow, repo: RepoRow, trx: Knex = db): Promise<void> {
      await trx('team_repos').where({ team_id: team.id, repo_id: repo.id }).delete();
    },
    /** The team's repositories by name (Gitea's GetTeamRepositories order). */
    async list(team: TeamRow, page: { limit: number; offset: number }, trx: Knex = db): Promise<{ repos: RepoRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        reposOf(trx, team).select('r.*').orderBy([{ column: 'r.lower_name' }, { column: 'r.id' }]).limit(page.limit).offset(page.offset),
        reposOf(trx, team).count({ n: '*' }).first(),
      ]);
      return { repos: rows.map((r: Record<string, unknown>) => toRepoRow(r)!), total: Number(count?.n ?? 0) };
    },
    /** Teams of the organization that reach the repository, the Owners team first, then by name. */
    async teamsOfRepo(orgId: number, repoId: number, trx: Knex = db): Promise<TeamRow[]> {
      const rows = await trx('teams as t').where('t.org_id', orgId)
        .andWhere((w) => w.where('t.includes_all_repositories', true).orWhereIn('t.id', trx('team_repos').where('repo_id', repoId).select('team_id')))
        .orderByRaw("CASE WHEN t.lower_name = 'owners' THEN '' ELSE t.lower_name END").orderBy('t.id').select('t.*');
      return rows.map(toTeamRow);
    },
  };
}

export type TeamReposStore = ReturnType<typeof teamReposStore>;

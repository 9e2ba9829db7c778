// Store for organizations' teams and their members; membership of an organization is membership
// of any of its teams, as in Gitea.
import type { Knex } from 'knex';
import { isSqlite } from './connection.js';
import { nowUnix } from './time.js';
import { toUserRow, type UserRow } from './users.js';

export type TeamPermission = 'read' | 'write' | 'admin' | 'owner';

export interface TeamRow {
  id: number;
  org_id: number;
  lower_name: string;
  name: string;
  description: string;
  permission: TeamPermission;
  includes_all_repositories: boolean;
  can_create_org_repo: boolean;
  created_unix: number;
  /** Unit key to access mode, e.g. {"repo.code": "write"} (Gitea's team_unit rows). */
  units: Record<string, string>;
}

export type NewTeam = Omit<TeamRow, 'id' | 'lower_name' | 'created_unix'>;

function parseUnits(raw: unknown): Record<string, string> {
  if (typeof raw !== 'string' || raw === '') return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function toTeamRow(raw: Record<string, unknown>): TeamRow {
  return {
    id: Number(raw.id),
    org_id: Number(raw.org_id),
    lower_name: String(raw.lower_name),
    name: String(raw.name),
    description: String(raw.description ?? ''),
    permission: String(raw.permission) as TeamPermission,
    includes_all_repositories: Boolean(raw.includes_all_repositories),
    can_create_org_repo: Boolean(raw.can_create_org_repo),
    created_unix: Number(raw.created_unix),
    units: parseUnits(raw.units),
  };
}

const TEAM_COLUMNS = ['t.id', 't.org_id', 't.lower_name', 't.name', 't.description', 't.permission', 't.includes_all_repositories', 't.can_create_org_repo', 't.created_unix', 't.units'];

export function teamsStore(db: Knex) {
  return {
    async insert(team: NewTeam, trx: Knex = db): Promise<TeamRow> {
      const created_unix = nowUnix();
      const row = { ...team, lower_name: team.name.toLowerCase(), created_unix, units: JSON.stringify(team.units) };
      const [id] = await trx('teams').insert(row);
      return { ...team, id: Number(id), lower_name: row.lower_name, created_unix };
    },
    async byId(id: number, trx: Knex = db): Promise<TeamRow | undefined> {
      const row = await trx('teams as t').where('t.id', id).first(TEAM_COLUMNS);
      return row ? toTeamRow(row) : undefined;
    },
    async nameTaken(orgId: number, name: string, trx: Knex = db): Promise<boolean> {
      return Boolean(await trx('teams').where({ org_id: orgId, lower_name: name.toLowerCase() }).first('id'));
    },
    async listByOrg(orgId: number, limit: number, offset: number, trx: Knex = db): Promise<TeamRow[]> {
      // Gitea lists an organization's teams by name.
      const rows = await trx('teams as t').where('t.org_id', orgId).orderBy([{ column: 't.lower_name' }, { column: 't.id' }])
        .limit(limit).offset(offset).select(TEAM_COLUMNS);
      return rows.map(toTeamRow);
    },
    async countByOrg(orgId: number, trx: Knex = db): Promise<number> {
      const row = await trx('teams').where({ org_id: orgId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /** The teams of `orgId` that `userId` is a member of. */
    async ofUserInOrg(orgId: number, userId: number, trx: Knex = db): Promise<TeamRow[]> {
      const rows = await trx('teams as t').join('team_members as m', 'm.team_id', 't.id')
        .where({ 't.org_id': orgId, 'm.user_id': userId }).orderBy('t.id').select(TEAM_COLUMNS);
      return rows.map(toTeamRow);
    },
    /** True when the membership was added (false: already a member). */
    async addMember(teamId: number, userId: number, trx: Knex = db): Promise<boolean> {
      const exists = await trx('team_members').where({ team_id: teamId, user_id: userId }).first('team_id');
      if (exists) return false;
      await trx('team_members').insert({ team_id: teamId, user_id: userId });
      return true;
    },
    async removeMember(teamId: number, userId: number, trx: Knex = db): Promise<boolean> {
      return (await trx('team_members').where({ team_id: teamId, user_id: userId }).delete()) > 0;
    },
    async isMember(teamId: number, userId: number, trx: Knex = db): Promise<boolean> {
      return Boolean(await trx('team_members').where({ team_id: teamId, user_id: userId }).first('team_id'));
    },
    /** Serialises membership changes of one team until the transaction ends (SQLite has one writer anyway). */
    async lock(teamId: number, trx: Knex): Promise<void> {
      if (!isSqlite(trx)) await trx('teams').where({ id: teamId }).forUpdate().first('id');
    },
    async memberCount(teamId: number, trx: Knex = db): Promise<number> {
      const row = await trx('team_members').where({ team_id: teamId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /** Members by name, as Gitea lists them. */
    async members(teamId: number, limit: number, offset: number, trx: Knex = db): Promise<UserRow[]> {
      const rows = await trx('users as u').join('team_members as m', 'm.user_id', 'u.id').where('m.team_id', teamId)
        .orderBy('u.lower_name').limit(limit).offset(offset).select('u.*');
      return rows.map((r: Record<string, unknown>) => toUserRow(r)!);
    },
    async isOrgMember(orgId: number, userId: number, trx: Knex = db): Promise<boolean> {
      const row = await trx('teams as t').join('team_members as m', 'm.team_id', 't.id').where({ 't.org_id': orgId, 'm.user_id': userId }).first('t.id');
      return Boolean(row);
    },
    async isOrgOwner(orgId: number, userId: number, trx: Knex = db): Promise<boolean> {
      const row = await trx('teams as t').join('team_members as m', 'm.team_id', 't.id')
        .where({ 't.org_id': orgId, 'm.user_id': userId, 't.permission': 'owner' }).first('t.id');
      return Boolean(row);
    },
    /** Whether two accounts are members of at least one common organization. */
    async shareAnOrganization(userA: number, userB: number, trx: Knex = db): Promise<boolean> {
      const row = await trx('team_members as ma').join('teams as ta', 'ta.id', 'ma.team_id')
        .join('teams as tb', 'tb.org_id', 'ta.org_id').join('team_members as mb', 'mb.team_id', 'tb.id')
        .where({ 'ma.user_id': userA, 'mb.user_id': userB }).first('ta.org_id');
      return Boolean(row);
    },
    async byOrgAndName(orgId: number, name: string, trx: Knex = db): Promise<TeamRow | undefined> {
      const row = await trx('teams as t').where({ 't.org_id': orgId, 't.lower_name': name.toLowerCase() }).first(TEAM_COLUMNS);
      return row ? toTeamRow(row) : undefined;
    },
    /** Another team of the organization already has this name. */
    async nameTakenByOther(orgId: number, name: string, teamId: number, trx: Knex = db): Promise<boolean> {
      return Boolean(await trx('teams').where({ org_id: orgId, lower_name: name.toLowerCase() }).whereNot({ id: teamId }).first('id'));
    },
    async update(team: TeamRow, trx: Knex = db): Promise<void> {
      await trx('teams').where({ id: team.id }).update({
        name: team.name, lower_name: team.name.toLowerCase(), description: team.description, permission: team.permission,
        includes_all_repositories: team.includes_all_repositories, can_create_org_repo: team.can_create_org_repo, units: JSON.stringify(team.units),
      });
    },
    async remove(teamId: number, trx: Knex = db): Promise<void> {
      await trx('teams').where({ id: teamId }).delete();
    },
    /**
     * Teams by name (Gitea's SearchTeam): of one organization or any, only those `userId` is in
     * when given, matching `keyword` in the name (and description).
     */
    async search(filter: { orgId?: number; userId?: number; keyword?: string; includeDescription?: boolean }, page: { limit: number; offset: number }, trx: Knex = db): Promise<{ teams: TeamRow[]; total: number }> {
      const base = () => {
        const q = trx('teams as t');
        if (filter.orgId !== undefined) q.where('t.org_id', filter.orgId);
        if (filter.userId !== undefined) q.whereIn('t.id', trx('team_members').where('user_id', filter.userId).select('team_id'));
        const keyword = (filter.keyword ?? '').toLowerCase();
        if (keyword) {
          q.where((w) => {
            w.where('t.lower_name', 'like', `%${keyword}%`);
            if (filter.includeDescription) w.orWhereRaw('LOWER(t.description) LIKE ?', [`%${keyword}%`]);
          });
        }
        return q;
      };
      const [rows, count] = await Promise.all([
        base().orderBy([{ column: 't.lower_name' }, { column: 't.id' }]).limit(page.limit).offset(page.offset).select(TEAM_COLUMNS),
        base().count({ n: '*' }).first(),
      ]);
      return { teams: rows.map(toTeamRow), total: Number(count?.n ?? 0) };
    },
    async repoAdminChangeTeamAccess(orgId: number, trx: Knex = db): Promise<boolean> {
      const row = await trx('users').where({ id: orgId }).first('repo_admin_change_team_access');
      return Boolean(row?.repo_admin_change_team_access);
    },
    async setRepoAdminChangeTeamAccess(orgId: number, value: boolean, trx: Knex = db): Promise<void> {
      await trx('users').where({ id: orgId }).update({ repo_admin_change_team_access: value });
    },
  };
}

export type TeamsStore = ReturnType<typeof teamsStore>;

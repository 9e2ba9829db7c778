// Organization and team rows to Gitea's JSON (services/convert/convert.go ToOrganization, ToTeams).
import { REPO_UNIT_KEYS } from '../../core/teams.js';
import type { TeamRow } from '../../db/teams.js';
import type { UserRow } from '../../db/users.js';
import { avatarUrlOf } from './user.js';

export interface ApiOrganization {
  id: number;
  name: string;
  full_name: string;
  email: string;
  avatar_url: string;
  description: string;
  website: string;
  location: string;
  visibility: string;
  repo_admin_change_team_access: boolean;
  username: string;
}

export interface ApiTeam {
  id: number;
  name: string;
  description: string;
  organization: ApiOrganization | null;
  includes_all_repositories: boolean;
  permission: string;
  units: string[];
  units_map: Record<string, string>;
  can_create_org_repo: boolean;
}

/** The flag lives in a column added after UserRow was defined; rows read with `u.*` carry it. */
function repoAdminChangeTeamAccess(org: UserRow): boolean {
  return Boolean((org as UserRow & { repo_admin_change_team_access?: unknown }).repo_admin_change_team_access);
}

/** `hideEmail`: Gitea's GET /orgs/{org} blanks the address for anonymous callers. */
export function toApiOrganization(org: UserRow, appUrl: string, options: { hideEmail?: boolean } = {}): ApiOrganization {
  return {
    id: org.id,
    name: org.name,
    full_name: org.full_name,
    email: options.hideEmail ? '' : org.email,
    avatar_url: avatarUrlOf(org, appUrl),
    description: org.description,
    website: org.website,
    location: org.location,
    visibility: org.visibility,
    repo_admin_change_team_access: repoAdminChangeTeamAccess(org),
    username: org.name,
  };
}

/**
 * Gitea 1.26's team JSON: admin and owner teams show every unit at their level; other teams show
 * permission "none" (their access is per unit) and their own units. `units_map` keys are sorted,
 * as Go writes a map. `org` is given where Gitea loads it (GET /teams/{id}, creation, a user's
 * teams); other answers carry null.
 */
export function toApiTeam(team: TeamRow, org: ApiOrganization | null): ApiTeam {
  const whole = team.permission === 'admin' || team.permission === 'owner';
  const units: Record<string, string> = whole ? Object.fromEntries(REPO_UNIT_KEYS.map((k) => [k, team.permission])) : team.units;
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    organization: org,
    includes_all_repositories: team.includes_all_repositories,
    permission: whole ? team.permission : 'none',
    units: Object.keys(units),
    units_map: Object.fromEntries(Object.entries(units).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    can_create_org_repo: team.can_create_org_repo,
  };
}

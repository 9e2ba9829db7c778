// Wire schemas for organization settings, memberships and team changes (Gitea's
// modules/structs/org.go, org_member.go, org_team.go).
import Type from 'typebox';
import { formBool } from '../go-form.js';
import { PagingQuery } from '../paging.js';
import { Team } from './user.js';

export const EditOrgOption = Type.Object({
  full_name: Type.Optional(Type.String({ maxLength: 100 })),
  email: Type.Optional(Type.String({ maxLength: 255 })),
  description: Type.Optional(Type.String({ maxLength: 255 })),
  website: Type.Optional(Type.String({ maxLength: 255 })),
  location: Type.Optional(Type.String({ maxLength: 50 })),
  visibility: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('public'), Type.Literal('limited'), Type.Literal('private')])),
  repo_admin_change_team_access: Type.Optional(Type.Boolean()),
}, { title: 'EditOrgOption' });

export const OrganizationPermissions = Type.Object({
  is_owner: Type.Boolean(),
  is_admin: Type.Boolean(),
  can_write: Type.Boolean(),
  can_read: Type.Boolean(),
  can_create_repository: Type.Boolean(),
}, { title: 'OrganizationPermissions' });

export const EditTeamOption = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255, description: 'empty keeps the name' })),
  description: Type.Optional(Type.String({ maxLength: 255 })),
  includes_all_repositories: Type.Optional(Type.Boolean()),
  permission: Type.Optional(Type.String({ maxLength: 16, description: 'read, write or admin' })),
  units: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64, description: 'deprecated: unit keys given the team permission' })),
  units_map: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 16 }))),
  can_create_org_repo: Type.Optional(Type.Boolean()),
}, { title: 'EditTeamOption' });

export const TeamSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 255, description: 'keywords to search' })),
  include_desc: formBool('include search within team description (defaults to true)'),
  ...PagingQuery,
});

/** Gitea answers team search with this envelope (a Go map, so its keys sorted), not a bare list. */
export const TeamSearchResults = Type.Object({ data: Type.Array(Team), ok: Type.Boolean() }, { description: 'the teams found' });

export const OrgUsernameParams = Type.Object({
  org: Type.String({ description: 'name of the organization' }),
  username: Type.String({ description: 'username of the user' }),
});

export const UserOrgParams = Type.Object({
  username: Type.String({ description: 'username of user' }),
  org: Type.String({ description: 'name of the organization' }),
});

export const TeamRepoParams = Type.Object({
  id: Type.Integer({ description: 'id of the team' }),
  org: Type.String({ description: 'organization that owns the repo' }),
  repo: Type.String({ description: 'name of the repo' }),
});

export const RepoTeamParams = Type.Object({
  owner: Type.String({ description: 'owner of the repo' }),
  repo: Type.String({ description: 'name of the repo' }),
  team: Type.String({ description: 'team name' }),
});

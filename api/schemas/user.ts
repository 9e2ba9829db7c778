// Wire schemas for accounts: users, access tokens, organizations, teams, blocks and the
// two-factor extension (Gitea's modules/structs/user.go, user_app.go, admin_user.go, org.go,
// org_team.go). Response objects list every field in Gitea's order: Fastify's serializer keeps
// that order and drops anything not listed.
import Type from 'typebox';

/** A field Gitea sends as a JSON null when unset (a Go pointer). */
function nullable<T>(type: 'boolean' | 'string', extra: Record<string, unknown> = {}) {
  // `nullable` (not anyOf) so Ajv's type coercion cannot turn a null into false or "".
  return Type.Unsafe<T | null>({ type, nullable: true, 'x-nullable': true, ...extra });
}

export const ApiErrorBody = Type.Object(
  { message: Type.String(), url: Type.String() },
  { description: 'APIError: Gitea\'s error shape', additionalProperties: true },
);

export const Visibility = Type.Union([Type.Literal('public'), Type.Literal('limited'), Type.Literal('private')]);

export const User = Type.Object({
  id: Type.Integer(),
  login: Type.String(),
  login_name: Type.String({ description: 'admin/self only' }),
  source_id: Type.Integer({ description: 'admin/self only' }),
  full_name: Type.String(),
  email: Type.String({ description: 'the real address only for signed-in callers, unless kept private (admin/self always see it)' }),
  avatar_url: Type.String(),
  html_url: Type.String(),
  language: Type.String(),
  is_admin: Type.Boolean(),
  last_login: Type.String({ format: 'date-time' }),
  created: Type.String({ format: 'date-time' }),
  restricted: Type.Boolean(),
  active: Type.Boolean(),
  prohibit_login: Type.Boolean(),
  location: Type.String(),
  website: Type.String(),
  description: Type.String(),
  visibility: Type.String(),
  followers_count: Type.Integer(),
  following_count: Type.Integer(),
  starred_repos_count: Type.Integer(),
  username: Type.String({ description: 'compatibility alias of login' }),
}, { title: 'User' });

export const UserList = Type.Array(User);

export const CreateUserOption = Type.Object({
  username: Type.String(),
  email: Type.String(),
  password: Type.Optional(Type.String()),
  full_name: Type.Optional(Type.String()),
  login_name: Type.Optional(Type.String()),
  source_id: Type.Optional(Type.Integer()),
  must_change_password: Type.Optional(nullable<boolean>('boolean', { description: 'defaults to true when omitted or null, as in Gitea' })),
  send_notify: Type.Optional(Type.Boolean()),
  restricted: Type.Optional(nullable<boolean>('boolean')),
  visibility: Type.Optional(Type.String({ description: 'public, limited or private' })),
  created_at: Type.Optional(nullable<string>('string', { format: 'date-time', description: 'back-dates the account' })),
}, { title: 'CreateUserOption' });

export const UsernameParams = Type.Object({ username: Type.String({ description: 'username of the user' }) });

// ---- access tokens -------------------------------------------------------------------------

export const AccessToken = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  sha1: Type.String({ description: 'the token; only in the creation response, "" in lists' }),
  token_last_eight: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.String({ format: 'date-time' }),
}, { title: 'AccessToken' });

export const CreateAccessTokenOption = Type.Object({
  name: Type.String({ maxLength: 255 }),
  scopes: Type.Optional(Type.Array(Type.String(), { description: 'Gitea scope names, e.g. read:repository, write:issue, all, public-only' })),
}, { title: 'CreateAccessTokenOption' });

export const CurrentAccessToken = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.String({ format: 'date-time' }),
  user: Type.Object({ id: Type.Integer(), login: Type.String() }),
}, { title: 'CurrentAccessToken' });

export const TokenParams = Type.Object({
  username: Type.String({ description: 'username of user' }),
  token: Type.String({ description: 'token to be deleted, identified by ID and if not available by name' }),
});

// ---- organizations and teams ---------------------------------------------------------------

export const Organization = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  full_name: Type.String(),
  email: Type.String(),
  avatar_url: Type.String(),
  description: Type.String(),
  website: Type.String(),
  location: Type.String(),
  visibility: Type.String(),
  repo_admin_change_team_access: Type.Boolean(),
  username: Type.String({ description: 'deprecated alias of name' }),
}, { title: 'Organization' });

export const CreateOrgOption = Type.Object({
  username: Type.String(),
  full_name: Type.Optional(Type.String({ maxLength: 100 })),
  email: Type.Optional(Type.String({ maxLength: 255 })),
  description: Type.Optional(Type.String({ maxLength: 255 })),
  website: Type.Optional(Type.String({ maxLength: 255 })),
  location: Type.Optional(Type.String({ maxLength: 50 })),
  visibility: Type.Optional(Type.Union([Type.Literal(''), Visibility])),
  repo_admin_change_team_access: Type.Optional(Type.Boolean()),
}, { title: 'CreateOrgOption' });

export const OrgParams = Type.Object({ org: Type.String({ description: 'name of the organization' }) });

export const Team = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  organization: Type.Union([Organization, Type.Null()]),
  includes_all_repositories: Type.Boolean(),
  permission: Type.String({ description: 'none, read, write, admin or owner' }),
  units: Type.Array(Type.String()),
  units_map: Type.Record(Type.String(), Type.String()),
  can_create_org_repo: Type.Boolean(),
}, { title: 'Team' });

export const CreateTeamOption = Type.Object({
  name: Type.String({ maxLength: 255 }),
  description: Type.Optional(Type.String({ maxLength: 255 })),
  includes_all_repositories: Type.Optional(Type.Boolean()),
  permission: Type.Optional(Type.String({ maxLength: 16, description: 'read, write or admin; anything else gives the listed units no access, as in Gitea' })),
  units: Type.Optional(Type.Array(Type.String(), { description: 'deprecated: unit keys given the team permission' })),
  units_map: Type.Optional(Type.Record(Type.String(), Type.String())),
  can_create_org_repo: Type.Optional(Type.Boolean()),
}, { title: 'CreateTeamOption' });

export const TeamParams = Type.Object({ id: Type.Integer({ description: 'id of the team' }) });
export const TeamMemberParams = Type.Object({
  id: Type.Integer({ description: 'id of the team' }),
  username: Type.String({ description: 'username of the user' }),
});

// ---- blocks --------------------------------------------------------------------------------

export const BlockQuery = Type.Object({ note: Type.Optional(Type.String({ maxLength: 255, description: 'optional note for the block' })) });
export const OrgUserParams = Type.Object({
  org: Type.String({ description: 'name of the organization' }),
  username: Type.String({ description: 'username of the user' }),
});

// ---- two-factor (pullhost extension) -------------------------------------------------------

export const TotpEnrolment = Type.Object({
  otpauth_uri: Type.String({ description: 'scan into an authenticator app; shown once' }),
  secret: Type.String({ description: 'the same secret in base32, for manual entry; shown once' }),
}, { title: 'TotpEnrolment', description: 'pullhost extension' });

export const TotpConfirmOption = Type.Object({
  code: Type.String({ description: 'the current 6-digit code from the authenticator app' }),
}, { title: 'TotpConfirmOption', description: 'pullhost extension' });

export const TwoFactorStatus = Type.Object({
  totp_enabled: Type.Boolean(),
  totp_pending: Type.Boolean({ description: 'an enrolment awaits confirmation' }),
}, { title: 'TwoFactorStatus', description: 'pullhost extension' });

export const EmptyResponse = Type.Null({ description: 'no content' });

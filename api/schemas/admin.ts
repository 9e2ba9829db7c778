// Wire schemas of the site administration routes (Gitea's modules/structs/admin_user.go).
import Type from 'typebox';
import { formBool, formInt } from '../go-form.js';
import { PagingQuery } from '../paging.js';

/** A field Gitea decodes into a Go pointer: null is "not given". */
function pointer<T extends 'boolean' | 'string' | 'integer'>(type: T, extra: Record<string, unknown> = {}) {
  return Type.Optional(Type.Unsafe<(T extends 'boolean' ? boolean : T extends 'integer' ? number : string) | null>({ type, nullable: true, 'x-nullable': true, ...extra }));
}

export const EditUserOption = Type.Object({
  source_id: Type.Optional(Type.Integer({ description: 'only 0 (local accounts) exists here' })),
  login_name: Type.Optional(Type.String({ maxLength: 255, description: 'required, as in Gitea: the name the account signs in with at its login source' })),
  email: pointer('string', { maxLength: 254 }),
  full_name: pointer('string', { maxLength: 100 }),
  password: Type.Optional(Type.String({ maxLength: 255 })),
  must_change_password: pointer('boolean'),
  website: pointer('string', { maxLength: 255 }),
  location: pointer('string', { maxLength: 50 }),
  description: pointer('string', { maxLength: 255 }),
  active: pointer('boolean'),
  admin: pointer('boolean'),
  allow_git_hook: pointer('boolean', { description: 'stored; there are no server-side git hooks here' }),
  allow_import_local: pointer('boolean', { description: 'stored; there is no local import here' }),
  max_repo_creation: pointer('integer', { description: '-1: the instance default (unlimited); site admins are never limited' }),
  prohibit_login: pointer('boolean'),
  allow_create_organization: pointer('boolean'),
  restricted: pointer('boolean'),
  visibility: Type.Optional(Type.String({ maxLength: 64, description: 'public, limited or private' })),
}, { title: 'EditUserOption' });

export const AdminSearchUsersQuery = Type.Object({
  source_id: formInt('ID of the user\'s login source to search for'),
  login_name: Type.Optional(Type.String({ maxLength: 255, description: 'identifier of the user, provided by the external authenticator' })),
  ...PagingQuery,
  sort: Type.Optional(Type.String({ maxLength: 64, description: 'name, created, updated or id' })),
  order: Type.Optional(Type.String({ maxLength: 64, description: 'asc (default) or desc' })),
  q: Type.Optional(Type.String({ maxLength: 255, description: 'keyword in the name, full name or e-mail' })),
  visibility: Type.Optional(Type.String({ maxLength: 64, description: 'public, limited or private' })),
  is_active: formBool('only active (or inactive) users'),
  is_admin: formBool('only admins (or non-admins)'),
  is_restricted: formBool('only restricted (or unrestricted) users'),
  is_2fa_enabled: formBool('only users with (or without) two-factor authentication'),
  is_prohibit_login: formBool('only users who may not (or may) sign in'),
});

export const DeleteUserQuery = Type.Object({
  purge: formBool('also delete the user\'s repositories and organizations they are the last owner of'),
});

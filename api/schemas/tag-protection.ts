// Wire schemas of tag protection (modules/structs/repo_tag.go TagProtection and its options).
import Type from 'typebox';

const Names = Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000 });

export const TagProtection = Type.Object({
  id: Type.Integer(),
  name_pattern: Type.String(),
  whitelist_usernames: Type.Array(Type.String()),
  whitelist_teams: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'TagProtection' });

export const CreateTagProtectionOption = Type.Object({
  name_pattern: Type.Optional(Type.String({ maxLength: 255, description: 'a glob (`v*`), or a regular expression between slashes (`/^v[0-9]+$/`)' })),
  whitelist_usernames: Type.Optional(Names),
  whitelist_teams: Type.Optional(Names),
}, { title: 'CreateTagProtectionOption' });

export const EditTagProtectionOption = Type.Object({
  name_pattern: Type.Optional(Type.String({ maxLength: 255 })),
  whitelist_usernames: Type.Optional(Names),
  whitelist_teams: Type.Optional(Names),
}, { title: 'EditTagProtectionOption' });

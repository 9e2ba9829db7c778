// Wire schemas of the instance settings (Gitea's modules/structs/settings.go).
import Type from 'typebox';

export const GeneralUISettings = Type.Object({
  default_theme: Type.String(),
  allowed_reactions: Type.Array(Type.String()),
  custom_emojis: Type.Array(Type.String()),
}, { title: 'GeneralUISettings' });

export const GeneralRepoSettings = Type.Object({
  mirrors_disabled: Type.Boolean(),
  http_git_disabled: Type.Boolean(),
  migrations_disabled: Type.Boolean(),
  stars_disabled: Type.Boolean(),
  time_tracking_disabled: Type.Boolean(),
  lfs_disabled: Type.Boolean(),
}, { title: 'GeneralRepoSettings' });

export const GeneralAttachmentSettings = Type.Object({
  enabled: Type.Boolean(),
  allowed_types: Type.String(),
  max_size: Type.Integer(),
  max_files: Type.Integer(),
}, { title: 'GeneralAttachmentSettings' });

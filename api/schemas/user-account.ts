// Wire schemas of a user's own settings and e-mail addresses (modules/structs/user.go UserSettings,
// UserSettingsOptions; modules/structs/user_email.go Email, CreateEmailOption, DeleteEmailOption).
import Type from 'typebox';

// Plain strings without a minimum: "" passes, so it is a value (it clears the field), not "not given".
const SettingText = Type.String({ maxLength: 255 });

export const UserSettings = Type.Object({
  full_name: Type.String(),
  website: Type.String(),
  description: Type.String(),
  location: Type.String(),
  language: Type.String(),
  theme: Type.String(),
  diff_view_style: Type.String(),
  hide_email: Type.Boolean(),
  hide_activity: Type.Boolean(),
}, { title: 'UserSettings' });

export const UserSettingsOptions = Type.Object({
  full_name: Type.Optional(SettingText),
  website: Type.Optional(SettingText),
  description: Type.Optional(SettingText),
  location: Type.Optional(SettingText),
  language: Type.Optional(SettingText),
  theme: Type.Optional(SettingText),
  diff_view_style: Type.Optional(SettingText),
  hide_email: Type.Optional(Type.Boolean()),
  hide_activity: Type.Optional(Type.Boolean()),
}, { title: 'UserSettingsOptions' });

export const Email = Type.Object({
  email: Type.String({ format: 'email' }),
  verified: Type.Boolean(),
  primary: Type.Boolean(),
  user_id: Type.Integer(),
  username: Type.String(),
}, { title: 'Email' });

const Addresses = Type.Array(Type.String({ maxLength: 254 }), { maxItems: 100 });

export const CreateEmailOption = Type.Object({ emails: Type.Optional(Addresses) }, { title: 'CreateEmailOption' });
export const DeleteEmailOption = Type.Object({ emails: Type.Optional(Addresses) }, { title: 'DeleteEmailOption' });

// The page a user sees after signing in when an administrator required a new password.
import { escapeHtml, hidden, layout } from './layout.js';

export function changePasswordPage(options: { csrf: string; redirectTo: string; userName: string; error?: string | null }): string {
  return layout({ title: 'Update your password', userName: options.userName, csrf: options.csrf, error: options.error ?? null }, `
<p>An administrator asked you to choose a new password for <strong>${escapeHtml(options.userName)}</strong> before you continue.</p>
<form method="post" action="/user/settings/change_password">
${hidden('_csrf', options.csrf)}${hidden('redirect_to', options.redirectTo)}
<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="8" maxlength="255" required autofocus>
<label for="retype">Confirm the new password</label>
<input type="password" id="retype" name="retype" autocomplete="new-password" minlength="8" maxlength="255" required>
<p><button type="submit">Update password</button></p>
</form>`);
}

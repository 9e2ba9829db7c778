// The sign-in pages: username and password, then the TOTP code for accounts with 2FA.
import { escapeHtml, hidden, layout } from './layout.js';

export function signInPage(options: { csrf: string; redirectTo: string; userName?: string; error?: string | null }): string {
  return layout({ title: 'Sign in', error: options.error ?? null }, `
<form method="post" action="/user/login">
${hidden('_csrf', options.csrf)}${hidden('redirect_to', options.redirectTo)}
<label for="user_name">Username</label>
<input type="text" id="user_name" name="user_name" value="${escapeHtml(options.userName ?? '')}" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p>
</form>`);
}

export function twoFactorPage(options: { csrf: string; redirectTo: string; error?: string | null }): string {
  return layout({ title: 'Two-factor authentication', error: options.error ?? null }, `
<p>Open your authenticator app and enter the current code.</p>
<form method="post" action="/user/two_factor">
${hidden('_csrf', options.csrf)}${hidden('redirect_to', options.redirectTo)}
<label for="passcode">Authentication code</label>
<input type="text" id="passcode" name="passcode" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required autofocus>
<p><button type="submit">Verify</button></p>
</form>`);
}

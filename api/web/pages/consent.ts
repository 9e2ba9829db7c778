// The OAuth2 consent page: which application asks, for what, and where it will send the user.
import type { OAuth2ApplicationRow } from '../../../db/oauth2.js';
import { AUTHORIZE_PARAM_NAMES, type AuthorizeParams } from '../../../core/oauth2/grants.js';
import { escapeHtml, hidden, layout } from './layout.js';

export function consentPage(options: { userName: string; csrf: string; app: OAuth2ApplicationRow; params: AuthorizeParams }): string {
  const { app, params } = options;
  const fields = AUTHORIZE_PARAM_NAMES.map((name) => hidden(name, params[name])).join('');
  const scope = params.scope.trim() === '' ? 'full access to your account' : params.scope;
  return layout({ title: 'Authorize application', userName: options.userName, csrf: options.csrf }, `
<p><strong>${escapeHtml(app.name)}</strong> would like to access your account <strong>${escapeHtml(options.userName)}</strong>.</p>
<p>Requested scope: <code>${escapeHtml(scope)}</code></p>
<p class="muted">You will be sent back to <code>${escapeHtml(params.redirect_uri)}</code>.</p>
<form method="post" action="/login/oauth/grant">
${hidden('_csrf', options.csrf)}${fields}
<p><button type="submit" name="granted" value="true">Authorize Application</button>
<button type="submit" name="granted" value="false" class="secondary">Cancel</button></p>
</form>`);
}

// Settings → Applications: personal access tokens (generate, list, delete) and the OAuth2
// applications the user has authorised (revoke).
import { SCOPE_CATEGORIES } from '../../../core/auth/scopes.js';
import type { AccessTokenRow } from '../../../db/tokens.js';
import type { AuthorisedApplication } from '../../../core/oauth2/grants.js';
import { unixToIso } from '../../../db/time.js';
import { escapeHtml, hidden, layout } from './layout.js';

export interface ApplicationsPageData {
  userName: string;
  csrf: string;
  tokens: AccessTokenRow[];
  authorised: AuthorisedApplication[];
  /** A token value just generated: shown this once. */
  newToken?: { name: string; value: string } | null;
  error?: string | null;
  notice?: string | null;
  /** What the generate form had, to keep it after an error. */
  draft?: { name: string; scopes: string[] };
}

function scopeFieldset(selected: ReadonlySet<string>): string {
  const box = (scope: string) => {
    const id = `scope-${scope.replace(/[^a-z-]/g, '-')}`;
    return `<input type="checkbox" id="${escapeHtml(id)}" name="scope" value="${escapeHtml(scope)}"${selected.has(scope) ? ' checked' : ''}><label for="${escapeHtml(id)}">${escapeHtml(scope)}</label>`;
  };
  const rows = SCOPE_CATEGORIES.map((c) => `<tr><th scope="row">${escapeHtml(c)}</th><td>${box(`read:${c}`)}</td><td>${box(`write:${c}`)}</td></tr>`).join('\n');
  return `<fieldset>
<legend>Scopes</legend>
<p>${box('all')} ${box('public-only')}</p>
<table><thead><tr><th scope="col">Category</th><th scope="col">Read</th><th scope="col">Write</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</fieldset>`;
}

function tokenTable(tokens: AccessTokenRow[], csrf: string): string {
  if (tokens.length === 0) return '<p class="muted">You have no access tokens.</p>';
  const rows = tokens.map((t) => `<tr>
<td>${escapeHtml(t.name)}</td><td><code>…${escapeHtml(t.token_last_eight)}</code></td><td>${escapeHtml(t.scope.split(',').join(', '))}</td>
<td>${escapeHtml(unixToIso(t.created_unix))}</td>
<td><form class="inline" method="post" action="/user/settings/applications/delete">${hidden('_csrf', csrf)}${hidden('id', String(t.id))}<button type="submit" class="danger" aria-label="Delete token ${escapeHtml(t.name)}">Delete</button></form></td>
</tr>`).join('\n');
  return `<table><thead><tr><th scope="col">Name</th><th scope="col">Ends with</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

function authorisedTable(authorised: AuthorisedApplication[], csrf: string): string {
  if (authorised.length === 0) return '<p class="muted">You have not authorised any OAuth2 application.</p>';
  const rows = authorised.map(({ grant, app }) => `<tr>
<td>${escapeHtml(app.name)}</td><td>${escapeHtml(grant.scope || '(all)')}</td><td>${escapeHtml(unixToIso(grant.created_unix))}</td>
<td><form class="inline" method="post" action="/user/settings/applications/oauth2/revoke">${hidden('_csrf', csrf)}${hidden('grant_id', String(grant.id))}<button type="submit" class="danger" aria-label="Revoke access of ${escapeHtml(app.name)}">Revoke</button></form></td>
</tr>`).join('\n');
  return `<table><thead><tr><th scope="col">Application</th><th scope="col">Scope</th><th scope="col">Authorised</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

export function applicationsPage(data: ApplicationsPageData): string {
  const created = data.newToken
    ? `<section class="notice" aria-labelledby="new-token-heading"><h2 id="new-token-heading">New token “${escapeHtml(data.newToken.name)}”</h2>
<p>Copy it now: it will not be shown again.</p><code class="secret" id="new-token-value">${escapeHtml(data.newToken.value)}</code></section>`
    : '';
  return layout({ title: 'Applications', userName: data.userName, csrf: data.csrf, error: data.error ?? null, notice: data.notice ?? null }, `
${created}
<h2 id="tokens-heading">Access tokens</h2>
${tokenTable(data.tokens, data.csrf)}
<h2 id="generate-heading">Generate New Token</h2>
<form method="post" action="/user/settings/applications" aria-labelledby="generate-heading">
${hidden('_csrf', data.csrf)}
<label for="token-name">Token name</label>
<input type="text" id="token-name" name="name" value="${escapeHtml(data.draft?.name ?? '')}" required maxlength="255">
${scopeFieldset(new Set(data.draft?.scopes ?? []))}
<p><button type="submit">Generate Token</button></p>
</form>
<h2 id="authorised-heading">Authorised OAuth2 applications</h2>
${authorisedTable(data.authorised, data.csrf)}`);
}

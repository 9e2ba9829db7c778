// The token endpoint's rules (RFC 6749 §4.1.3, §6; Gitea's services/oauth2_provider/access_token.go):
// client authentication, the authorization_code grant (single-use, short-lived codes, exact
// redirect URI, PKCE) and the refresh_token grant with rotation and reuse detection.
import type { Knex } from 'knex';
import { hashToken, safeEqualHex } from '../auth/tokens.js';
import { nowUnix } from '../../db/time.js';
import { oauth2Store, type OAuth2ApplicationRow, type OAuth2GrantRow } from '../../db/oauth2.js';
import { USER_TYPE, usersStore } from '../../db/users.js';
import { clientSecretMatches } from './applications.js';
import { OAuth2Error, UNSUPPORTED_GRANT_TYPE_DESCRIPTION } from './errors.js';
import { verifyPkce } from './pkce.js';
import { issueTokens, readGrantToken, TOKEN_TYPE, type ProviderContext, type TokenResponse } from './tokens.js';

export interface TokenEndpointDeps extends ProviderContext {
  db: Knex;
  serverKey: Buffer;
}

export interface BasicClientCredentials {
  clientId: string;
  clientSecret: string;
}

function field(form: Record<string, unknown>, name: string): string {
  const value = form[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : '';
  return typeof value === 'string' ? value : '';
}

/** Client credentials from the form, from Basic, or both; when both are given they must agree. */
async function authenticateClient(deps: TokenEndpointDeps, form: Record<string, unknown>, basic: BasicClientCredentials | null): Promise<OAuth2ApplicationRow> {
  let clientId = field(form, 'client_id');
  let clientSecret = field(form, 'client_secret');
  if (basic) {
    if (clientId !== '' && !safeEqualHex(clientId, basic.clientId)) {
      throw new OAuth2Error('invalid_client', 'client_id in request body inconsistent with Authorization header');
    }
    if (clientSecret !== '' && !safeEqualHex(clientSecret, basic.clientSecret)) {
      throw new OAuth2Error('invalid_client', 'client_secret in request body inconsistent with Authorization header');
    }
    clientId = basic.clientId;
    clientSecret = basic.clientSecret;
  }
  if (clientId === '') throw new OAuth2Error('invalid_request', 'client_id is required');
  const app = await oauth2Store(deps.db).applicationByClientId(clientId);
  if (!app) throw new OAuth2Error('invalid_client', `cannot load client with client id: '${clientId}'`);
  // A public client has no secret to prove; one that sends a secret anyway must send the right one.
  if ((app.confidential_client || clientSecret !== '') && !clientSecretMatches(app, clientSecret, deps.serverKey)) {
    throw new OAuth2Error('invalid_client', 'invalid client secret');
  }
  return app;
}

async function tokensFor(deps: TokenEndpointDeps, grant: OAuth2GrantRow, app: OAuth2ApplicationRow): Promise<TokenResponse> {
  const user = await usersStore(deps.db).byId(grant.user_id);
  if (!user || user.type !== USER_TYPE.user || !user.is_active || user.prohibit_login) {
    throw new OAuth2Error('invalid_grant', 'the user of this grant cannot sign in');
  }
  return issueTokens(deps, grant, app, user);
}

async function authorizationCodeGrant(deps: TokenEndpointDeps, form: Record<string, unknown>, app: OAuth2ApplicationRow): Promise<TokenResponse> {
  const code = field(form, 'code');
  const redirectUri = field(form, 'redirect_uri');
  if (code === '') throw new OAuth2Error('invalid_request', 'code is required');
  if (redirectUri === '') throw new OAuth2Error('invalid_request', 'redirect_uri is required');
  const store = oauth2Store(deps.db);
  const row = await store.codeByHash(hashToken(code, deps.serverKey));
  if (!row || !safeEqualHex(row.code_hash, hashToken(code, deps.serverKey))) throw new OAuth2Error('invalid_grant', 'client is not authorized');
  const grant = await store.grantById(row.grant_id);
  if (!grant || grant.application_id !== app.id) throw new OAuth2Error('invalid_grant', 'client is not authorized');
  if (row.used) {
    // RFC 6749 §4.1.2: a replayed code may be stolen; revoke what was issued with it.
    await store.deleteGrant(grant.id);
    throw new OAuth2Error('invalid_grant', 'authorization code has already been used');
  }
  if (row.valid_until < nowUnix()) throw new OAuth2Error('invalid_grant', 'authorization code has expired');
  if (row.redirect_uri !== redirectUri) throw new OAuth2Error('invalid_grant', 'redirect_uri does not match the authorization request');
  // Gitea answers unauthorized_client here; RFC 7636 §4.6 says invalid_grant, which we follow.
  if (!verifyPkce(row.code_challenge, row.code_challenge_method, field(form, 'code_verifier') || undefined)) {
    throw new OAuth2Error('invalid_grant', 'failed PKCE code challenge');
  }
  if (!(await store.claimCode(row.id))) {
    await store.deleteGrant(grant.id);
    throw new OAuth2Error('invalid_grant', 'authorization code has already been used');
  }
  return tokensFor(deps, grant, app);
}

async function refreshTokenGrant(deps: TokenEndpointDeps, form: Record<string, unknown>, app: OAuth2ApplicationRow): Promise<TokenResponse> {
  const presented = field(form, 'refresh_token');
  if (presented === '') throw new OAuth2Error('invalid_request', 'refresh_token is required');
  const claims = await readGrantToken(deps, presented);
  if (!claims || claims.type !== TOKEN_TYPE.refresh) throw new OAuth2Error('invalid_grant', 'unable to parse refresh token');
  const store = oauth2Store(deps.db);
  const grant = await store.grantById(claims.grantId);
  if (!grant) throw new OAuth2Error('invalid_grant', 'grant does not exist');
  if (grant.application_id !== app.id) throw new OAuth2Error('invalid_grant', 'client is not authorized');
  // Rotation: each refresh token works once. An older counter means a copy is being replayed, by
  // the client or by a thief; either way nobody can tell which is which, so the grant ends.
  if (claims.counter !== grant.counter || !(await store.advanceCounter(grant.id, grant.counter))) {
    await store.deleteGrant(grant.id);
    throw new OAuth2Error('invalid_grant', 'token was already used');
  }
  return tokensFor(deps, { ...grant, counter: grant.counter + 1 }, app);
}

/** One token request; throws OAuth2Error for every refusal. */
export async function handleTokenRequest(deps: TokenEndpointDeps, form: Record<string, unknown>, basic: BasicClientCredentials | null): Promise<TokenResponse> {
  const grantType = field(form, 'grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuth2Error('unsupported_grant_type', UNSUPPORTED_GRANT_TYPE_DESCRIPTION);
  }
  const app = await authenticateClient(deps, form, basic);
  return grantType === 'authorization_code' ? authorizationCodeGrant(deps, form, app) : refreshTokenGrant(deps, form, app);
}

/** Client authentication alone (the introspection endpoint). */
export async function authenticateClientOnly(deps: TokenEndpointDeps, form: Record<string, unknown>, basic: BasicClientCredentials | null): Promise<OAuth2ApplicationRow> {
  return authenticateClient(deps, form, basic);
}

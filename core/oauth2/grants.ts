// The authorization side of the provider: checking an authorization request (client, exact redirect
// URI, response type, PKCE parameters), recording the user's consent as a grant, minting the
// single-use code, revoking grants, and verifying access tokens for the API.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { hashToken } from '../auth/tokens.js';
import { scopesFromOAuthGrant } from '../auth/scopes.js';
import type { OAuth2Grant } from '../authenticate.js';
import { nowUnix } from '../../db/time.js';
import { oauth2Store, type OAuth2ApplicationRow, type OAuth2GrantRow } from '../../db/oauth2.js';
import { hasRedirectUri } from './applications.js';
import { isCodeChallengeMethod } from './pkce.js';
import { readGrantToken, TOKEN_TYPE, type ProviderContext } from './tokens.js';

/** Codes are short-lived (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const CODE_LIFETIME_SECONDS = 600;

export interface AuthorizeParams {
  client_id: string;
  redirect_uri: string;
  response_type: string;
  state: string;
  scope: string;
  nonce: string;
  code_challenge: string;
  code_challenge_method: string;
}

export const AUTHORIZE_PARAM_NAMES: ReadonlyArray<keyof AuthorizeParams> = [
  'client_id', 'redirect_uri', 'response_type', 'state', 'scope', 'nonce', 'code_challenge', 'code_challenge_method',
];

export function readAuthorizeParams(source: Record<string, unknown> | undefined): AuthorizeParams {
  const out = {} as AuthorizeParams;
  for (const name of AUTHORIZE_PARAM_NAMES) {
    const value = source?.[name];
    out[name] = typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : '';
  }
  return out;
}

export type AuthorizeCheck =
  /** The client or redirect URI cannot be trusted: show an error page, never redirect. */
  | { kind: 'error-page'; message: string }
  /** A trusted redirect URI exists: the error goes back to the client (with `state`). */
  | { kind: 'error-redirect'; location: string }
  | { kind: 'ok'; app: OAuth2ApplicationRow; params: AuthorizeParams };

/** `redirectUri` with the parameters added to its query (keeping its own). */
export function redirectWith(redirectUri: string, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== '') url.searchParams.set(name, value);
  return url.toString();
}

export async function checkAuthorizeRequest(db: Knex, params: AuthorizeParams): Promise<AuthorizeCheck> {
  const app = params.client_id ? await oauth2Store(db).applicationByClientId(params.client_id) : undefined;
  if (!app) return { kind: 'error-page', message: 'Client ID not registered' };
  if (!hasRedirectUri(app, params.redirect_uri)) return { kind: 'error-page', message: 'Unregistered Redirect URI' };
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: 'error-redirect',
    location: redirectWith(params.redirect_uri, { error, error_description: description, state: params.state }),
  });
  if (params.response_type !== 'code') return fail('unsupported_response_type', 'Only code response type is supported.');
  if (params.code_challenge_method !== '' && !isCodeChallengeMethod(params.code_challenge_method)) {
    return fail('invalid_request', 'unsupported code challenge method');
  }
  // A public client cannot keep a secret, so the code alone must not be enough (Gitea's rule).
  if (!app.confidential_client && params.code_challenge === '') return fail('invalid_request', 'PKCE is required for public clients');
  return { kind: 'ok', app, params };
}

/** Gitea skips the consent page for trusted apps, and for confidential apps the user already granted. */
export async function consentNeeded(db: Knex, app: OAuth2ApplicationRow, userId: number): Promise<boolean> {
  if (app.skip_secondary_authorization) return false;
  if (!app.confidential_client) return true;
  return !(await oauth2Store(db).grantFor(userId, app.id));
}

/**
 * Records consent (the grant keeps the latest requested scope and nonce) and answers the
 * redirect location carrying a fresh code and the client's `state`.
 */
export async function grantAuthorization(db: Knex, serverKey: Buffer, userId: number, app: OAuth2ApplicationRow, params: AuthorizeParams): Promise<string> {
  const store = oauth2Store(db);
  let grant = await store.grantFor(userId, app.id);
  if (grant) await store.updateGrantScope(grant.id, params.scope, params.nonce);
  else grant = await store.insertGrant(userId, app.id, params.scope, params.nonce);
  const code = randomBytes(32).toString('base64url');
  const now = nowUnix();
  await store.deleteExpiredCodes(now);
  await store.insertCode({
    grant_id: grant.id,
    code_hash: hashToken(code, serverKey),
    code_challenge: params.code_challenge,
    code_challenge_method: params.code_challenge === '' ? '' : params.code_challenge_method || 'plain',
    redirect_uri: params.redirect_uri,
    valid_until: now + CODE_LIFETIME_SECONDS,
  });
  return redirectWith(params.redirect_uri, { code, state: params.state });
}

export interface AuthorisedApplication {
  grant: OAuth2GrantRow;
  app: OAuth2ApplicationRow;
}

/** The applications a user has authorised (Settings → Applications). */
export async function authorisedApplications(db: Knex, userId: number): Promise<AuthorisedApplication[]> {
  const store = oauth2Store(db);
  const grants = await store.grantsOfUser(userId);
  const apps = await store.applicationsByIds(grants.map((g) => g.application_id));
  return grants.flatMap((grant) => {
    const app = apps.get(grant.application_id);
    return app ? [{ grant, app }] : [];
  });
}

/** Revokes one of the user's grants; false when it is not theirs or already gone. */
export async function revokeGrant(db: Knex, userId: number, grantId: number): Promise<boolean> {
  if (!Number.isSafeInteger(grantId) || grantId <= 0) return false;
  return oauth2Store(db).deleteGrant(grantId, userId);
}

/**
 * The verifier the API's auth plugin calls for JWT-shaped credentials: a valid access token whose
 * grant still exists (revoking the grant or deleting the application ends every token of it).
 */
export async function verifyAccessToken(db: Knex, ctx: ProviderContext, token: string): Promise<(OAuth2Grant & { grant: OAuth2GrantRow }) | null> {
  const claims = await readGrantToken(ctx, token);
  if (!claims || claims.type !== TOKEN_TYPE.access) return null;
  const grant = await oauth2Store(db).grantById(claims.grantId);
  if (!grant) return null;
  return { userId: grant.user_id, scopes: scopesFromOAuthGrant(grant.scope), grant };
}

// JWT access, refresh and id tokens of the provider, with Gitea's claims (`gnt` grant id, `tt` token
// type, `cnt` refresh counter), signed RS256 with the key from keys.ts; `kid` names the key.
import { SignJWT, jwtVerify } from 'jose';
import type { OAuth2ApplicationRow, OAuth2GrantRow } from '../../db/oauth2.js';
import type { UserRow } from '../../db/users.js';
import { JWT_ALGORITHM, signingKey } from './keys.js';

/** Gitea's ACCESS_TOKEN_EXPIRATION_TIME and REFRESH_TOKEN_EXPIRATION_TIME defaults. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 730 * 3600;

export const TOKEN_TYPE = { access: 0, refresh: 1 } as const;

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  id_token?: string;
}

export interface ProviderContext {
  /** Where the key file lives. */
  dataPath: string;
  /** The issuer (APP_URL, with its trailing slash, as Gitea uses setting.AppURL). */
  appUrl: string;
}

export interface GrantToken {
  grantId: number;
  type: number;
  counter: number;
  expiresAt: number;
  issuedAt: number;
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

async function sign(ctx: ProviderContext, claims: Record<string, unknown>, expiresAt: number): Promise<string> {
  const key = await signingKey(ctx.dataPath);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: JWT_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setIssuedAt()
    .setNotBefore(nowSeconds() - 1)
    .setExpirationTime(expiresAt)
    .sign(key.privateKey);
}

export function hasOpenIdScope(scope: string): boolean {
  return scope.split(' ').includes('openid');
}

/** The OIDC identity claims the granted scopes allow (profile, email). */
export function identityClaims(user: UserRow, scope: string, appUrl: string): Record<string, unknown> {
  const scopes = new Set(scope.split(' '));
  const claims: Record<string, unknown> = { sub: String(user.id) };
  if (scopes.has('profile')) {
    Object.assign(claims, {
      name: user.full_name || user.name,
      preferred_username: user.name,
      profile: `${appUrl}${encodeURIComponent(user.name)}`,
      website: user.website,
      locale: '',
      updated_at: user.updated_unix,
    });
  }
  if (scopes.has('email') && !user.keep_email_private) Object.assign(claims, { email: user.email, email_verified: true });
  return claims;
}

/** A fresh pair for the grant's current counter (and an id token when `openid` was granted). */
export async function issueTokens(ctx: ProviderContext, grant: OAuth2GrantRow, app: OAuth2ApplicationRow, user: UserRow): Promise<TokenResponse> {
  const now = nowSeconds();
  const accessToken = await sign(ctx, { gnt: grant.id, tt: TOKEN_TYPE.access }, now + ACCESS_TOKEN_SECONDS);
  const refreshToken = await sign(ctx, { gnt: grant.id, tt: TOKEN_TYPE.refresh, cnt: grant.counter }, now + REFRESH_TOKEN_SECONDS);
  const response: TokenResponse = { access_token: accessToken, token_type: 'bearer', expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refreshToken };
  if (hasOpenIdScope(grant.scope)) {
    const claims: Record<string, unknown> = { ...identityClaims(user, grant.scope, ctx.appUrl), iss: ctx.appUrl, aud: app.client_id };
    if (grant.nonce) claims.nonce = grant.nonce;
    response.id_token = await sign(ctx, claims, now + ACCESS_TOKEN_SECONDS);
  }
  return response;
}

/** The claims of a token signed by this server and not expired, or null. */
export async function readGrantToken(ctx: ProviderContext, token: string): Promise<GrantToken | null> {
  const key = await signingKey(ctx.dataPath);
  try {
    const { payload } = await jwtVerify(token, key.publicKey, { algorithms: [JWT_ALGORITHM] });
    const grantId = Number(payload.gnt);
    const type = Number(payload.tt);
    if (!Number.isSafeInteger(grantId) || grantId <= 0 || !Number.isInteger(type)) return null;
    return { grantId, type, counter: Number(payload.cnt ?? 0), expiresAt: Number(payload.exp), issuedAt: Number(payload.iat) };
  } catch {
    return null; // bad signature, expired, malformed: all simply "not a valid token"
  }
}

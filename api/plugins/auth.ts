// The authentication hook: runs first on every route registered after it, and leaves
// `request.doer` and `request.auth` (api/request-context.ts) for the handlers. In Gitea's order:
// credentials (401/429), account state (403), sudo (403/404), the route's token scope (403), and
// for token endpoints Basic password authentication only (401).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Services } from '../services.js';
import type { AuthInfo } from '../request-context.js';
import { ForbiddenError, UnauthorizedError } from '../../core/errors.js';
import { otpFromHeaders, parseCredentials } from '../../core/auth/credentials.js';
import { AUTH_REQUIRED_MESSAGE, QUERY_TOKEN_WARNING, TOKEN_REQUIRED_MESSAGE } from '../../core/auth/messages.js';
import { checkTokenScopes, type ScopeCategory } from '../../core/auth/scopes.js';
import { LoginThrottle } from '../../core/auth/throttle.js';
import { loginThrottleStore } from '../../db/login-throttle.js';
import {
  assertAccountUsable,
  authenticateCredentials,
  resolveSudo,
  type AuthenticationDeps,
  type OAuth2Grant,
} from '../../core/authenticate.js';
import type { UserRow } from '../../db/users.js';

/** Verifies an OAuth2 access token (a JWT) for the app whose services are given. */
export type OAuth2Verifier = (token: string, services: Services) => Promise<OAuth2Grant | null>;

let oauth2Verifier: OAuth2Verifier | null = null;

declare module 'fastify' {
  interface FastifyInstance {
    /** The one failed-login throttle of the app, shared with the web sign-in (api/web). */
    loginThrottle: LoginThrottle;
  }
  interface FastifyContextConfig {
    /** Web pages and OAuth2 endpoints: they authenticate on their own (session cookie, client credentials). */
    webAuth?: boolean;
  }
}

/**
 * Installed by the OAuth2 provider. Until then (or after `setOAuth2Verifier(null)`) a JWT-shaped
 * bearer token, in a header, the query or Basic auth, is answered 401 like any invalid token.
 */
export function setOAuth2Verifier(verifier: OAuth2Verifier | null): void {
  oauth2Verifier = verifier;
}

/** The signed-in doer, or Gitea's 401 `token is required` (reqToken) for anonymous requests. */
export function requireSignedIn(request: FastifyRequest): UserRow {
  if (!request.doer) throw new UnauthorizedError(TOKEN_REQUIRED_MESSAGE);
  return request.doer;
}

/** Gitea's reqSiteAdmin: 401 when anonymous, 403 for everybody but site administrators. */
export function requireSiteAdmin(request: FastifyRequest): UserRow {
  const doer = requireSignedIn(request);
  if (!doer.is_admin) throw new ForbiddenError('user should be the site admin');
  return doer;
}

function firstString(value: unknown): string {
  if (Array.isArray(value)) return firstString(value[0]);
  return typeof value === 'string' ? value : '';
}

/** `?sudo=` wins over the `Sudo:` header, as in Gitea. */
function sudoNameOf(request: FastifyRequest): string {
  const query = request.query as Record<string, unknown> | undefined;
  return firstString(query?.sudo) || firstString(request.headers.sudo);
}

function routeScopes(request: FastifyRequest): readonly ScopeCategory[] {
  const scope = request.routeOptions.config?.scope;
  if (scope === undefined) return [];
  return Array.isArray(scope) ? scope : [scope as ScopeCategory];
}

function anonymousAuth(): AuthInfo {
  return { method: 'none', scopes: null, tokenId: null, actualUser: null, publicOnly: false };
}

async function authPluginBody(app: FastifyInstance): Promise<void> {
  const services = app.services;
  const { db, secretKey, config } = services;
  const throttle = new LoginThrottle(loginThrottleStore(db));
  app.decorate('loginThrottle', throttle);
  const deps: AuthenticationDeps = {
    db,
    secretKey,
    throttle,
    passwordChecksInFlight: new Map(),
    // Looked up per call so a verifier installed after the app was built still applies.
    oauth2: (token) => (oauth2Verifier ? oauth2Verifier(token, services) : Promise.resolve(null)),
    onBackgroundError: (err) => app.log.warn({ err }, 'could not record access token use'),
  };

  app.decorateRequest('doer', null);
  app.decorateRequest('auth', null as unknown as AuthInfo);

  app.addHook('onRequest', async (request, reply) => {
    request.doer = null;
    request.auth = anonymousAuth();
    if (request.routeOptions.config?.webAuth) return;
    const query = request.query as Record<string, unknown> | undefined;
    // Gitea warns whenever a query token is sent, valid or not.
    if (query && (query.token !== undefined || query.access_token !== undefined)) reply.header('x-gitea-warning', QUERY_TOKEN_WARNING);

    const credentials = parseCredentials({ authorization: request.headers.authorization, query });
    const result = await authenticateCredentials(deps, credentials, { otp: otpFromHeaders(request.headers), ip: request.ip });
    if (result.user) assertAccountUsable(result.user, config.APP_URL, !request.url.startsWith('/api/') && /^git\//i.test(request.headers['user-agent'] ?? ''));

    const sudoName = sudoNameOf(request);
    const doer = sudoName ? await resolveSudo(db, result.user, sudoName) : result.user;

    let publicOnly = false;
    if (result.scopes) {
      const check = checkTokenScopes(result.scopes, request.method, routeScopes(request));
      if (!check.allowed) throw new ForbiddenError(check.message);
      publicOnly = check.publicOnly;
    }
    // Token endpoints: a token (in any form) cannot mint or list tokens (Gitea's reqBasicOrRevProxyAuth).
    if (request.routeOptions.config?.basicAuthOnly && result.method !== 'password') {
      throw new UnauthorizedError(AUTH_REQUIRED_MESSAGE);
    }

    request.doer = doer;
    request.auth = { method: result.method, scopes: result.scopes, tokenId: result.tokenId, actualUser: result.user, publicOnly };
  });
}

export const authPlugin = fp(authPluginBody, { name: 'pullhost-auth' });

// The OAuth2 provider's web endpoints (Gitea's routers/web/auth/oauth2_provider.go): authorize and
// consent, the token endpoint, JWKS, discovery, userinfo and introspection. Registered inside the
// web plugin (api/web/index.ts), which brings the cookie and form parsers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuth2Error } from '../../core/oauth2/errors.js';
import {
  checkAuthorizeRequest,
  consentNeeded,
  grantAuthorization,
  readAuthorizeParams,
  redirectWith,
  verifyAccessToken,
} from '../../core/oauth2/grants.js';
import { jwks } from '../../core/oauth2/keys.js';
import { CODE_CHALLENGE_METHODS } from '../../core/oauth2/pkce.js';
import { authenticateClientOnly, handleTokenRequest, type BasicClientCredentials, type TokenEndpointDeps } from '../../core/oauth2/token-endpoint.js';
import { hasOpenIdScope, identityClaims, readGrantToken, type ProviderContext } from '../../core/oauth2/tokens.js';
import { oauth2Store } from '../../db/oauth2.js';
import { USER_TYPE, usersStore } from '../../db/users.js';
import { setOAuth2Verifier } from '../plugins/auth.js';
import type { Services } from '../services.js';
import { csrfToken } from '../web/csrf.js';
import { consentPage } from '../web/pages/consent.js';
import { errorPage } from '../web/pages/layout.js';
import { csrfRejected, formOf, sendHtml, text, toSignIn } from '../web/routes.js';
import { loadSession } from '../web/session.js';

export function providerContext(services: Services): ProviderContext {
  return { dataPath: services.config.APP_DATA_PATH, appUrl: services.config.APP_URL };
}

/** Installs the JWT verifier into the API's auth plugin (idempotent; one verifier serves every app). */
export function installOAuth2Verifier(): void {
  setOAuth2Verifier(async (token, services) => verifyAccessToken(services.db, providerContext(services), token));
}

/** RFC 6749 §2.3.1: Basic credentials are form-encoded before base64. */
function basicClient(request: FastifyRequest): BasicClientCredentials | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const [scheme, value] = header.split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !value) return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
}

function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const [scheme, value, extra] = header.split(' ');
  if (extra !== undefined || !value) return null;
  const s = scheme?.toLowerCase();
  return s === 'bearer' || s === 'token' ? value : null;
}

function sendOAuth2Error(reply: FastifyReply, err: OAuth2Error, viaBasic: boolean): FastifyReply {
  // RFC 6749 §5.2: a client that tried Basic and failed gets 401 and a challenge.
  const status = err.code === 'invalid_client' && viaBasic ? 401 : 400;
  if (status === 401) reply.header('www-authenticate', 'Basic realm="pullhost"');
  return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(err.body()));
}

export async function oauth2ProviderRoutes(app: FastifyInstance): Promise<void> {
  const services = app.services;
  const { db, secretKey, config } = services;
  const ctx = providerContext(services);
  const deps: TokenEndpointDeps = { ...ctx, db, serverKey: secretKey };
  const webAuth = { webAuth: true };
  installOAuth2Verifier();

  app.get('/login/oauth/authorize', { config: webAuth }, async (request, reply) => {
    const session = await loadSession(request, services);
    if (!session?.user) return toSignIn(reply, request.url);
    const check = await checkAuthorizeRequest(db, readAuthorizeParams(request.query as Record<string, unknown>));
    if (check.kind === 'error-page') return sendHtml(reply, 400, errorPage('Authorization failed', check.message));
    if (check.kind === 'error-redirect') return reply.redirect(check.location, 303);
    if (!(await consentNeeded(db, check.app, session.user.id))) {
      return reply.redirect(await grantAuthorization(db, secretKey, session.user.id, check.app, check.params), 303);
    }
    return sendHtml(reply, 200, consentPage({ userName: session.user.name, csrf: csrfToken(session, secretKey), app: check.app, params: check.params }));
  });

  app.post('/login/oauth/grant', { config: webAuth }, async (request, reply) => {
    const session = await loadSession(request, services);
    if (csrfRejected(request, reply, session)) return reply;
    if (!session?.user) return toSignIn(reply, '/user/settings/applications');
    const form = formOf(request);
    // The form is ours, but its hidden fields came back through the browser: check them again.
    const check = await checkAuthorizeRequest(db, readAuthorizeParams(form));
    if (check.kind === 'error-page') return sendHtml(reply, 400, errorPage('Authorization failed', check.message));
    if (check.kind === 'error-redirect') return reply.redirect(check.location, 303);
    if (text(form, 'granted') !== 'true') {
      return reply.redirect(redirectWith(check.params.redirect_uri, { error: 'access_denied', error_description: 'the request is denied', state: check.params.state }), 303);
    }
    return reply.redirect(await grantAuthorization(db, secretKey, session.user.id, check.app, check.params), 303);
  });

  app.post('/login/oauth/access_token', { config: webAuth }, async (request, reply) => {
    const basic = basicClient(request);
    try {
      const tokens = await handleTokenRequest(deps, formOf(request), basic);
      return reply.code(200).headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(tokens);
    } catch (err) {
      if (err instanceof OAuth2Error) return sendOAuth2Error(reply, err, basic !== null);
      throw err;
    }
  });

  app.get('/login/oauth/keys', { config: webAuth }, async () => jwks(config.APP_DATA_PATH));

  app.get('/.well-known/openid-configuration', { config: webAuth }, async () => ({
    issuer: config.APP_URL,
    authorization_endpoint: `${config.APP_URL}login/oauth/authorize`,
    token_endpoint: `${config.APP_URL}login/oauth/access_token`,
    jwks_uri: `${config.APP_URL}login/oauth/keys`,
    userinfo_endpoint: `${config.APP_URL}login/oauth/userinfo`,
    introspection_endpoint: `${config.APP_URL}login/oauth/introspect`,
    response_types_supported: ['code'],
    id_token_signing_alg_values_supported: ['RS256'],
    subject_types_supported: ['public'],
    scopes_supported: ['openid', 'profile', 'email'],
    claims_supported: ['aud', 'exp', 'iat', 'iss', 'sub', 'name', 'preferred_username', 'profile', 'website', 'locale', 'updated_at', 'email', 'email_verified'],
    code_challenge_methods_supported: [...CODE_CHALLENGE_METHODS].reverse(),
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
  }));

  // RFC 6750 §3: userinfo answers only an access token whose grant includes `openid`.
  const userinfo = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearerOf(request);
    const verified = token ? await verifyAccessToken(db, ctx, token) : null;
    const user = verified ? await usersStore(db).byId(verified.userId) : undefined;
    if (!verified || !user || user.type !== USER_TYPE.user || !user.is_active || user.prohibit_login) {
      reply.header('www-authenticate', 'Bearer error="invalid_token"');
      return reply.code(401).send({ error: 'invalid_token', error_description: 'no valid access token' });
    }
    if (!hasOpenIdScope(verified.grant.scope)) {
      reply.header('www-authenticate', 'Bearer error="insufficient_scope", scope="openid"');
      return reply.code(403).send({ error: 'insufficient_scope', error_description: 'the openid scope was not granted' });
    }
    const claims = identityClaims(user, `${verified.grant.scope} profile email`, config.APP_URL);
    return { ...claims, picture: '', groups: [] };
  };
  app.get('/login/oauth/userinfo', { config: webAuth }, userinfo);
  app.post('/login/oauth/userinfo', { config: webAuth }, userinfo);

  // RFC 7662: only an authenticated client may ask, and learns only about its own tokens.
  app.post('/login/oauth/introspect', { config: webAuth }, async (request, reply) => {
    const basic = basicClient(request);
    const form = formOf(request);
    let client;
    try {
      client = await authenticateClientOnly(deps, form, basic);
    } catch (err) {
      if (err instanceof OAuth2Error) return sendOAuth2Error(reply, err, true);
      throw err;
    }
    const claims = await readGrantToken(ctx, text(form, 'token'));
    const grant = claims ? await oauth2Store(db).grantById(claims.grantId) : undefined;
    const user = grant ? await usersStore(db).byId(grant.user_id) : undefined;
    if (!claims || !grant || grant.application_id !== client.id || !user) return { active: false };
    return {
      active: true,
      scope: grant.scope,
      client_id: client.client_id,
      username: user.name,
      token_type: claims.type === 0 ? 'access_token' : 'refresh_token',
      exp: claims.expiresAt,
      iat: claims.issuedAt,
      sub: String(user.id),
      iss: config.APP_URL,
    };
  });
}

// The server-rendered pages: sign in (password, then TOTP), sign out, and Settings → Applications
// (generate and delete personal access tokens, revoke authorised OAuth2 applications). Every POST
// checks the session's CSRF token before it changes anything.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAccessToken, deleteAccessToken, listAccessTokens } from '../../core/access-tokens.js';
import { LOGIN_PROHIBITED_MESSAGE, TOO_MANY_LOGIN_ATTEMPTS_MESSAGE } from '../../core/auth/messages.js';
import { ServiceError } from '../../core/errors.js';
import { authorisedApplications, revokeGrant } from '../../core/oauth2/grants.js';
import type { UserRow } from '../../db/users.js';
import { csrfToken, csrfValid } from './csrf.js';
import { applicationsPage } from './pages/applications.js';
import { errorPage } from './pages/layout.js';
import { signInPage, twoFactorPage } from './pages/sign-in.js';
import { checkPassword, checkTotpCode, safeRedirectTarget, type SignInDeps, type SignInStep } from './sign-in.js';
import { endSession, ensureSession, loadSession, setPendingTotp, startSession, type WebSession } from './session.js';

/** Gitea's page for a password an administrator asked to be changed. */
export const CHANGE_PASSWORD_PATH = '/user/settings/change_password';

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  // No scripts at all; inline styles only. (No form-action: the consent form's redirect leaves the site.)
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(html);
}

export function formOf(request: FastifyRequest): Record<string, unknown> {
  return typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
}

export function text(form: Record<string, unknown>, name: string): string {
  const value = form[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : '';
  return typeof value === 'string' ? value : '';
}

function list(form: Record<string, unknown>, name: string): string[] {
  const value = form[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** 303 to the sign-in page, coming back here afterwards. */
export function toSignIn(reply: FastifyReply, back: string): FastifyReply {
  return reply.code(303).header('cache-control', 'no-store').redirect(`/user/login?redirect_to=${encodeURIComponent(back)}`, 303);
}

/** 303 to the page where an account owing a new password sets it, coming back to `back` afterwards. */
export function toChangePassword(reply: FastifyReply, back: string): FastifyReply {
  return reply.code(303).header('cache-control', 'no-store').redirect(`${CHANGE_PASSWORD_PATH}?redirect_to=${encodeURIComponent(safeRedirectTarget(back))}`, 303);
}

/** Refuses a POST whose CSRF token is missing or wrong: 403, and nothing has changed. */
export function csrfRejected(request: FastifyRequest, reply: FastifyReply, session: WebSession | null): boolean {
  if (csrfValid(session, request.body, request.server.services.secretKey)) return false;
  sendHtml(reply, 403, errorPage('Forbidden', 'Invalid CSRF token: reload the page and try again.'));
  return true;
}

export async function webPageRoutes(app: FastifyInstance): Promise<void> {
  const services = app.services;
  const { db, secretKey } = services;
  const signInDeps = (request: FastifyRequest): SignInDeps => ({ db, secretKey, throttle: app.loginThrottle, ip: request.ip });
  const webAuth = { webAuth: true };

  async function afterStep(reply: FastifyReply, session: WebSession, stage: 'password' | 'totp', step: SignInStep, redirectTo: string, userName: string) {
    const csrf = csrfToken(session, secretKey);
    switch (step.kind) {
      case 'throttled':
        reply.header('retry-after', String(step.retryAfterSeconds));
        return sendHtml(reply, 429, signInPage({ csrf, redirectTo, userName, error: TOO_MANY_LOGIN_ATTEMPTS_MESSAGE }));
      case 'invalid':
        return stage === 'totp'
          ? sendHtml(reply, 401, twoFactorPage({ csrf, redirectTo, error: 'The code is not valid.' }))
          : sendHtml(reply, 401, signInPage({ csrf, redirectTo, userName, error: 'Username or password is incorrect.' }));
      case 'totp-needed':
        await setPendingTotp(services, session, step.user.id);
        return sendHtml(reply, 200, twoFactorPage({ csrf, redirectTo }));
      case 'signed-in': {
        if (!step.user.is_active || step.user.prohibit_login) {
          return sendHtml(reply, 403, signInPage({ csrf, redirectTo, userName, error: LOGIN_PROHIBITED_MESSAGE }));
        }
        await endSession(reply, services, session);
        await startSession(reply, services, step.user.id);
        // As Gitea: an account whose password an administrator set must choose its own first.
        if (step.user.must_change_password) return toChangePassword(reply, redirectTo);
        return reply.redirect(safeRedirectTarget(redirectTo), 303);
      }
    }
  }

  app.get('/user/login', { config: webAuth }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const redirectTo = safeRedirectTarget(query.redirect_to);
    const session = await ensureSession(request, reply, services);
    if (session.user) return reply.redirect(redirectTo, 303);
    if (session.mustChangePassword) return toChangePassword(reply, redirectTo);
    return sendHtml(reply, 200, signInPage({ csrf: csrfToken(session, secretKey), redirectTo }));
  });

  app.post('/user/login', { config: webAuth }, async (request, reply) => {
    const session = await loadSession(request, services);
    if (csrfRejected(request, reply, session)) return reply;
    const form = formOf(request);
    const userName = text(form, 'user_name');
    const step = await checkPassword(signInDeps(request), userName, text(form, 'password'));
    return afterStep(reply, session!, 'password', step, safeRedirectTarget(text(form, 'redirect_to')), userName);
  });

  app.post('/user/two_factor', { config: webAuth }, async (request, reply) => {
    const session = await loadSession(request, services);
    if (csrfRejected(request, reply, session)) return reply;
    const form = formOf(request);
    const redirectTo = safeRedirectTarget(text(form, 'redirect_to'));
    const pending = session!.row.pending_user_id;
    if (pending === null || session!.row.pending_until < Math.floor(Date.now() / 1000)) {
      await setPendingTotp(services, session!, null);
      return sendHtml(reply, 401, signInPage({ csrf: csrfToken(session!, secretKey), redirectTo, error: 'Sign in again: the code was not entered in time.' }));
    }
    const step = await checkTotpCode(signInDeps(request), pending, text(form, 'passcode').trim());
    return afterStep(reply, session!, 'totp', step, redirectTo, '');
  });

  app.post('/user/logout', { config: webAuth }, async (request, reply) => {
    const session = await loadSession(request, services);
    if (csrfRejected(request, reply, session)) return reply;
    await endSession(reply, services, session);
    return reply.redirect('/user/login', 303);
  });

  async function renderApplications(reply: FastifyReply, session: WebSession, user: UserRow, status: number, extra: Partial<Parameters<typeof applicationsPage>[0]> = {}) {
    const [{ rows }, authorised] = await Promise.all([listAccessTokens(db, user.id, 1000, 0), authorisedApplications(db, user.id)]);
    return sendHtml(reply, status, applicationsPage({ userName: user.name, csrf: csrfToken(session, secretKey), tokens: rows, authorised, ...extra }));
  }

  /** The signed-in session of a settings request; otherwise the reply is already a redirect or a 403. */
  async function settingsSession(request: FastifyRequest, reply: FastifyReply, post: boolean): Promise<(WebSession & { user: UserRow }) | null> {
    const session = await loadSession(request, services);
    if (post && csrfRejected(request, reply, session)) return null;
    if (session?.mustChangePassword) {
      toChangePassword(reply, '/user/settings/applications');
      return null;
    }
    if (!session?.user) {
      toSignIn(reply, '/user/settings/applications');
      return null;
    }
    return session as WebSession & { user: UserRow };
  }

  app.get('/user/settings/applications', { config: webAuth }, async (request, reply) => {
    const session = await settingsSession(request, reply, false);
    if (!session) return reply;
    return renderApplications(reply, session, session.user, 200);
  });

  // Generate New Token: the same rules and storage as POST /users/{name}/tokens.
  app.post('/user/settings/applications', { config: webAuth }, async (request, reply) => {
    const session = await settingsSession(request, reply, true);
    if (!session) return reply;
    const form = formOf(request);
    const name = text(form, 'name').trim();
    const scopes = list(form, 'scope');
    try {
      const created = await createAccessToken(db, secretKey, session.user.id, { name, scopes });
      return renderApplications(reply, session, session.user, 201, { newToken: { name: created.row.name, value: created.value } });
    } catch (err) {
      if (!(err instanceof ServiceError) || err.status >= 500) throw err;
      return renderApplications(reply, session, session.user, 400, { error: err.message, draft: { name, scopes } });
    }
  });

  app.post('/user/settings/applications/delete', { config: webAuth }, async (request, reply) => {
    const session = await settingsSession(request, reply, true);
    if (!session) return reply;
    const id = Number(text(formOf(request), 'id'));
    try {
      if (!Number.isSafeInteger(id) || id <= 0) throw new ServiceError(404, 'not found');
      await deleteAccessToken(db, session.user.id, String(id));
    } catch (err) {
      if (!(err instanceof ServiceError) || err.status >= 500) throw err;
      return renderApplications(reply, session, session.user, 404, { error: 'That token does not exist.' });
    }
    return reply.redirect('/user/settings/applications', 303);
  });

  app.post('/user/settings/applications/oauth2/revoke', { config: webAuth }, async (request, reply) => {
    const session = await settingsSession(request, reply, true);
    if (!session) return reply;
    if (!(await revokeGrant(db, session.user.id, Number(text(formOf(request), 'grant_id'))))) {
      return renderApplications(reply, session, session.user, 404, { error: 'That authorisation does not exist.' });
    }
    return reply.redirect('/user/settings/applications', 303);
  });
}

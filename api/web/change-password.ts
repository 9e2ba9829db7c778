// The change-password page of an account an administrator created or edited with
// `must_change_password` (Gitea's /user/settings/change_password): until the user sets a password
// of their own, the API answers them 403 and the other pages send them here.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { setRequiredPassword } from '../../core/accounts.js';
import { ServiceError } from '../../core/errors.js';
import { csrfToken } from './csrf.js';
import { changePasswordPage } from './pages/change-password.js';
import { CHANGE_PASSWORD_PATH, csrfRejected, formOf, sendHtml, text, toSignIn } from './routes.js';
import { safeRedirectTarget } from './sign-in.js';
import { loadSession, type WebSession } from './session.js';

export async function changePasswordRoutes(app: FastifyInstance): Promise<void> {
  const services = app.services;
  const webAuth = { webAuth: true };

  /** The session of a user owing a new password; otherwise the reply is already on its way. */
  async function owingSession(request: FastifyRequest, reply: FastifyReply, redirectTo: string, post: boolean): Promise<WebSession | null> {
    const session = await loadSession(request, services);
    if (post && csrfRejected(request, reply, session)) return null;
    if (session?.mustChangePassword) return session;
    // As Gitea: the page is only for those who must change their password.
    if (session?.user) reply.redirect(redirectTo, 303);
    else toSignIn(reply, `${CHANGE_PASSWORD_PATH}?redirect_to=${encodeURIComponent(redirectTo)}`);
    return null;
  }

  // The address in the API's 403 text (Gitea's wording, which has no page there): sent on to the page.
  for (const path of ['/user/change_password', '//user/change_password']) {
    app.get(path, { config: webAuth }, async (_request, reply) => reply.redirect(CHANGE_PASSWORD_PATH, 303));
  }

  app.get(CHANGE_PASSWORD_PATH, { config: webAuth }, async (request, reply) => {
    const redirectTo = safeRedirectTarget((request.query as Record<string, unknown>).redirect_to);
    const session = await owingSession(request, reply, redirectTo, false);
    if (!session) return reply;
    const user = session.mustChangePassword!;
    return sendHtml(reply, 200, changePasswordPage({ csrf: csrfToken(session, services.secretKey), redirectTo, userName: user.name }));
  });

  app.post(CHANGE_PASSWORD_PATH, { config: webAuth }, async (request, reply) => {
    const form = formOf(request);
    const redirectTo = safeRedirectTarget(text(form, 'redirect_to'));
    const session = await owingSession(request, reply, redirectTo, true);
    if (!session) return reply;
    const user = session.mustChangePassword!;
    try {
      await setRequiredPassword(services.db, user, text(form, 'password'), text(form, 'retype'));
    } catch (err) {
      if (!(err instanceof ServiceError) || err.status >= 500) throw err;
      return sendHtml(reply, 400, changePasswordPage({ csrf: csrfToken(session, services.secretKey), redirectTo, userName: user.name, error: err.message }));
    }
    return reply.redirect(redirectTo, 303);
  });
}

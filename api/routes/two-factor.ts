// TOTP two-factor authentication for the signed-in user: a pullhost extension (Gitea enrols in its
// web UI only), marked `x-extension` in the OpenAPI document. Enrolment and removal need HTTP Basic
// authentication with the password (and, once enabled, the current code in X-Gitea-OTP or
// X-Service-OTP), so a stolen token can neither read a new secret nor switch 2FA off.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { confirmTotpEnrolment, disableTotpEnrolment, startTotpEnrolment, totpStatus } from '../../core/totp-enrolment.js';
import { requireSignedIn } from '../plugins/auth.js';
import { ApiErrorBody, TotpConfirmOption, TotpEnrolment, TwoFactorStatus } from '../schemas/user.js';

const EXTENSION = 'pullhost extension, not in Gitea.';
/** Copied into the OpenAPI operation by @fastify/swagger (it keeps `x-` keys). */
const MARK: Record<string, unknown> = { 'x-extension': true };
const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody };

export async function twoFactorRoutes(app: FastifyInstance): Promise<void> {
  const { db, secretKey } = app.services;

  app.get('/api/v1/user/2fa', {
    config: { scope: 'user' },
    schema: {
      operationId: 'userGetTwoFactor',
      tags: ['user'],
      summary: 'Two-factor authentication status of the authenticated user',
      description: EXTENSION,
      ...MARK,
      response: { 200: TwoFactorStatus, 401: ApiErrorBody },
    },
  }, async (request) => {
    const status = await totpStatus(db, requireSignedIn(request));
    return { totp_enabled: status.enabled, totp_pending: status.pending };
  });

  app.post('/api/v1/user/2fa/totp', {
    config: { scope: 'user', basicAuthOnly: true },
    schema: {
      operationId: 'userEnrollTotp',
      tags: ['user'],
      summary: 'Start TOTP enrolment',
      description: `${EXTENSION} Basic authentication with the password only. Returns the otpauth URI and secret once; ` +
        'nothing changes until PUT /user/2fa/totp/confirm receives a valid code. Starting again replaces a pending enrolment. 409 when 2FA is already on.',
      ...MARK,
      response: { 201: TotpEnrolment, ...errors },
    },
  }, async (request, reply) => {
    const enrolment = await startTotpEnrolment(db, requireSignedIn(request), secretKey);
    reply.code(201).header('cache-control', 'no-store');
    return { otpauth_uri: enrolment.otpauthUri, secret: enrolment.secret };
  });

  app.put<{ Body: Static<typeof TotpConfirmOption> }>('/api/v1/user/2fa/totp/confirm', {
    config: { scope: 'user', basicAuthOnly: true },
    schema: {
      operationId: 'userConfirmTotp',
      tags: ['user'],
      summary: 'Confirm TOTP enrolment with a current code',
      description: `${EXTENSION} Basic authentication with the password only. 204: two-factor authentication is on, and Basic ` +
        'password authentication needs X-Gitea-OTP or X-Service-OTP from now on (tokens do not). 422 `invalid provided OTP`; 404 when nothing is pending.',
      ...MARK,
      body: TotpConfirmOption,
      response: { 204: Type.Null({ description: 'enabled' }), 422: ApiErrorBody, ...errors },
    },
  }, async (request, reply) => {
    await confirmTotpEnrolment(db, requireSignedIn(request), secretKey, request.body.code);
    return reply.code(204).send();
  });

  app.delete('/api/v1/user/2fa/totp', {
    config: { scope: 'user', basicAuthOnly: true },
    schema: {
      operationId: 'userDisableTotp',
      tags: ['user'],
      summary: 'Turn TOTP off',
      description: `${EXTENSION} Basic authentication with the password and the current code (X-Gitea-OTP or X-Service-OTP). 404 when 2FA is off.`,
      ...MARK,
      response: { 204: Type.Null({ description: 'disabled' }), ...errors },
    },
  }, async (request, reply) => {
    await disableTotpEnrolment(db, requireSignedIn(request));
    return reply.code(204).send();
  });
}

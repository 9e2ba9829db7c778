// The signed-in user's own settings and e-mail addresses (routers/api/v1/user/settings.go and
// email.go). Never for public-only tokens: both are private account data.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { PUBLIC_ONLY_ENDPOINT_MESSAGE } from '../../core/auth/scopes.js';
import { ForbiddenError } from '../../core/errors.js';
import { addEmails, deleteEmails, listEmails } from '../../core/user-emails.js';
import { updateUserSettings, userSettingsOf } from '../../core/user-settings.js';
import type { UserRow } from '../../db/users.js';
import { requireSignedIn } from '../plugins/auth.js';
import { ApiErrorBody } from '../schemas/user.js';
import { CreateEmailOption, DeleteEmailOption, Email, UserSettings, UserSettingsOptions } from '../schemas/user-account.js';

const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 422: ApiErrorBody };

function accountOwner(request: FastifyRequest): UserRow {
  const doer = requireSignedIn(request);
  if (request.auth.publicOnly) throw new ForbiddenError(PUBLIC_ONLY_ENDPOINT_MESSAGE);
  return doer;
}

export async function userAccountRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.services;

  app.get('/api/v1/user/settings', {
    schema: { operationId: 'getUserSettings', tags: ['user'], summary: 'Get user settings', response: { 200: UserSettings, ...errors } },
    config: { scope: 'user' },
  }, async (request) => userSettingsOf(accountOwner(request)));

  app.patch<{ Body: Static<typeof UserSettingsOptions> }>('/api/v1/user/settings', {
    schema: {
      operationId: 'updateUserSettings', tags: ['user'], summary: 'Update user settings',
      description: 'Changes the fields given; an empty string clears a text field.',
      body: UserSettingsOptions, response: { 200: UserSettings, ...errors },
    },
    config: { scope: 'user' },
  }, async (request) => userSettingsOf(await updateUserSettings(db, accountOwner(request), request.body ?? {})));

  app.get('/api/v1/user/emails', {
    schema: {
      operationId: 'userListEmails', tags: ['user'], summary: "List the authenticated user's email addresses",
      response: { 200: Type.Array(Email), ...errors },
    },
    config: { scope: 'user' },
  }, async (request) => listEmails(db, accountOwner(request)));

  app.post<{ Body: Static<typeof CreateEmailOption> }>('/api/v1/user/emails', {
    schema: {
      operationId: 'userAddEmail', tags: ['user'], summary: 'Add email addresses',
      description: 'All or nothing: one address refused adds none.',
      body: CreateEmailOption, response: { 201: Type.Array(Email), ...errors },
    },
    config: { scope: 'user' },
  }, async (request, reply) => {
    const emails = await addEmails(db, accountOwner(request), request.body?.emails ?? []);
    reply.code(201);
    return emails;
  });

  app.delete<{ Body: Static<typeof DeleteEmailOption> }>('/api/v1/user/emails', {
    schema: {
      operationId: 'userDeleteEmail', tags: ['user'], summary: 'Delete email addresses',
      description: 'All or nothing. The primary address cannot be deleted (422).',
      body: DeleteEmailOption, response: { 204: Type.Null(), ...errors },
    },
    config: { scope: 'user' },
  }, async (request, reply) => {
    await deleteEmails(db, accountOwner(request), request.body?.emails ?? []);
    reply.code(204);
  });
}

// Users: the signed-in user, a user by name, and creation by a site administrator
// (routers/api/v1/user/user.go, routers/api/v1/admin/user.go).
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { createUser } from '../../core/accounts.js';
import { looksLikeEmail } from '../../core/account-fields.js';
import { NotFoundError, UnprocessableError } from '../../core/errors.js';
import { accountVisibleTo, assertPublicForToken } from '../../core/organizations.js';
import { usersStore } from '../../db/users.js';
import { requireSignedIn, requireSiteAdmin } from '../plugins/auth.js';
import { ApiErrorBody, CreateUserOption, User, UsernameParams } from '../schemas/user.js';
import { toApiUser } from '../serializers/user.js';

type CreateUserBody = Static<typeof CreateUserOption>;

const VISIBILITIES = ['public', 'limited', 'private'] as const;

/** Gitea's binding rule `In(,public,limited,private)`, with its message. */
function visibilityOf(value: string | undefined): (typeof VISIBILITIES)[number] | undefined {
  if (value === undefined || value === '') return undefined;
  const found = VISIBILITIES.find((v) => v === value);
  if (!found) throw new UnprocessableError('[Visibility]: In');
  return found;
}

function unixOf(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new UnprocessableError('[created_at]: must be an RFC 3339 time');
  return Math.floor(ms / 1000);
}

export async function userRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  app.post<{ Body: CreateUserBody }>('/api/v1/admin/users', {
    config: { scope: 'admin' },
    schema: {
      operationId: 'adminCreateUser',
      tags: ['admin'],
      summary: 'Create a user',
      description: 'Site administrators only. `must_change_password` defaults to true when omitted, as in Gitea. ' +
        'Name and e-mail problems answer 422; a password shorter than 8 characters answers 400 `PasswordIsRequired`.',
      body: CreateUserOption,
      response: { 201: User, 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 422: ApiErrorBody },
    },
  }, async (request, reply) => {
    const admin = requireSiteAdmin(request);
    const body = request.body;
    const visibility = visibilityOf(body.visibility);
    if (!looksLikeEmail(body.email)) throw new UnprocessableError('[Email]: Email');
    // Only local accounts exist here; Gitea answers an unknown login source with 422 too.
    if (body.source_id !== undefined && body.source_id !== 0) throw new UnprocessableError(`login source does not exist [id: ${body.source_id}]`);
    const user = await createUser(db, {
      username: body.username,
      email: body.email,
      password: body.password ?? '',
      fullName: body.full_name,
      mustChangePassword: body.must_change_password ?? true,
      restricted: body.restricted ?? undefined,
      visibility,
      loginName: body.login_name,
      createdUnix: unixOf(body.created_at),
    });
    reply.code(201);
    return toApiUser(user, admin, config.APP_URL);
  });

  app.get('/api/v1/user', {
    config: { scope: 'user' },
    schema: {
      operationId: 'userGetCurrent',
      tags: ['user'],
      summary: 'Get the authenticated user',
      response: { 200: User, 401: ApiErrorBody, 403: ApiErrorBody },
    },
  }, async (request) => {
    const doer = requireSignedIn(request);
    return toApiUser(doer, doer, config.APP_URL);
  });

  app.get<{ Params: Static<typeof UsernameParams> }>('/api/v1/users/:username', {
    config: { scope: 'user' },
    schema: {
      operationId: 'userGet',
      tags: ['user'],
      summary: 'Get a user',
      description: 'Limited users are visible to signed-in callers; private users to themselves, site admins and people who share an organization with them. Hidden users answer 404.',
      params: UsernameParams,
      response: { 200: User, 403: ApiErrorBody, 404: ApiErrorBody },
    },
  }, async (request) => {
    const user = await usersStore(db).byName(request.params.username);
    // A user the caller may not see does not exist for them.
    if (!user || !(await accountVisibleTo(db, user, request.doer))) throw new NotFoundError();
    assertPublicForToken(user, request.auth.publicOnly);
    return toApiUser(user, request.doer, config.APP_URL);
  });
}

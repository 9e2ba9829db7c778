// Personal access tokens (routers/api/v1/user/app.go): create, list and delete a user's tokens
// with Basic password authentication only, and read or revoke the token of the request itself.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { createAccessToken, deleteAccessToken, forgetResolvedToken, listAccessTokens } from '../../core/access-tokens.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../core/errors.js';
import { TOKEN_OWNER_MISMATCH_MESSAGE, TOKEN_REQUIRED_MESSAGE } from '../../core/auth/messages.js';
import { scopesFromString, type AccessTokenScope } from '../../core/auth/scopes.js';
import type { AccessTokenRow } from '../../db/tokens.js';
import { tokensStore } from '../../db/tokens.js';
import { unixToIso } from '../../db/time.js';
import { USER_TYPE, usersStore, type UserRow } from '../../db/users.js';
import { PagingQuery, readPaging, setTotalCount } from '../paging.js';
import { requireSignedIn } from '../plugins/auth.js';
import { AccessToken, ApiErrorBody, CreateAccessTokenOption, CurrentAccessToken, TokenParams, UsernameParams } from '../schemas/user.js';

function toApiAccessToken(row: AccessTokenRow, scopes: readonly AccessTokenScope[], sha1 = '') {
  return {
    id: row.id,
    name: row.name,
    sha1,
    token_last_eight: row.token_last_eight,
    scopes: [...scopes],
    created_at: unixToIso(row.created_unix)!,
    last_used_at: unixToIso(row.updated_unix)!,
  };
}

function storedScopes(row: AccessTokenRow): AccessTokenScope[] {
  try {
    return scopesFromString(row.scope);
  } catch {
    return []; // a scope from a newer version: list the token anyway, it cannot authenticate here
  }
}

const BASIC_ONLY_NOTE = 'Only HTTP Basic authentication with the account password (and the OTP header when 2FA is on) is accepted: ' +
  'any token answers 401 `auth required`. The caller must be the user or a site admin (403).';

const tokenErrors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };

export async function tokenRoutes(app: FastifyInstance): Promise<void> {
  const { db, config, secretKey } = app.services;

  /** The user whose tokens are addressed; 404 for unknown names and organizations, 403 for other callers. */
  async function tokenOwner(request: FastifyRequest, username: string): Promise<UserRow> {
    const doer = requireSignedIn(request);
    const owner = await usersStore(db).byName(username);
    if (!owner || owner.type !== USER_TYPE.user) throw new NotFoundError();
    if (!doer.is_admin && doer.id !== owner.id) throw new ForbiddenError(TOKEN_OWNER_MISMATCH_MESSAGE);
    return owner;
  }

  app.get<{ Params: Static<typeof UsernameParams>; Querystring: { page?: number; limit?: number } }>('/api/v1/users/:username/tokens', {
    config: { scope: 'user', basicAuthOnly: true },
    schema: {
      operationId: 'userGetTokens',
      tags: ['user'],
      summary: "List the authenticated user's access tokens",
      description: `${BASIC_ONLY_NOTE} \`sha1\` is always "". Sets X-Total-Count (no Link header, as Gitea).`,
      params: UsernameParams,
      querystring: Type.Object(PagingQuery),
      response: { 200: Type.Array(AccessToken), ...tokenErrors },
    },
  }, async (request, reply) => {
    const owner = await tokenOwner(request, request.params.username);
    const paging = readPaging(request.query, config);
    const { rows, total } = await listAccessTokens(db, owner.id, paging.limit, paging.offset);
    setTotalCount(reply, total);
    return rows.map((row) => toApiAccessToken(row, storedScopes(row)));
  });

  app.post<{ Params: Static<typeof UsernameParams>; Body: Static<typeof CreateAccessTokenOption> }>('/api/v1/users/:username/tokens', {
    config: { scope: 'user', basicAuthOnly: true },
    schema: {
      operationId: 'userCreateToken',
      tags: ['user'],
      summary: 'Create an access token',
      description: `${BASIC_ONLY_NOTE} The token value is returned once, in \`sha1\`. 400 for a used name, an unknown scope or no scope.`,
      params: UsernameParams,
      body: CreateAccessTokenOption,
      response: { 201: AccessToken, 400: ApiErrorBody, 422: ApiErrorBody, ...tokenErrors },
    },
  }, async (request, reply) => {
    const owner = await tokenOwner(request, request.params.username);
    const created = await createAccessToken(db, secretKey, owner.id, { name: request.body.name, scopes: request.body.scopes });
    reply.code(201);
    return toApiAccessToken(created.row, created.scopes, created.value);
  });

  app.delete<{ Params: Static<typeof TokenParams> }>('/api/v1/users/:username/tokens/:token', {
    config: { scope: 'user', basicAuthOnly: true },
    schema: {
      operationId: 'userDeleteAccessToken',
      tags: ['user'],
      summary: 'Delete an access token',
      description: `${BASIC_ONLY_NOTE} \`{token}\` is the id, or the name when it is not an integer. 422 when a name matches several tokens.`,
      params: TokenParams,
      response: { 204: Type.Null({ description: 'deleted' }), 422: ApiErrorBody, ...tokenErrors },
    },
  }, async (request, reply) => {
    const owner = await tokenOwner(request, request.params.username);
    await deleteAccessToken(db, owner.id, request.params.token);
    return reply.code(204).send();
  });

  /** The personal token the request authenticated with; 401 for any other kind of authentication. */
  async function currentToken(request: FastifyRequest): Promise<AccessTokenRow> {
    const tokenId = request.auth.method === 'token' ? request.auth.tokenId : null;
    if (tokenId === null) throw new UnauthorizedError(TOKEN_REQUIRED_MESSAGE);
    const row = await tokensStore(db).byId(tokenId);
    if (!row) throw new UnauthorizedError(); // revoked while this request was in flight
    return row;
  }

  app.get('/api/v1/token', {
    schema: {
      operationId: 'userGetCurrentToken',
      tags: ['user'],
      summary: 'Get the access token of the current request',
      description: 'Latest Gitea. Needs a personal access token (401 `token is required` otherwise).',
      response: { 200: CurrentAccessToken, 401: ApiErrorBody },
    },
  }, async (request) => {
    const row = await currentToken(request);
    const actual = request.auth.actualUser!;
    return {
      id: row.id,
      name: row.name,
      scopes: storedScopes(row),
      created_at: unixToIso(row.created_unix)!,
      last_used_at: unixToIso(row.updated_unix)!,
      user: { id: actual.id, login: actual.name },
    };
  });

  app.delete('/api/v1/token', {
    schema: {
      operationId: 'userDeleteCurrentToken',
      tags: ['user'],
      summary: 'Revoke the access token of the current request',
      description: 'Latest Gitea. Needs a personal access token (401 `token is required` otherwise).',
      response: { 204: Type.Null({ description: 'revoked' }), 401: ApiErrorBody },
    },
  }, async (request, reply) => {
    const row = await currentToken(request);
    await tokensStore(db).deleteOwned(row.id, row.user_id);
    forgetResolvedToken(row.id);
    return reply.code(204).send();
  });
}

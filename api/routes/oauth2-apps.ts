// The user's OAuth2 applications (Gitea's routers/api/v1/user/app.go): create, list, get, update
// (which regenerates the secret) and delete. The client secret is in the body of create and update
// only; it is stored hashed.
import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { createApplication, deleteApplication, ownApplication, updateApplication } from '../../core/oauth2/applications.js';
import { oauth2Store, type OAuth2ApplicationRow } from '../../db/oauth2.js';
import { unixToIso } from '../../db/time.js';
import { PagingQuery, readPaging, setTotalCount } from '../paging.js';
import { requireSignedIn } from '../plugins/auth.js';
import { ApiErrorBody } from '../schemas/user.js';

const OAuth2Application = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  client_id: Type.String(),
  client_secret: Type.String({ description: 'Only in the answer to create and update' }),
  confidential_client: Type.Boolean(),
  skip_secondary_authorization: Type.Boolean(),
  redirect_uris: Type.Array(Type.String()),
  created: Type.String({ format: 'date-time' }),
}, { title: 'OAuth2Application' });

const CreateOAuth2ApplicationOptions = Type.Object({
  name: Type.String(),
  redirect_uris: Type.Optional(Type.Array(Type.String())),
  confidential_client: Type.Optional(Type.Boolean()),
  skip_secondary_authorization: Type.Optional(Type.Boolean()),
}, { title: 'CreateOAuth2ApplicationOptions' });

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

/** Gitea's convert.ToOAuth2Application, in its field order. */
function toApiApplication(app: OAuth2ApplicationRow, clientSecret = '') {
  return {
    id: app.id,
    name: app.name,
    client_id: app.client_id,
    client_secret: clientSecret,
    confidential_client: app.confidential_client,
    skip_secondary_authorization: app.skip_secondary_authorization,
    redirect_uris: app.redirect_uris,
    created: unixToIso(app.created_unix)!,
  };
}

const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };

export async function oauth2AppRoutes(app: FastifyInstance): Promise<void> {
  const { db, config, secretKey } = app.services;
  const tags = ['user'];

  app.post<{ Body: Static<typeof CreateOAuth2ApplicationOptions> }>('/api/v1/user/applications/oauth2', {
    config: { scope: 'user' },
    schema: { operationId: 'userCreateOAuth2Application', tags, summary: 'Creates a new OAuth2 application', body: CreateOAuth2ApplicationOptions, response: { 201: OAuth2Application, 400: ApiErrorBody, 422: ApiErrorBody, ...errors } },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const created = await createApplication(db, secretKey, doer.id, request.body);
    return reply.code(201).send(toApiApplication(created.app, created.clientSecret));
  });

  app.get<{ Querystring: { page?: number; limit?: number } }>('/api/v1/user/applications/oauth2', {
    config: { scope: 'user' },
    schema: { operationId: 'userGetOauth2Application', tags, summary: "List the authenticated user's oauth2 applications", querystring: Type.Object(PagingQuery), response: { 200: Type.Array(OAuth2Application), ...errors } },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    const paging = readPaging(request.query, config);
    const store = oauth2Store(db);
    const [rows, total] = await Promise.all([store.listApplications(doer.id, paging.limit, paging.offset), store.countApplications(doer.id)]);
    setTotalCount(reply, total); // Gitea's SetTotalCountHeader, no Link header
    return rows.map((row) => toApiApplication(row));
  });

  app.get<{ Params: Static<typeof IdParams> }>('/api/v1/user/applications/oauth2/:id', {
    config: { scope: 'user' },
    schema: { operationId: 'userGetOAuth2Application', tags, summary: 'Get an OAuth2 application', params: IdParams, response: { 200: OAuth2Application, ...errors } },
  }, async (request) => {
    const doer = requireSignedIn(request);
    return toApiApplication(await ownApplication(db, doer.id, request.params.id));
  });

  app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof CreateOAuth2ApplicationOptions> }>('/api/v1/user/applications/oauth2/:id', {
    config: { scope: 'user' },
    schema: {
      operationId: 'userUpdateOAuth2Application',
      tags,
      summary: 'Update an OAuth2 application, this includes regenerating the client secret',
      params: IdParams,
      body: CreateOAuth2ApplicationOptions,
      response: { 200: OAuth2Application, 422: ApiErrorBody, ...errors },
    },
  }, async (request) => {
    const doer = requireSignedIn(request);
    const updated = await updateApplication(db, secretKey, doer.id, request.params.id, request.body);
    return toApiApplication(updated.app, updated.clientSecret);
  });

  app.delete<{ Params: Static<typeof IdParams> }>('/api/v1/user/applications/oauth2/:id', {
    config: { scope: 'user' },
    schema: { operationId: 'userDeleteOAuth2Application', tags, summary: 'Delete an OAuth2 application', params: IdParams, response: { 204: Type.Null(), ...errors } },
  }, async (request, reply) => {
    const doer = requireSignedIn(request);
    await deleteApplication(db, doer.id, request.params.id);
    return reply.code(204).send();
  });
}

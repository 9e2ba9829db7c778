// Blocks for the signed-in user and for organizations (routers/api/v1/shared/block.go):
// list, check (204/404), block and unblock (204; 400 when refused).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { blockUser, isBlocked, listBlocked, unblockUser } from '../../core/blocks.js';
import { NotFoundError } from '../../core/errors.js';
import { requireOrgOwner, visibleOrganization } from '../../core/organizations.js';
import type { ScopeCategory } from '../../core/auth/scopes.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { PagingQuery, readPaging, setTotalCount } from '../paging.js';
import { requireSignedIn } from '../plugins/auth.js';
import { ApiErrorBody, BlockQuery, OrgParams, OrgUserParams, User, UsernameParams } from '../schemas/user.js';
import { toApiUser } from '../serializers/user.js';

type PagingQs = { page?: number; limit?: number };
const errors = { 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody };
const NoContent = (description: string) => Type.Null({ description });

export async function blockRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  async function userByName(name: string): Promise<UserRow> {
    const user = await usersStore(db).byName(name);
    if (!user) throw new NotFoundError();
    return user;
  }

  /** The blocker of a route: the signed-in user, or an organization the doer owns. */
  type BlockerOf = (request: FastifyRequest) => Promise<{ doer: UserRow; blocker: UserRow }>;

  const self: BlockerOf = async (request) => {
    const doer = requireSignedIn(request);
    return { doer, blocker: doer };
  };
  const organization: BlockerOf = async (request) => {
    const doer = requireSignedIn(request);
    const org = await visibleOrganization(db, (request.params as { org: string }).org, doer);
    await requireOrgOwner(db, org, doer);
    return { doer, blocker: org };
  };

  const variants: Array<{ base: string; tag: string; scope: ScopeCategory; blockerOf: BlockerOf; params: typeof OrgParams | null; one: typeof UsernameParams | typeof OrgUserParams; who: string; op: 'user' | 'organization' }> = [
    { base: '/api/v1/user/blocks', tag: 'user', scope: 'user', blockerOf: self, params: null, one: UsernameParams, who: 'the authenticated user', op: 'user' },
    { base: '/api/v1/orgs/:org/blocks', tag: 'organization', scope: 'organization', blockerOf: organization, params: OrgParams, one: OrgUserParams, who: 'the organization (owners only)', op: 'organization' },
  ];

  for (const v of variants) {
    app.get<{ Querystring: PagingQs }>(v.base, {
      config: { scope: v.scope },
      schema: {
        operationId: `${v.op}ListBlocks`,
        tags: [v.tag],
        summary: `List users blocked by ${v.who}`,
        description: 'Sets X-Total-Count (no Link header, as Gitea).',
        ...(v.params ? { params: v.params } : {}),
        querystring: Type.Object(PagingQuery),
        response: { 200: Type.Array(User), ...errors },
      },
    }, async (request, reply) => {
      const { doer, blocker } = await v.blockerOf(request);
      const paging = readPaging(request.query, config);
      const { users, total } = await listBlocked(db, blocker.id, paging.limit, paging.offset);
      setTotalCount(reply, total);
      return users.map((u) => toApiUser(u, doer, config.APP_URL));
    });

    app.get<{ Params: Static<typeof OrgUserParams> }>(`${v.base}/:username`, {
      config: { scope: v.scope },
      schema: {
        operationId: `${v.op}CheckUserBlock`,
        tags: [v.tag],
        summary: `Check if a user is blocked by ${v.who}`,
        description: '204 when blocked, 404 when not (or when the user does not exist).',
        params: v.one,
        response: { 204: NoContent('blocked'), ...errors },
      },
    }, async (request, reply: FastifyReply) => {
      const { blocker } = await v.blockerOf(request);
      const blockee = await userByName(request.params.username);
      if (!(await isBlocked(db, blocker.id, blockee.id))) throw new NotFoundError();
      return reply.code(204).send();
    });

    app.put<{ Params: Static<typeof OrgUserParams>; Querystring: Static<typeof BlockQuery> }>(`${v.base}/:username`, {
      config: { scope: v.scope },
      schema: {
        operationId: `${v.op}BlockUser`,
        tags: [v.tag],
        summary: 'Block a user',
        description: '400 `cannot block the user` for yourself, an already blocked user or a member of the organization; 400 `cannot block an organization`.',
        params: v.one,
        querystring: BlockQuery,
        response: { 204: NoContent('blocked'), 400: ApiErrorBody, ...errors },
      },
    }, async (request, reply) => {
      const { doer, blocker } = await v.blockerOf(request);
      const blockee = await userByName(request.params.username);
      await blockUser(db, doer, blocker, blockee, request.query.note ?? '');
      return reply.code(204).send();
    });

    app.delete<{ Params: Static<typeof OrgUserParams> }>(`${v.base}/:username`, {
      config: { scope: v.scope },
      schema: {
        operationId: `${v.op}UnblockUser`,
        tags: [v.tag],
        summary: 'Unblock a user',
        description: '400 `cannot unblock the user` when the user is not blocked.',
        params: v.one,
        response: { 204: NoContent('unblocked'), 400: ApiErrorBody, ...errors },
      },
    }, async (request, reply) => {
      const { doer, blocker } = await v.blockerOf(request);
      const blockee = await userByName(request.params.username);
      await unblockUser(db, doer, blocker, blockee);
      return reply.code(204).send();
    });
  }
}

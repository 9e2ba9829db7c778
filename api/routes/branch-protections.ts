// Branch protection rules (routers/api/v1/repo/branch.go, *BranchProtection*). Repository admins only.
import { isStyleAllowed, styleNotAllowedMessage } from '../../core/pulls/merge-message.js';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import {
  DEFAULT_PROTECTION, globToRegExp, isGlobRule, withDefaults, type BranchProtectionSettings, type ProtectionRule,
} from '../../core/branch-protection.js';
import { ForbiddenError, NotFoundError, UnprocessableError } from '../../core/errors.js';
import type { RepoContext } from '../../core/permissions.js';
import { isUniqueViolation } from '../../db/connection.js';
import { protectedBranchesStore } from '../../db/protected-branches.js';
import { unixToIso } from '../../db/time.js';
import { USER_TYPE } from '../../db/users.js';
import { repoForChange } from '../repo-request.js';
import { ApiError, OwnerRepoParams } from '../schemas/repo.js';
import { BranchProtection, CreateBranchProtectionOption, EditBranchProtectionOption } from '../schemas/branch-protection.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 422: ApiError, 423: ApiError };
const RuleParams = Type.Object({ owner: Type.String(), repo: Type.String(), '*': Type.String({ description: 'name of protected branch rule', 'x-param-name': 'name' }) });
type Params = { owner: string; repo: string };
type Options = Partial<BranchProtectionSettings> & { priority?: number; rule_name?: string; branch_name?: string };

function toApiProtection(rule: ProtectionRule) {
  return {
    branch_name: rule.rule_name, rule_name: rule.rule_name, priority: rule.priority, ...rule.settings,
    created_at: unixToIso(rule.created_unix)!, updated_at: unixToIso(rule.updated_unix)!,
  };
}

const USER_LISTS = ['push_whitelist_usernames', 'force_push_allowlist_usernames', 'merge_whitelist_usernames', 'approvals_whitelist_username', 'bypass_allowlist_usernames'] as const;
const TEAM_LISTS = ['push_whitelist_teams', 'force_push_allowlist_teams', 'merge_whitelist_teams', 'approvals_whitelist_teams', 'bypass_allowlist_teams'] as const;

export async function branchProtectionRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.services;
  const store = protectedBranchesStore<BranchProtectionSettings>(db);

  /** Merges options into settings, refusing unknown users and teams (422) as Gitea does. */
  async function settingsFrom(ctx: RepoContext, base: BranchProtectionSettings, options: Options): Promise<BranchProtectionSettings> {
    const next: Record<string, unknown> = { ...base };
    for (const key of Object.keys(DEFAULT_PROTECTION) as Array<keyof BranchProtectionSettings>) {
      if (options[key] !== undefined) next[key] = options[key];
    }
    const settings = next as unknown as BranchProtectionSettings;
    for (const list of USER_LISTS) {
      const names = settings[list];
      if (names.length === 0) continue;
      const found = await db('users').whereIn('lower_name', names.map((n) => n.toLowerCase())).andWhere('type', USER_TYPE.user).select('lower_name');
      const have = new Set(found.map((r: { lower_name: string }) => r.lower_name));
      const missing = names.find((n) => !have.has(n.toLowerCase()));
      if (missing) throw new UnprocessableError(`user does not exist [name: ${missing}]`);
    }
    for (const list of TEAM_LISTS) {
      const names = settings[list];
      if (names.length === 0) continue;
      if (ctx.owner.type !== USER_TYPE.organization) throw new UnprocessableError('teams can only be given for organization repositories');
      const found = await db('teams').where({ org_id: ctx.owner.id }).whereIn('lower_name', names.map((n) => n.toLowerCase())).select('lower_name');
      const have = new Set(found.map((r: { lower_name: string }) => r.lower_name));
      const missing = names.find((n) => !have.has(n.toLowerCase()));
      if (missing) throw new UnprocessableError(`team does not exist [name: ${missing}]`);
    }
    if (!['merge', 'squash', 'rebase', 'rebase-merge'].includes(settings.merge_queue_merge_style)) {
      throw new UnprocessableError(`merge_queue_merge_style must be merge, squash, rebase or rebase-merge, not ${String(settings.merge_queue_merge_style).slice(0, 30)}`);
    }
    // The queue lands with this style: one the repository forbids would refuse every landing.
    if (settings.enable_merge_queue && !isStyleAllowed(ctx.repo, settings.merge_queue_merge_style)) {
      throw new UnprocessableError(`merge_queue_merge_style: ${styleNotAllowedMessage(settings.merge_queue_merge_style)}`);
    }
    for (const pattern of settings.status_check_contexts) {
      if (!globToRegExp(pattern, null)) throw new UnprocessableError(`invalid status check context pattern: ${pattern}`);
    }
    return settings;
  }

  async function ruleOf(ctx: RepoContext, name: string): Promise<ProtectionRule> {
    const rule = await store.byRuleName(ctx.repo.id, name);
    if (!rule) throw new NotFoundError();
    return withDefaults(rule);
  }

  app.get<{ Params: Params }>('/api/v1/repos/:owner/:repo/branch_protections', {
    schema: { operationId: 'repoListBranchProtection', tags: ['repository'], summary: 'List branch protections for a repository', params: OwnerRepoParams, response: { 200: Type.Array(BranchProtection), ...errors } },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoForChange(request, request.params, 'admin', { allowArchived: true });
    return (await store.list(ctx.repo.id)).map((r) => toApiProtection(withDefaults(r)));
  });

  app.post<{ Params: Params; Body: Options }>('/api/v1/repos/:owner/:repo/branch_protections', {
    schema: {
      operationId: 'repoCreateBranchProtection',
      tags: ['repository'], summary: 'Create a branch protections for a repository', params: OwnerRepoParams,
      body: CreateBranchProtectionOption, response: { 201: BranchProtection, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'admin');
    const ruleName = request.body.rule_name || request.body.branch_name || '';
    if (ruleName === '' || ruleName.length > 255) throw new UnprocessableError('[rule_name]: Required');
    if (isGlobRule(ruleName) && !globToRegExp(ruleName, '/')) throw new UnprocessableError(`invalid rule name pattern: ${ruleName}`);
    if (await store.byRuleName(ctx.repo.id, ruleName)) throw new ForbiddenError('Branch protection already exist');
    const settings = await settingsFrom(ctx, DEFAULT_PROTECTION, request.body);
    try {
      await store.insert(ctx.repo.id, ruleName, request.body.priority ?? 0, settings);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ForbiddenError('Branch protection already exist');
      throw err;
    }
    reply.code(201);
    return toApiProtection(await ruleOf(ctx, ruleName));
  });

  app.post<{ Params: Params; Body: { ids: number[] } }>('/api/v1/repos/:owner/:repo/branch_protections/priority', {
    schema: {
      operationId: 'repoUpdateBranchProtectionPriories',
      tags: ['repository'], summary: 'Update the priorities of branch protections for a repository', params: OwnerRepoParams,
      body: Type.Object({ ids: Type.Array(Type.Integer()) }, { title: 'UpdateBranchProtectionPriories' }), response: { 204: Type.Null(), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'admin');
    const rules = await store.list(ctx.repo.id);
    const known = new Set(rules.map((r) => r.id));
    if (request.body.ids.some((id) => !known.has(id))) throw new UnprocessableError('unknown branch protection id');
    await db.transaction(async (trx) => {
      for (const [i, id] of request.body.ids.entries()) await store.update(id, { priority: i + 1 }, trx);
    });
    reply.code(204);
  });

  app.get<{ Params: Params & { '*': string } }>('/api/v1/repos/:owner/:repo/branch_protections/*', {
    schema: { operationId: 'repoGetBranchProtection', tags: ['repository'], summary: 'Get a specific branch protection for the repository', params: RuleParams, response: { 200: BranchProtection, ...errors } },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoForChange(request, request.params, 'admin', { allowArchived: true });
    return toApiProtection(await ruleOf(ctx, request.params['*']));
  });

  app.patch<{ Params: Params & { '*': string }; Body: Options }>('/api/v1/repos/:owner/:repo/branch_protections/*', {
    schema: {
      operationId: 'repoEditBranchProtection',
      tags: ['repository'], summary: 'Edit a branch protections for a repository. Only fields that are set will be changed',
      params: RuleParams, body: EditBranchProtectionOption, response: { 200: BranchProtection, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoForChange(request, request.params, 'admin');
    const rule = await ruleOf(ctx, request.params['*']);
    const settings = await settingsFrom(ctx, rule.settings, request.body);
    await store.update(rule.id, { settings, priority: request.body.priority });
    return toApiProtection(await ruleOf(ctx, rule.rule_name));
  });

  app.delete<{ Params: Params & { '*': string } }>('/api/v1/repos/:owner/:repo/branch_protections/*', {
    schema: { operationId: 'repoDeleteBranchProtection', tags: ['repository'], summary: 'Delete a specific branch protection for the repository', params: RuleParams, response: { 204: Type.Null(), ...errors } },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'admin');
    const rule = await ruleOf(ctx, request.params['*']);
    await store.remove(rule.id);
    reply.code(204);
  });
}

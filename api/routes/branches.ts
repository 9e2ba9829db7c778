// Branches: list, get (names may contain '/'), create from a ref, delete (routers/api/v1/repo/branch.go).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { renameBranch, updateBranch } from '../../core/branch-changes.js';
import { canMergeUnder, canPushUnder, firstMatchingRule, protectionRules } from '../../core/branch-protection.js';
import { branchesOf, createBranch, deleteBranch, findBranch, markNotEmpty, pathOf } from '../../core/branches.js';
import { NotFoundError } from '../../core/errors.js';
import type { RepoContext } from '../../core/permissions.js';
import { readCommits, type BranchInfo, type CommitSignatureLine } from '../../git/index.js';
import { readPaging, PagingQuery, setPagingHeaders } from '../paging.js';
import { repoForChange, repoFromRequest, doerOf } from '../repo-request.js';
import { ApiError, Branch, CreateBranchOption, OwnerRepoParams } from '../schemas/repo.js';
import { RenameBranchRepoOption, UpdateBranchRepoOption } from '../schemas/code.js';

const errors = { 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 422: ApiError, 423: ApiError };
const BranchParams = Type.Object({ owner: Type.String(), repo: Type.String(), '*': Type.String({ description: 'branch name', 'x-param-name': 'branch' }) });

type Params = { owner: string; repo: string };

export async function branchRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  const deps = { db, config };
  const pushServices = { db, config, pullWorkflows: app.services.pullWorkflows };

  /** The user names of the given e-mail addresses (lower-cased), in one query. */
  async function usernamesByEmail(emails: string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(emails.filter(Boolean).map((e) => e.toLowerCase()))];
    if (wanted.length === 0) return new Map();
    const rows = await db('users').whereIn('lower_email', wanted).select('lower_email', 'name');
    return new Map(rows.map((r: { lower_email: string; name: string }) => [r.lower_email, r.name]));
  }

  /**
   * A page of branches as Gitea shows them: their commits are read with one git process, the rules
   * and the committers' accounts with one query each (a page of 50 branches took half a second
   * when each branch read its own).
   */
  async function toApiBranches(request: FastifyRequest, ctx: RepoContext, branches: BranchInfo[]) {
    if (branches.length === 0) return [];
    const [commits, rules] = await Promise.all([readCommits(pathOf(deps, ctx), branches.map((b) => b.sha)), protectionRules(db, ctx.repo.id)]);
    const usernames = await usernamesByEmail(commits.flatMap((c) => [c.author.email, c.committer.email]));
    const payloadUser = (who: CommitSignatureLine) => ({ name: who.name, email: who.email, username: usernames.get(who.email.toLowerCase()) ?? '' });
    const doer = doerOf(request);
    return Promise.all(branches.map(async (branch, i) => {
      const commit = commits[i]!;
      const rule = firstMatchingRule(rules, branch.name);
      const [userCanPush, userCanMerge] = ctx.repo.is_archived ? [false, false] : await Promise.all([canPushUnder(db, ctx, doer, rule), canMergeUnder(db, ctx, doer, rule)]);
      return {
        name: branch.name,
        commit: {
          id: branch.sha,
          message: commit.message,
          url: `${config.APP_URL}${ctx.owner.name}/${ctx.repo.name}/commit/${branch.sha}`,
          author: payloadUser(commit.author),
          committer: payloadUser(commit.committer),
          verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
          timestamp: commit.committer.date,
          added: null,
          removed: null,
          modified: null,
        },
        protected: rule !== null,
        required_approvals: rule?.settings.required_approvals ?? 0,
        enable_status_check: rule?.settings.enable_status_check ?? false,
        status_check_contexts: rule?.settings.status_check_contexts ?? [],
        user_can_push: userCanPush,
        user_can_merge: userCanMerge,
        effective_branch_protection_name: rule?.rule_name ?? '',
      };
    }));
  }

  app.get<{ Params: Params; Querystring: { page?: number; limit?: number } }>('/api/v1/repos/:owner/:repo/branches', {
    schema: {
      operationId: 'repoListBranches',
      tags: ['repository'], summary: "List a repository's branches", params: OwnerRepoParams,
      querystring: Type.Object(PagingQuery), response: { 200: Type.Array(Branch), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoFromRequest(request, request.params);
    const paging = readPaging(request.query, config);
    const all = await branchesOf(deps, ctx);
    setPagingHeaders(request, reply, all.length, paging, config.APP_URL);
    return toApiBranches(request, ctx, all.slice(paging.offset, paging.offset + paging.limit));
  });

  app.get<{ Params: Params & { '*': string } }>('/api/v1/repos/:owner/:repo/branches/*', {
    schema: { operationId: 'repoGetBranch', tags: ['repository'], summary: 'Retrieve a specific branch from a repository', params: BranchParams, response: { 200: Branch, ...errors } },
    config: { scope: 'repository' },
  }, async (request) => {
    const ctx = await repoFromRequest(request, request.params);
    const branch = await findBranch(deps, ctx, request.params['*']);
    if (!branch) throw new NotFoundError('Branch not found');
    return (await toApiBranches(request, ctx, [branch]))[0];
  });

  app.post<{ Params: Params; Body: { new_branch_name: string; old_branch_name?: string; old_ref_name?: string } }>('/api/v1/repos/:owner/:repo/branches', {
    schema: {
      operationId: 'repoCreateBranch',
      tags: ['repository'], summary: 'Create a branch', params: OwnerRepoParams, body: CreateBranchOption,
      response: { 201: Branch, ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'write');
    const branch = await createBranch(deps, ctx, {
      newBranch: request.body.new_branch_name, oldRef: request.body.old_ref_name, oldBranch: request.body.old_branch_name,
    });
    if (ctx.repo.is_empty) await markNotEmpty(db, ctx.repo.id);
    reply.code(201);
    return (await toApiBranches(request, ctx, [branch]))[0];
  });

  app.patch<{ Params: Params & { '*': string }; Body: Static<typeof RenameBranchRepoOption> }>('/api/v1/repos/:owner/:repo/branches/*', {
    schema: {
      operationId: 'repoRenameBranch', tags: ['repository'], summary: 'Rename a branch',
      params: BranchParams, body: RenameBranchRepoOption, response: { 204: Type.Null(), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'write');
    await renameBranch(pushServices, ctx, ctx.doer, request.params['*'], request.body.name);
    reply.code(204);
  });

  app.put<{ Params: Params & { '*': string }; Body: Static<typeof UpdateBranchRepoOption> }>('/api/v1/repos/:owner/:repo/branches/*', {
    schema: {
      operationId: 'repoUpdateBranch', tags: ['repository'], summary: 'Update a branch reference to a new commit',
      params: BranchParams, body: UpdateBranchRepoOption, response: { 204: Type.Null(), ...errors },
    },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'write');
    const b = request.body;
    await updateBranch(pushServices, ctx, ctx.doer, request.params['*'], { newCommit: b.new_commit_id, oldCommit: b.old_commit_id, force: b.force }, request.log);
    reply.code(204);
  });

  app.delete<{ Params: Params & { '*': string } }>('/api/v1/repos/:owner/:repo/branches/*', {
    schema: { operationId: 'repoDeleteBranch', tags: ['repository'], summary: 'Delete a specific branch from a repository', params: BranchParams, response: { 204: Type.Null(), ...errors } },
    config: { scope: 'repository' },
  }, async (request, reply) => {
    const ctx = await repoForChange(request, request.params, 'write');
    await deleteBranch(deps, ctx, request.params['*']);
    reply.code(204);
  });
}

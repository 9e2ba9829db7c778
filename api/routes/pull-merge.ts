// Merge, auto-merge and update of a pull request: each goes to the pull request's workflow, which
// runs one operation at a time and answers with the HTTP status and body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { UnauthorizedError, UnprocessableError } from '../../core/errors.js';
import { assertNotArchived, type RepoContext } from '../../core/permissions.js';
import { markIssueRead } from '../../core/pulls/read-mark.js';
import { isMergeStyle } from '../../core/pulls/merge-message.js';
import type { PullRow } from '../../db/pulls.js';
import { pullFromRequest } from './pulls.js';
import { cancelAutoMergeUpdate, mergeUpdate, updateBranchUpdate, type MergeRequest, type PullKey } from '../../workflows/pull-messages.js';
import { joinQueueUpdate, leaveQueueUpdate } from '../../workflows/queue-messages.js';
import { queueSettingsFor } from '../../core/merge-queue/settings.js';
import { entryOfPull } from '../../core/merge-queue/entries.js';
import { claimOperation, idempotencyKey, runPullOperation, sendOutcome } from '../pull-operations.js';

const PullParams = Type.Object({
  owner: Type.String({ maxLength: 255 }),
  repo: Type.String({ maxLength: 255 }),
  index: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});

const text = (description: string) => Type.Optional(Type.String({ maxLength: 65535, description }));

// Gitea ≤ 1.25 clients send Do/MergeTitleField/MergeMessageField/MergeCommitID; newer ones snake_case.
const MergePullRequestOption = Type.Object({
  do: Type.Optional(Type.String({ maxLength: 30, description: 'merge, rebase, rebase-merge, squash, fast-forward-only or manually-merged; empty means merge' })),
  Do: Type.Optional(Type.String({ maxLength: 30 })),
  merge_title_field: text('commit title; empty means the default title'),
  MergeTitleField: text('legacy spelling of merge_title_field'),
  merge_message_field: text('commit message body, appended after a blank line'),
  MergeMessageField: text('legacy spelling of merge_message_field'),
  merge_commit_id: Type.Optional(Type.String({ maxLength: 64 })),
  MergeCommitID: Type.Optional(Type.String({ maxLength: 64 })),
  head_commit_id: Type.Optional(Type.String({ maxLength: 64, description: 'expected head commit; 409 when the head moved' })),
  force_merge: Type.Optional(Type.Boolean()),
  merge_when_checks_succeed: Type.Optional(Type.Boolean({ description: 'schedule the merge for when the required checks succeed (201), or merge now when nothing is pending' })),
  delete_branch_after_merge: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
}, { title: 'MergePullRequestOption' });
type MergeBody = Static<typeof MergePullRequestOption>;

const Empty = Type.Null({ description: 'no content' });

const ApiError = Type.Object({ message: Type.String(), url: Type.String() });

function mergeRequestFrom(body: MergeBody, doerId: number): MergeRequest {
  const style = (body.do ?? body.Do ?? '').trim();
  if (style !== '' && !isMergeStyle(style)) throw new UnprocessableError(`[Do]: unknown merge style "${style.slice(0, 30)}"`);
  return {
    doerId,
    style: style as MergeRequest['style'],
    title: body.merge_title_field ?? body.MergeTitleField ?? '',
    message: body.merge_message_field ?? body.MergeMessageField ?? '',
    mergeCommitId: body.merge_commit_id ?? body.MergeCommitID ?? '',
    headCommitId: (body.head_commit_id ?? '').trim(),
    mergeWhenChecksSucceed: body.merge_when_checks_succeed ?? false,
    forceMerge: body.force_merge ?? false,
    deleteBranchAfterMerge: body.delete_branch_after_merge ?? null,
  };
}

export async function pullMergeRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;

  /** The pull request and its repository, with the pull request routes' 404s (pull requests disabled included). */
  async function loadPull(request: FastifyRequest): Promise<{ ctx: RepoContext; pull: PullRow; key: PullKey }> {
    const { ctx, pull } = await pullFromRequest(request, request.params as Static<typeof PullParams>);
    return { ctx, pull, key: { repoId: ctx.repo.id, index: pull.index } };
  }

  app.post('/api/v1/repos/:owner/:repo/pulls/:index/merge', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'repoMergePullRequest',
      tags: ['repository'], summary: 'Merge a pull request', params: PullParams, body: MergePullRequestOption,
      description: 'On a branch whose protection turns the merge queue on, merge_when_checks_succeed joins the queue (201) and a plain merge answers 405 unless an administrator forces it. Runs in the pull request\'s workflow, one operation at a time. A retried request with the same Idempotency-Key header gets the first answer back (for 24 h); without one, each request is judged afresh. 409 for conflicts carries Gitea\'s raw error struct plus ConflictedFiles.',
      response: { 200: Empty, 201: Empty, 404: ApiError, 405: ApiError, 409: Type.Unknown(), 423: ApiError },
    },
  }, async (request, reply) => {
    const { ctx, pull, key } = await loadPull(request);
    if (!request.doer) throw new UnauthorizedError('token is required');
    assertNotArchived(ctx.repo);
    const mergeRequest = mergeRequestFrom(request.body as MergeBody, request.doer.id);
    // On a branch with a merge queue, "merge when checks succeed" joins the queue (its checks run
    // on the queue's speculative commit); a plain merge is refused by the merge itself.
    if (mergeRequest.mergeWhenChecksSucceed && !pull.has_merged && (await queueSettingsFor(db, ctx.repo.id, pull.base_branch)).enabled) {
      const queue = { repoId: ctx.repo.id, branch: pull.base_branch };
      const joined = await runPullOperation(app.services, key, joinQueueUpdate, { index: key.index, doerId: request.doer.id }, idempotencyKey(request, 'joinQueue', key), queue);
      return sendOutcome(reply, joined, config.APP_URL);
    }
    if (pull.head_repo_id === ctx.repo.id) {
      mergeRequest.where = { owner: ctx.owner.name, repo: ctx.repo.name, baseBranch: pull.base_branch, headBranch: pull.head_branch };
    }
    // Marked read alongside the merge, not before it: the mark does not change what the merge does,
    // and a failed mark must not turn a done merge into an error.
    const reading = markIssueRead(db, pull.issue_id, request.doer.id).catch((err: unknown) => request.log.warn({ err }, 'marking the pull request read failed'));
    const operationKey = await claimOperation(app.services, idempotencyKey(request, 'merge', key));
    const outcome = await runPullOperation(app.services, key, mergeUpdate, mergeRequest, operationKey);
    await reading;
    return sendOutcome(reply, outcome, config.APP_URL);
  });

  app.delete('/api/v1/repos/:owner/:repo/pulls/:index/merge', {
    config: { scope: 'issue' },
    schema: {
      operationId: 'repoCancelScheduledAutoMerge',
      tags: ['repository'], summary: 'Cancel the scheduled auto merge for the given pull request', params: PullParams,
      description: 'A pull request in a merge queue leaves the queue (204).',
      response: { 204: Empty, 403: ApiError, 404: ApiError, 423: ApiError },
    },
  }, async (request, reply) => {
    const { ctx, pull, key } = await loadPull(request);
    if (!request.doer) throw new UnauthorizedError('token is required');
    assertNotArchived(ctx.repo);
    const queued = await entryOfPull(db, pull.id);
    if (queued) {
      const queue = { repoId: ctx.repo.id, branch: queued.branch };
      const left = await runPullOperation(app.services, key, leaveQueueUpdate, { index: key.index, doerId: request.doer.id }, idempotencyKey(request, 'leaveQueue', key), queue);
      return sendOutcome(reply, left, config.APP_URL);
    }
    const outcome = await runPullOperation(app.services, key, cancelAutoMergeUpdate, { doerId: request.doer.id }, idempotencyKey(request, 'cancelAutoMerge', key));
    return sendOutcome(reply, outcome, config.APP_URL);
  });

  app.post('/api/v1/repos/:owner/:repo/pulls/:index/update', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoUpdatePullRequest',
      tags: ['repository'], summary: 'Merge the base branch into the pull request\'s head branch (or rebase the head onto it)', params: PullParams,
      querystring: Type.Object({ style: Type.Optional(Type.String({ maxLength: 30, description: 'merge (default) or rebase; anything else means merge' })) }),
      description: 'An already up-to-date head answers 200 (Gitea answers 500).',
      response: { 200: Empty, 403: ApiError, 404: ApiError, 409: ApiError, 422: ApiError },
    },
  }, async (request, reply) => {
    const { ctx, key } = await loadPull(request);
    if (!request.doer) throw new UnauthorizedError('token is required');
    assertNotArchived(ctx.repo);
    const style = (request.query as { style?: string }).style === 'rebase' ? 'rebase' : 'merge';
    const outcome = await runPullOperation(app.services, key, updateBranchUpdate, { doerId: request.doer.id, style }, idempotencyKey(request, 'update', key));
    return sendOutcome(reply, { status: outcome.status, body: outcome.status === 200 ? undefined : outcome.body }, config.APP_URL);
  });
}

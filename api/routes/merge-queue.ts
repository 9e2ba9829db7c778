// GET /repos/{owner}/{repo}/merge_queue/{branch}: a branch's merge queue as its workflow last
// published it (the entries in order, each with its state, speculative commit and branch, who
// queued it and when, and the checks seen on its batch's commit).
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { listEntries } from '../../core/merge-queue/entries.js';
import { queueSettingsFor } from '../../core/merge-queue/settings.js';
import { toApiUser } from '../../core/wire/user.js';
import { usersStore } from '../../db/users.js';
import { unixToIso } from '../../db/time.js';
import { ApiError } from '../schemas/repo.js';
import { pullRepoFromRequest } from './pulls.js';

const Params = Type.Object({ owner: Type.String({ maxLength: 255 }), repo: Type.String({ maxLength: 255 }), '*': Type.String({ maxLength: 255, description: 'the base branch', 'x-param-name': 'branch' }) });
const Nullable = (description: string) => Type.Unsafe<string | null>({ type: 'string', nullable: true, description });

const MergeQueueEntry = Type.Object({
  position: Type.Integer(),
  number: Type.Integer({ description: 'the pull request' }),
  state: Type.String({ description: 'waiting, building, pending (checks), landing or failed' }),
  head_sha: Type.String(),
  speculative_commit: Nullable('the base after this entry and every one ahead of it land'),
  speculative_branch: Nullable('merge-queue/<base>/pr-<index>-<short head>: set on the last entry of each batch being checked'),
  queued_by: Type.Unknown(),
  queued_at: Type.String(),
  checks: Type.Array(Type.Object({ context: Type.String(), state: Type.String() })),
}, { title: 'MergeQueueEntry' });

const MergeQueue = Type.Object({
  branch: Type.String(),
  enabled: Type.Boolean(),
  entries: Type.Array(MergeQueueEntry),
}, { title: 'MergeQueue' });

export async function mergeQueueRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.services;
  app.get<{ Params: { owner: string; repo: string; '*': string } }>('/api/v1/repos/:owner/:repo/merge_queue/*', {
    config: { scope: 'repository' },
    schema: {
      operationId: 'repoGetMergeQueue', tags: ['repository'], summary: 'Get the merge queue of a branch', params: Params,
      response: { 200: MergeQueue, 404: ApiError },
    },
  }, async (request) => {
    // The merge queue is part of pull requests: 404 where they are disabled, as their routes answer.
    const ctx = await pullRepoFromRequest(request, request.params);
    const branch = request.params['*'];
    const [settings, rows] = await Promise.all([queueSettingsFor(db, ctx.repo.id, branch), listEntries(db, ctx.repo.id, branch)]);
    const users = await usersStore(db).byIds(rows.map((r) => r.doer_id));
    return {
      branch,
      enabled: settings.enabled,
      entries: rows.map((r, i) => ({
        position: i + 1, number: r.pull_index, state: r.state, head_sha: r.head_sha, speculative_commit: r.spec_commit, speculative_branch: r.spec_branch,
        queued_by: users.get(r.doer_id) ? toApiUser(users.get(r.doer_id)!, request.doer ?? null, config.APP_URL) : null,
        queued_at: unixToIso(r.queued_unix)!,
        checks: r.checks ? (JSON.parse(r.checks) as Array<{ context: string; state: string }>) : [],
      })),
    };
  });
}

// The commit a merge makes, planned from the pull request's rows and a mergeability check: message,
// author and committer, parents and tree.
import type { Knex } from 'knex';
import type { StyleMergeRequest } from '../../git/index.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { gitIdentity } from './git-identity.js';
import { composeMergeMessage, defaultMergeTitle } from './merge-message.js';
import type { MergeabilityResult } from './mergeability.js';
import type { PullOperationContext } from './operation-context.js';
import type { MergeRequest, MergeStyle } from '../../workflows/pull-messages.js';

/** `date`: git's raw date of both identities (gitTimestamp), fixed so the commit's name is known in advance. */
export async function planMergeCommit(
  db: Knex, ctx: PullOperationContext, doer: UserRow, op: Pick<MergeRequest, 'title' | 'message'>, style: MergeStyle,
  mergeability: MergeabilityResult, date: string,
): Promise<StyleMergeRequest> {
  const poster = style !== 'squash' || !ctx.issue.poster_id ? undefined : ctx.issue.poster_id === doer.id ? doer : await usersStore(db).byId(ctx.issue.poster_id);
  const messageFacts = {
    style, title: ctx.issue.title, index: ctx.pull.index, headBranch: ctx.pull.head_branch, baseBranch: ctx.pull.base_branch,
    headRepoFullName: ctx.headRepo && ctx.headRepo.id !== ctx.baseRepo.id && ctx.headOwner ? `${ctx.headOwner.name}/${ctx.headRepo.name}` : null,
    headRepoDeleted: ctx.headRepo === null,
  };
  let message = composeMergeMessage(op.title, op.message, defaultMergeTitle(messageFacts));
  const committer = gitIdentity(doer, date);
  const author = style === 'squash' && poster ? gitIdentity(poster, date) : committer;
  if (style === 'squash' && (author.email !== committer.email || author.name !== committer.name)) {
    message += `\n\nCo-authored-by: ${committer.name} <${committer.email}>\nCo-committed-by: ${committer.name} <${committer.email}>`;
  }
  return {
    base: mergeability.baseSha, head: mergeability.headSha, message, author, committer,
    known: { knownMergeBase: mergeability.mergeBase, knownTree: mergeability.tree, baseTree: mergeability.baseTree },
  };
}

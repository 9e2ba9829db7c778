// The API document names this area's operations and models as Gitea's does (its
// templates/swagger/v1_json.tmpl), so a client generated from either document reads the same.
import t from 'tap';
import { startWorld } from './world.js';

// [method, path, Gitea's operationId, Gitea's request body model, Gitea's success response model]
const OPERATIONS: Array<[string, string, string, string?, string?]> = [
  ['get', '/repos/{owner}/{repo}/issues/{index}/labels', 'issueGetLabels', undefined, 'Label'],
  ['post', '/repos/{owner}/{repo}/issues/{index}/labels', 'issueAddLabel', 'IssueLabelsOption', 'Label'],
  ['put', '/repos/{owner}/{repo}/issues/{index}/labels', 'issueReplaceLabels', 'IssueLabelsOption', 'Label'],
  ['delete', '/repos/{owner}/{repo}/issues/{index}/labels', 'issueClearLabels'],
  ['delete', '/repos/{owner}/{repo}/issues/{index}/labels/{id}', 'issueRemoveLabel'],
  ['get', '/repos/{owner}/{repo}/issues/comments', 'issueGetRepoComments', undefined, 'Comment'],
  ['get', '/repos/{owner}/{repo}/issues/comments/{id}', 'issueGetComment', undefined, 'Comment'],
  ['patch', '/repos/{owner}/{repo}/issues/comments/{id}', 'issueEditComment', 'EditIssueCommentOption', 'Comment'],
  ['delete', '/repos/{owner}/{repo}/issues/comments/{id}', 'issueDeleteComment'],
  ['get', '/repos/{owner}/{repo}/issues/{index}/comments', 'issueGetComments', undefined, 'Comment'],
  ['post', '/repos/{owner}/{repo}/issues/{index}/comments', 'issueCreateComment', 'CreateIssueCommentOption', 'Comment'],
  ['patch', '/repos/{owner}/{repo}/issues/{index}/comments/{id}', 'issueEditCommentDeprecated', 'EditIssueCommentOption', 'Comment'],
  ['delete', '/repos/{owner}/{repo}/issues/{index}/comments/{id}', 'issueDeleteCommentDeprecated'],
  ['get', '/repos/{owner}/{repo}/issues/{index}/reactions', 'issueGetIssueReactions', undefined, 'Reaction'],
  ['post', '/repos/{owner}/{repo}/issues/{index}/reactions', 'issuePostIssueReaction', 'EditReactionOption', 'Reaction'],
  ['delete', '/repos/{owner}/{repo}/issues/{index}/reactions', 'issueDeleteIssueReaction', 'EditReactionOption'],
  ['get', '/repos/{owner}/{repo}/issues/comments/{id}/reactions', 'issueGetCommentReactions', undefined, 'Reaction'],
  ['post', '/repos/{owner}/{repo}/issues/comments/{id}/reactions', 'issuePostCommentReaction', 'EditReactionOption', 'Reaction'],
  ['delete', '/repos/{owner}/{repo}/issues/comments/{id}/reactions', 'issueDeleteCommentReaction', 'EditReactionOption'],
  ['get', '/repos/{owner}/{repo}/issues/{index}/timeline', 'issueGetCommentsAndTimeline', undefined, 'TimelineComment'],
  ['get', '/repos/{owner}/{repo}/issues', 'issueListIssues', undefined, 'Issue'],
  ['post', '/repos/{owner}/{repo}/issues', 'issueCreateIssue', 'CreateIssueOption', 'Issue'],
  ['get', '/repos/{owner}/{repo}/issues/{index}', 'issueGetIssue', undefined, 'Issue'],
  ['patch', '/repos/{owner}/{repo}/issues/{index}', 'issueEditIssue', 'EditIssueOption', 'Issue'],
  ['get', '/repos/{owner}/{repo}/labels', 'issueListLabels', undefined, 'Label'],
  ['post', '/repos/{owner}/{repo}/labels', 'issueCreateLabel', 'CreateLabelOption', 'Label'],
  ['get', '/repos/{owner}/{repo}/labels/{id}', 'issueGetLabel', undefined, 'Label'],
  ['patch', '/repos/{owner}/{repo}/labels/{id}', 'issueEditLabel', 'EditLabelOption', 'Label'],
  ['delete', '/repos/{owner}/{repo}/labels/{id}', 'issueDeleteLabel'],
  ['get', '/orgs/{org}/labels', 'orgListLabels', undefined, 'Label'],
  ['post', '/orgs/{org}/labels', 'orgCreateLabel', 'CreateLabelOption', 'Label'],
  ['get', '/orgs/{org}/labels/{id}', 'orgGetLabel', undefined, 'Label'],
  ['patch', '/orgs/{org}/labels/{id}', 'orgEditLabel', 'EditLabelOption', 'Label'],
  ['delete', '/orgs/{org}/labels/{id}', 'orgDeleteLabel'],
  ['get', '/repos/{owner}/{repo}/pulls/{index}/reviews', 'repoListPullReviews', undefined, 'PullReview'],
  ['post', '/repos/{owner}/{repo}/pulls/{index}/reviews', 'repoCreatePullReview', 'CreatePullReviewOptions', 'PullReview'],
  ['get', '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', 'repoGetPullReview', undefined, 'PullReview'],
  ['post', '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', 'repoSubmitPullReview', 'SubmitPullReviewOptions', 'PullReview'],
  ['delete', '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', 'repoDeletePullReview'],
  ['get', '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments', 'repoGetPullReviewComments', undefined, 'PullReviewComment'],
  ['post', '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/dismissals', 'repoDismissPullReview', 'DismissPullReviewOptions', 'PullReview'],
  ['post', '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/undismissals', 'repoUnDismissPullReview', undefined, 'PullReview'],
  ['post', '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers', 'repoCreatePullReviewRequests', 'PullReviewRequestOptions', 'PullReview'],
  ['delete', '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers', 'repoDeletePullReviewRequests', 'PullReviewRequestOptions'],
  ['post', '/repos/{owner}/{repo}/pulls/comments/{id}/resolve', 'repoResolvePullReviewComment'],
  ['post', '/repos/{owner}/{repo}/pulls/comments/{id}/unresolve', 'repoUnresolvePullReviewComment'],
  ['get', '/repos/{owner}/{repo}/statuses/{sha}', 'repoListStatuses', undefined, 'CommitStatus'],
  ['post', '/repos/{owner}/{repo}/statuses/{sha}', 'repoCreateStatus', 'CreateStatusOption', 'CommitStatus'],
  ['get', '/repos/{owner}/{repo}/commits/{ref}/statuses', 'repoListStatusesByRef', undefined, 'CommitStatus'],
  ['get', '/repos/{owner}/{repo}/commits/{ref}/status', 'repoGetCombinedStatusByRef', undefined, 'CombinedStatus'],
];

interface Schema { title?: string; $ref?: string; type?: string; items?: Schema }
interface Operation { operationId?: string; parameters?: Array<{ in: string; schema?: Schema }>; responses?: Record<string, { schema?: Schema }> }

/** A model's name whether the document keeps it inline (title) or as a definition ($ref). */
function modelName(schema: Schema | undefined, definitions: Record<string, Schema>): string | undefined {
  if (!schema) return undefined;
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    return definitions[name]?.title ?? name;
  }
  if (schema.type === 'array' && schema.items) return modelName(schema.items, definitions);
  return schema.title;
}

t.test("operationIds and model names are Gitea's", async (t) => {
  const w = await startWorld(t, { temporal: false });
  const doc = (await w.app.inject('/swagger.v1.json')).json() as { basePath?: string; paths: Record<string, Record<string, Operation>>; definitions?: Record<string, Schema> };
  // The document's paths may or may not carry /api/v1 (a basePath says which).
  const paths = new Map(Object.entries(doc.paths).map(([p, ops]) => [p.replace(/^\/api\/v1/, ''), ops]));
  for (const [method, path, operationId, body, response] of OPERATIONS) {
    const op = paths.get(path)?.[method];
    t.ok(op, `${method.toUpperCase()} ${path} is documented`);
    if (!op) continue;
    t.equal(op.operationId, operationId, `${method.toUpperCase()} ${path}`);
    if (body) t.equal(modelName(op.parameters?.find((p) => p.in === 'body')?.schema, doc.definitions ?? {}), body, `${operationId} takes ${body}`);
    if (response) {
      const ok = Object.entries(op.responses ?? {}).find(([code]) => code.startsWith('2'))?.[1];
      t.equal(modelName(ok?.schema, doc.definitions ?? {}), response, `${operationId} answers ${response}`);
    }
  }
});

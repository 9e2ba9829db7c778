// The authorization table: every repository endpoint, walked as each kind of caller, with the status
// each must get. Later features append their rows to `authorizationRows`.
//
// The world the rows run in (built by authorization.test.ts): organization `guild` owns the public
// repository `pub` and the private `priv`; on both, `rita` is a read collaborator, `walt` a write
// collaborator, `adam` an admin collaborator; `tina` is on guild's team `crew` (write, all
// repositories); `nora` has no access; `sam` is a site admin; `bart` is blocked by guild; "sudo" is
// sam acting as walt. `{actor}` in a URL or body is replaced by the actor's key so rows that create
// things do not collide; `{pubId}`/`{privId}` are the repositories' ids. Branches `del-{actor}` and
// repositories `guild/doomed-{actor}` (public, same grants) exist for the deleting rows.
//
// The issue and pull request rows act on what the world makes in both `pub` and `priv` (as olive,
// guild's owner): label `bug` ({pubLabel}/{privLabel}), milestone `m1`, issue {pubIssue}/{privIssue},
// the open pull request {pubPull}/{privPull} (head `feature`, base `main`) and the tip of `main` when
// the world was built ({pubSha}/{privSha}). Per actor: label {delLabel} and milestone `mdel-{actor}` (pub)
// to delete, issue {pubDepIssue}/{privDepIssue} to give a dependency, pushed branch `pr-{actor}` to
// open a pull request from, pull request {pubMergePull}/{privMergePull} (head `m-{actor}`) to merge,
// and in pub pull request {autoPull} (head `a-{actor}`, base `guarded`, whose protection requires the
// never-reported check `ci`) with an auto-merge olive scheduled. {mergedPull}/{privMergedPull} is
// the writer's merge pull request, merged by the time the rows after the merge rows run.

export const ACTORS = ['anonymous', 'noAccess', 'reader', 'writer', 'adminCollaborator', 'teamMember', 'siteAdmin', 'blocked', 'sudo'] as const;
export type Actor = (typeof ACTORS)[number];
export type Expectations = Record<Actor, number>;

export interface AuthorizationRow {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  body?: unknown;
  expect: Expectations;
}

function row(name: string, method: AuthorizationRow['method'], url: string, statuses: number[], body?: unknown): AuthorizationRow {
  const expect = Object.fromEntries(ACTORS.map((a, i) => [a, statuses[i]!])) as Expectations;
  return { name, method, url, body, expect };
}

//                                  anon noAcc read writ admC team site blkd sudo
const PUBLIC_READ = /*          */ [200, 200, 200, 200, 200, 200, 200, 200, 200];
const PRIVATE_READ = /*         */ [404, 404, 200, 200, 200, 200, 200, 404, 200];
const SIGNED_IN_READ = /*       */ [401, 200, 200, 200, 200, 200, 200, 200, 200];
const REPO_ADMIN = (ok: number) => [401, 403, 403, 403, ok, 403, ok, 403, 403];
const REPO_WRITE = (ok: number) => [401, 403, 403, ok, ok, ok, ok, 403, ok];
const PRIVATE_ADMIN = (ok: number) => [404, 404, 403, 403, ok, 403, ok, 404, 403];
// What readers may do too (open issues and pull requests, comment, review), except the blocked.
const PARTICIPATE = (ok: number) => [401, ok, ok, ok, ok, ok, ok, 403, ok];
// A private repository is 404 to anonymous callers on every route, writes included (Gitea's
// repoAssignment runs before reqToken); `anonPriv` is the anonymous caller's status there.
const PRIVATE_PARTICIPATE = (ok: number, anonPriv: number) => [anonPriv, 404, ok, ok, ok, ok, ok, 404, ok];
const PRIVATE_WRITE = (ok: number, anonPriv: number) => [anonPriv, 404, 403, ok, ok, ok, ok, 404, ok];
const PUBLIC_GONE = /*          */ [404, 404, 404, 404, 404, 404, 404, 404, 404];
const REPO_FIRST = 404;

export const authorizationRows: AuthorizationRow[] = [
  row('get public repository', 'GET', '/api/v1/repos/guild/pub', PUBLIC_READ),
  row('get private repository', 'GET', '/api/v1/repos/guild/priv', PRIVATE_READ),
  row('get public repository by id', 'GET', '/api/v1/repositories/{pubId}', PUBLIC_READ),
  row('get private repository by id', 'GET', '/api/v1/repositories/{privId}', PRIVATE_READ),
  row('edit public repository', 'PATCH', '/api/v1/repos/guild/pub', REPO_ADMIN(200), { description: 'edited by {actor}' }),
  row('edit private repository', 'PATCH', '/api/v1/repos/guild/priv', PRIVATE_ADMIN(200), { description: 'edited by {actor}' }),
  row('delete repository (owner only)', 'DELETE', '/api/v1/repos/guild/doomed-{actor}', [401, 403, 403, 403, 403, 403, 204, 403, 403]),
  row('create own repository', 'POST', '/api/v1/user/repos', [401, 201, 201, 201, 201, 201, 201, 201, 201], { name: 'own-{actor}' }),
  row('create organization repository', 'POST', '/api/v1/orgs/guild/repos', [401, 403, 403, 403, 403, 403, 201, 403, 403], { name: 'org-{actor}' }),
  row('admin creates repository for a user', 'POST', '/api/v1/admin/users/nora/repos', [401, 403, 403, 403, 403, 403, 201, 403, 403], { name: 'adm-{actor}' }),
  row('fork public repository (sudo acts as walt, who forked already: 409)', 'POST', '/api/v1/repos/guild/pub/forks', [401, 202, 202, 202, 202, 202, 202, 403, 409], { name: 'fork-{actor}' }),
  row('fork private repository (sudo: 409, as above)', 'POST', '/api/v1/repos/guild/priv/forks', [404, 404, 202, 202, 202, 202, 202, 404, 409], { name: 'pfork-{actor}' }),
  row('list forks of public repository', 'GET', '/api/v1/repos/guild/pub/forks', PUBLIC_READ),
  row('list forks of private repository', 'GET', '/api/v1/repos/guild/priv/forks', PRIVATE_READ),
  row('list branches (public)', 'GET', '/api/v1/repos/guild/pub/branches', PUBLIC_READ),
  row('list branches (private)', 'GET', '/api/v1/repos/guild/priv/branches', PRIVATE_READ),
  row('get branch (private)', 'GET', '/api/v1/repos/guild/priv/branches/main', PRIVATE_READ),
  row('create branch', 'POST', '/api/v1/repos/guild/pub/branches', REPO_WRITE(201), { new_branch_name: 'b-{actor}' }),
  row('delete branch', 'DELETE', '/api/v1/repos/guild/pub/branches/del-{actor}', REPO_WRITE(204)),
  row('delete default branch', 'DELETE', '/api/v1/repos/guild/pub/branches/main', REPO_WRITE(403)),
  row('list branch protections', 'GET', '/api/v1/repos/guild/pub/branch_protections', REPO_ADMIN(200)),
  row('create branch protection', 'POST', '/api/v1/repos/guild/pub/branch_protections', REPO_ADMIN(201), { rule_name: 'rule-{actor}' }),
  row('get branch protection of private repository', 'GET', '/api/v1/repos/guild/priv/branch_protections/main', PRIVATE_ADMIN(200)),
  row('list collaborators', 'GET', '/api/v1/repos/guild/pub/collaborators', SIGNED_IN_READ),
  row('list collaborators (private)', 'GET', '/api/v1/repos/guild/priv/collaborators', [404, 404, 200, 200, 200, 200, 200, 404, 200]),
  row('check collaborator', 'GET', '/api/v1/repos/guild/pub/collaborators/walt', [401, 204, 204, 204, 204, 204, 204, 204, 204]),
  row('add collaborator', 'PUT', '/api/v1/repos/guild/pub/collaborators/extra', REPO_ADMIN(204), { permission: 'read' }),
  row('remove collaborator', 'DELETE', '/api/v1/repos/guild/pub/collaborators/extra', REPO_ADMIN(204)),
  row('collaborator permission of walt', 'GET', '/api/v1/repos/guild/pub/collaborators/walt/permission', [401, 403, 403, 200, 200, 403, 200, 403, 200]),
  row('git ref advertisement for fetch (public)', 'GET', '/guild/pub.git/info/refs?service=git-upload-pack', PUBLIC_READ),
  row('git ref advertisement for fetch (private)', 'GET', '/guild/priv.git/info/refs?service=git-upload-pack', [401, 404, 200, 200, 200, 200, 200, 404, 200]),
  row('git ref advertisement for push', 'GET', '/guild/pub.git/info/refs?service=git-receive-pack', [401, 403, 403, 200, 200, 200, 200, 403, 200]),

  // ---- code: commits, git data, contents, raw files, archives, tags, branch rename and update
  row('list commits', 'GET', '/api/v1/repos/guild/pub/commits', PUBLIC_READ),
  row('list commits (private)', 'GET', '/api/v1/repos/guild/priv/commits', PRIVATE_READ),
  row('get commit', 'GET', '/api/v1/repos/guild/pub/git/commits/{pubSha}', PUBLIC_READ),
  row('get commit (private)', 'GET', '/api/v1/repos/guild/priv/git/commits/{privSha}', PRIVATE_READ),
  row('commit .patch (private)', 'GET', '/api/v1/repos/guild/priv/git/commits/{privSha}.patch', PRIVATE_READ),
  row('list git refs (private)', 'GET', '/api/v1/repos/guild/priv/git/refs', PRIVATE_READ),
  row('list git refs under heads', 'GET', '/api/v1/repos/guild/pub/git/refs/heads', PUBLIC_READ),
  row('get tree (private)', 'GET', '/api/v1/repos/guild/priv/git/trees/main', PRIVATE_READ),
  row('list root contents', 'GET', '/api/v1/repos/guild/pub/contents', PUBLIC_READ),
  row('get file contents (private)', 'GET', '/api/v1/repos/guild/priv/contents/README.md', PRIVATE_READ),
  row('raw file (private)', 'GET', '/api/v1/repos/guild/priv/raw/README.md', PRIVATE_READ),
  row('media file', 'GET', '/api/v1/repos/guild/pub/media/README.md?ref=main', PUBLIC_READ),
  row('archive (zip)', 'GET', '/api/v1/repos/guild/pub/archive/main.zip', PUBLIC_READ),
  row('archive (tar.gz, private)', 'GET', '/api/v1/repos/guild/priv/archive/main.tar.gz', PRIVATE_READ),
  row('create file', 'POST', '/api/v1/repos/guild/pub/contents/file-{actor}.txt', REPO_WRITE(201), { content: 'eA==', new_branch: 'c-{actor}' }),
  row('create file (private)', 'POST', '/api/v1/repos/guild/priv/contents/file-{actor}.txt', PRIVATE_WRITE(201, REPO_FIRST), { content: 'eA==', new_branch: 'c-{actor}' }),
  row('update file (no sha: created)', 'PUT', '/api/v1/repos/guild/pub/contents/put-{actor}.txt', REPO_WRITE(201), { content: 'eA==', branch: 'c-{actor}' }),
  row('delete file', 'DELETE', '/api/v1/repos/guild/pub/contents/file-{actor}.txt', REPO_WRITE(200), { sha: 'c1b0730e0133447badcfd47fd144e254807b06e1', branch: 'c-{actor}' }),
  row('change files', 'POST', '/api/v1/repos/guild/pub/contents', REPO_WRITE(201), { files: [{ operation: 'create', path: 'multi-{actor}', content: 'eA==' }], new_branch: 'm2-{actor}' }),
  row('list tags', 'GET', '/api/v1/repos/guild/pub/tags', PUBLIC_READ),
  row('create tag', 'POST', '/api/v1/repos/guild/pub/tags', REPO_WRITE(201), { tag_name: 't-{actor}', message: 'tagged by {actor}' }),
  row('create tag (private)', 'POST', '/api/v1/repos/guild/priv/tags', PRIVATE_WRITE(201, REPO_FIRST), { tag_name: 't-{actor}' }),
  row('get tag (private; readers see none of the writers\' tags they could not make)', 'GET', '/api/v1/repos/guild/priv/tags/t-{actor}', [404, 404, 404, 200, 200, 200, 200, 404, 200]),
  row('delete tag', 'DELETE', '/api/v1/repos/guild/pub/tags/t-{actor}', REPO_WRITE(204)),
  row('rename branch', 'PATCH', '/api/v1/repos/guild/pub/branches/b-{actor}', REPO_WRITE(204), { name: 'rn-{actor}' }),
  row('update branch to the commit it has', 'PUT', '/api/v1/repos/guild/pub/branches/rn-{actor}', REPO_WRITE(204), { new_commit_id: '{pubSha}' }),

  // ---- labels (labels.ts)
  row('list labels', 'GET', '/api/v1/repos/guild/pub/labels', PUBLIC_READ),
  row('list labels (private)', 'GET', '/api/v1/repos/guild/priv/labels', PRIVATE_READ),
  row('get label', 'GET', '/api/v1/repos/guild/pub/labels/{pubLabel}', PUBLIC_READ),
  row('get label (private)', 'GET', '/api/v1/repos/guild/priv/labels/{privLabel}', PRIVATE_READ),
  row('create label', 'POST', '/api/v1/repos/guild/pub/labels', REPO_WRITE(201), { name: 'l-{actor}', color: '#00aabb' }),
  row('create label (private)', 'POST', '/api/v1/repos/guild/priv/labels', PRIVATE_WRITE(201, REPO_FIRST), { name: 'l-{actor}', color: '#00aabb' }),
  row('edit label', 'PATCH', '/api/v1/repos/guild/pub/labels/{pubLabel}', REPO_WRITE(200), { description: 'edited by {actor}' }),
  row('edit label (private)', 'PATCH', '/api/v1/repos/guild/priv/labels/{privLabel}', PRIVATE_WRITE(200, REPO_FIRST), { description: 'edited by {actor}' }),
  row('delete label', 'DELETE', '/api/v1/repos/guild/pub/labels/{delLabel}', REPO_WRITE(204)),
  // Not this repository's label: nothing is deleted, and Gitea answers 204 as for any id that names nothing.
  row('delete pub\'s label through priv (not this repository\'s: 204, nothing deleted)', 'DELETE', '/api/v1/repos/guild/priv/labels/{pubLabel}', PRIVATE_WRITE(204, REPO_FIRST)),

  // ---- milestones (milestones.ts; `{id}` may be a name)
  row('list milestones', 'GET', '/api/v1/repos/guild/pub/milestones', PUBLIC_READ),
  row('list milestones (private)', 'GET', '/api/v1/repos/guild/priv/milestones', PRIVATE_READ),
  row('get milestone by name', 'GET', '/api/v1/repos/guild/pub/milestones/m1', PUBLIC_READ),
  row('get milestone (private)', 'GET', '/api/v1/repos/guild/priv/milestones/m1', PRIVATE_READ),
  row('create milestone', 'POST', '/api/v1/repos/guild/pub/milestones', REPO_WRITE(201), { title: 'ms-{actor}' }),
  row('create milestone (private)', 'POST', '/api/v1/repos/guild/priv/milestones', PRIVATE_WRITE(201, REPO_FIRST), { title: 'ms-{actor}' }),
  row('edit milestone', 'PATCH', '/api/v1/repos/guild/pub/milestones/m1', REPO_WRITE(200), { description: 'edited by {actor}' }),
  row('edit milestone (private)', 'PATCH', '/api/v1/repos/guild/priv/milestones/m1', PRIVATE_WRITE(200, REPO_FIRST), { description: 'edited by {actor}' }),
  row('delete milestone', 'DELETE', '/api/v1/repos/guild/pub/milestones/mdel-{actor}', REPO_WRITE(204)),

  // ---- issues (issues.ts)
  row('list issues', 'GET', '/api/v1/repos/guild/pub/issues', PUBLIC_READ),
  row('list issues (private)', 'GET', '/api/v1/repos/guild/priv/issues', PRIVATE_READ),
  row('get issue', 'GET', '/api/v1/repos/guild/pub/issues/{pubIssue}', PUBLIC_READ),
  row('get issue (private)', 'GET', '/api/v1/repos/guild/priv/issues/{privIssue}', PRIVATE_READ),
  row('create issue', 'POST', '/api/v1/repos/guild/pub/issues', PARTICIPATE(201), { title: 'issue by {actor}' }),
  row('create issue (private)', 'POST', '/api/v1/repos/guild/priv/issues', PRIVATE_PARTICIPATE(201, REPO_FIRST), { title: 'issue by {actor}' }),
  row('edit issue (someone else\'s: poster or writer)', 'PATCH', '/api/v1/repos/guild/pub/issues/{pubIssue}', REPO_WRITE(201), { body: 'edited by {actor}' }),
  row('edit issue (private)', 'PATCH', '/api/v1/repos/guild/priv/issues/{privIssue}', PRIVATE_WRITE(201, REPO_FIRST), { body: 'edited by {actor}' }),

  // ---- comments (comments.ts)
  row('list comments', 'GET', '/api/v1/repos/guild/pub/issues/{pubIssue}/comments', PUBLIC_READ),
  row('list comments (private)', 'GET', '/api/v1/repos/guild/priv/issues/{privIssue}/comments', PRIVATE_READ),
  row('create comment', 'POST', '/api/v1/repos/guild/pub/issues/{pubIssue}/comments', PARTICIPATE(201), { body: 'comment by {actor}' }),
  row('create comment (private)', 'POST', '/api/v1/repos/guild/priv/issues/{privIssue}/comments', PRIVATE_PARTICIPATE(201, REPO_FIRST), { body: 'comment by {actor}' }),

  // ---- timeline (timeline.ts): read as the comments list is
  row('issue timeline', 'GET', '/api/v1/repos/guild/pub/issues/{pubIssue}/timeline', PUBLIC_READ),
  row('issue timeline (private)', 'GET', '/api/v1/repos/guild/priv/issues/{privIssue}/timeline', PRIVATE_READ),
  row('pull request timeline', 'GET', '/api/v1/repos/guild/pub/issues/{pubPull}/timeline', PUBLIC_READ),
  row('pull request timeline (private)', 'GET', '/api/v1/repos/guild/priv/issues/{privPull}/timeline', PRIVATE_READ),

  // ---- dependencies (dependencies.ts): the actor's issue is blocked by the world's issue, then not
  row('list dependencies', 'GET', '/api/v1/repos/guild/pub/issues/{pubIssue}/dependencies', PUBLIC_READ),
  row('list dependencies (private)', 'GET', '/api/v1/repos/guild/priv/issues/{privIssue}/dependencies', PRIVATE_READ),
  row('add dependency', 'POST', '/api/v1/repos/guild/pub/issues/{pubDepIssue}/dependencies', REPO_WRITE(201), { index: 1 }),
  row('add dependency (private)', 'POST', '/api/v1/repos/guild/priv/issues/{privDepIssue}/dependencies', PRIVATE_WRITE(201, REPO_FIRST), { index: 1 }),
  row('remove dependency', 'DELETE', '/api/v1/repos/guild/pub/issues/{pubDepIssue}/dependencies', REPO_WRITE(201), { index: 1 }),
  row('remove dependency (private)', 'DELETE', '/api/v1/repos/guild/priv/issues/{privDepIssue}/dependencies', PRIVATE_WRITE(201, REPO_FIRST), { index: 1 }),

  // ---- commit statuses (statuses.ts)
  row('create commit status', 'POST', '/api/v1/repos/guild/pub/statuses/{pubSha}', REPO_WRITE(201), { state: 'success', context: 'ctx-{actor}' }),
  row('create commit status (private)', 'POST', '/api/v1/repos/guild/priv/statuses/{privSha}', PRIVATE_WRITE(201, REPO_FIRST), { state: 'success', context: 'ctx-{actor}' }),
  row('list commit statuses by sha', 'GET', '/api/v1/repos/guild/pub/statuses/{pubSha}', PUBLIC_READ),
  row('list commit statuses by sha (private)', 'GET', '/api/v1/repos/guild/priv/statuses/{privSha}', PRIVATE_READ),
  row('list commit statuses by ref', 'GET', '/api/v1/repos/guild/pub/commits/main/statuses', PUBLIC_READ),
  row('list commit statuses by ref (private)', 'GET', '/api/v1/repos/guild/priv/commits/main/statuses', PRIVATE_READ),
  row('combined commit status', 'GET', '/api/v1/repos/guild/pub/commits/main/status', PUBLIC_READ),
  row('combined commit status (private)', 'GET', '/api/v1/repos/guild/priv/commits/main/status', PRIVATE_READ),

  // ---- pull requests (pulls.ts, pull-diff.ts)
  row('list pull requests', 'GET', '/api/v1/repos/guild/pub/pulls', PUBLIC_READ),
  row('list pull requests (private)', 'GET', '/api/v1/repos/guild/priv/pulls', PRIVATE_READ),
  row('get pull request', 'GET', '/api/v1/repos/guild/pub/pulls/{pubPull}', PUBLIC_READ),
  row('get pull request (private)', 'GET', '/api/v1/repos/guild/priv/pulls/{privPull}', PRIVATE_READ),
  row('get pull request by base and head', 'GET', '/api/v1/repos/guild/pub/pulls/main/feature', PUBLIC_READ),
  row('get pull request by base and head (private)', 'GET', '/api/v1/repos/guild/priv/pulls/main/feature', PRIVATE_READ),
  row('create pull request', 'POST', '/api/v1/repos/guild/pub/pulls', PARTICIPATE(201), { title: 'pull by {actor}', head: 'pr-{actor}', base: 'main' }),
  row('create pull request (private)', 'POST', '/api/v1/repos/guild/priv/pulls', PRIVATE_PARTICIPATE(201, REPO_FIRST), { title: 'pull by {actor}', head: 'pr-{actor}', base: 'main' }),
  row('edit pull request (someone else\'s: poster or writer)', 'PATCH', '/api/v1/repos/guild/pub/pulls/{pubPull}', REPO_WRITE(201), { body: 'edited by {actor}' }),
  row('edit pull request (private)', 'PATCH', '/api/v1/repos/guild/priv/pulls/{privPull}', PRIVATE_WRITE(201, REPO_FIRST), { body: 'edited by {actor}' }),
  row('pull request .diff', 'GET', '/api/v1/repos/guild/pub/pulls/{pubPull}.diff', PUBLIC_READ),
  row('pull request .diff (private)', 'GET', '/api/v1/repos/guild/priv/pulls/{privPull}.diff', PRIVATE_READ),
  row('pull request .patch', 'GET', '/api/v1/repos/guild/pub/pulls/{pubPull}.patch', PUBLIC_READ),
  row('pull request .patch (private)', 'GET', '/api/v1/repos/guild/priv/pulls/{privPull}.patch', PRIVATE_READ),
  row('pull request commits', 'GET', '/api/v1/repos/guild/pub/pulls/{pubPull}/commits', PUBLIC_READ),
  row('pull request commits (private)', 'GET', '/api/v1/repos/guild/priv/pulls/{privPull}/commits', PRIVATE_READ),
  row('pull request files', 'GET', '/api/v1/repos/guild/pub/pulls/{pubPull}/files', PUBLIC_READ),
  row('pull request files (private)', 'GET', '/api/v1/repos/guild/priv/pulls/{privPull}/files', PRIVATE_READ),
  row('is merged (open pull request: 404 for everybody)', 'GET', '/api/v1/repos/guild/pub/pulls/{pubPull}/merge', PUBLIC_GONE),

  // ---- reviews (reviews.ts)
  row('list reviews', 'GET', '/api/v1/repos/guild/pub/pulls/{pubPull}/reviews', PUBLIC_READ),
  row('list reviews (private)', 'GET', '/api/v1/repos/guild/priv/pulls/{privPull}/reviews', PRIVATE_READ),
  row('create review', 'POST', '/api/v1/repos/guild/pub/pulls/{pubPull}/reviews', PARTICIPATE(200), { event: 'COMMENT', body: 'review by {actor}' }),
  row('create review (private)', 'POST', '/api/v1/repos/guild/priv/pulls/{privPull}/reviews', PRIVATE_PARTICIPATE(200, REPO_FIRST), { event: 'COMMENT', body: 'review by {actor}' }),

  // ---- update, auto-merge and merge (pull-merge.ts); merges last, each actor on its own pull request
  row('update pull request branch', 'POST', '/api/v1/repos/guild/pub/pulls/{pubPull}/update', REPO_WRITE(200)),
  row('update pull request branch (private)', 'POST', '/api/v1/repos/guild/priv/pulls/{privPull}/update', PRIVATE_WRITE(200, REPO_FIRST)),
  row('cancel auto-merge olive scheduled (her or repository admins)', 'DELETE', '/api/v1/repos/guild/pub/pulls/{autoPull}/merge', [401, 403, 403, 403, 204, 403, 204, 403, 403]),
  row('cancel auto-merge (private; none scheduled)', 'DELETE', '/api/v1/repos/guild/priv/pulls/{privPull}/merge', [REPO_FIRST, 404, 404, 404, 404, 404, 404, 404, 404]),
  row('merge pull request (readers: 405 as Gitea)', 'POST', '/api/v1/repos/guild/pub/pulls/{pubMergePull}/merge', [401, 405, 405, 200, 200, 200, 200, 405, 200], { Do: 'merge' }),
  row('merge pull request (private)', 'POST', '/api/v1/repos/guild/priv/pulls/{privMergePull}/merge', [REPO_FIRST, 404, 405, 200, 200, 200, 200, 404, 200], { Do: 'merge' }),
  row('is merged (merged pull request)', 'GET', '/api/v1/repos/guild/pub/pulls/{mergedPull}/merge', [204, 204, 204, 204, 204, 204, 204, 204, 204]),
  row('is merged (merged pull request, private)', 'GET', '/api/v1/repos/guild/priv/pulls/{privMergedPull}/merge', [404, 404, 204, 204, 204, 204, 204, 404, 204]),
];

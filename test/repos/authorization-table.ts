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
];

// The OpenAPI document lists the account, organization, team, search, topic, repository-list and
// settings routes with Gitea's operationIds, and their request models under Gitea's names, so a
// client generated from it reads the same as one generated from Gitea's.
import t from 'tap';
import { startTestServices } from '../helper.js';

// Gitea 1.26's operations (templates/swagger/v1_json.tmpl): method, path, operationId.
const OPERATIONS: Array<[string, string, string]> = [
  ['get', '/admin/users', 'adminSearchUsers'], ['patch', '/admin/users/{username}', 'adminEditUser'], ['delete', '/admin/users/{username}', 'adminDeleteUser'],
  ['get', '/admin/orgs', 'adminGetAllOrgs'], ['post', '/admin/users/{username}/orgs', 'adminCreateOrg'],
  ['get', '/orgs', 'orgGetAll'], ['patch', '/orgs/{org}', 'orgEdit'], ['delete', '/orgs/{org}', 'orgDelete'],
  ['get', '/user/orgs', 'orgListCurrentUserOrgs'], ['get', '/users/{username}/orgs', 'orgListUserOrgs'],
  ['get', '/orgs/{org}/members', 'orgListMembers'], ['get', '/orgs/{org}/members/{username}', 'orgIsMember'], ['delete', '/orgs/{org}/members/{username}', 'orgDeleteMember'],
  ['get', '/orgs/{org}/public_members', 'orgListPublicMembers'], ['get', '/orgs/{org}/public_members/{username}', 'orgIsPublicMember'],
  ['put', '/orgs/{org}/public_members/{username}', 'orgPublicizeMember'], ['delete', '/orgs/{org}/public_members/{username}', 'orgConcealMember'],
  ['get', '/users/{username}/orgs/{org}/permissions', 'orgGetUserPermissions'],
  ['get', '/orgs/{org}/teams/search', 'teamSearch'], ['patch', '/teams/{id}', 'orgEditTeam'], ['delete', '/teams/{id}', 'orgDeleteTeam'],
  ['get', '/teams/{id}/members/{username}', 'orgListTeamMember'], ['get', '/user/teams', 'userListTeams'],
  ['get', '/teams/{id}/repos', 'orgListTeamRepos'], ['get', '/teams/{id}/repos/{org}/{repo}', 'orgListTeamRepo'],
  ['put', '/teams/{id}/repos/{org}/{repo}', 'orgAddTeamRepository'], ['delete', '/teams/{id}/repos/{org}/{repo}', 'orgRemoveTeamRepository'],
  ['get', '/repos/{owner}/{repo}/teams', 'repoListTeams'], ['get', '/repos/{owner}/{repo}/teams/{team}', 'repoCheckTeam'],
  ['put', '/repos/{owner}/{repo}/teams/{team}', 'repoAddTeam'], ['delete', '/repos/{owner}/{repo}/teams/{team}', 'repoDeleteTeam'],
  ['get', '/users/search', 'userSearch'], ['get', '/repos/search', 'repoSearch'], ['get', '/repos/issues/search', 'issueSearchIssues'],
  ['get', '/settings/ui', 'getGeneralUISettings'], ['get', '/settings/repository', 'getGeneralRepositorySettings'], ['get', '/settings/attachment', 'getGeneralAttachmentSettings'],
  ['get', '/user/repos', 'userCurrentListRepos'], ['get', '/users/{username}/repos', 'userListRepos'], ['get', '/orgs/{org}/repos', 'orgListRepos'],
  ['get', '/repos/{owner}/{repo}/topics', 'repoListTopics'], ['put', '/repos/{owner}/{repo}/topics', 'repoUpdateTopics'],
  ['put', '/repos/{owner}/{repo}/topics/{topic}', 'repoAddTopic'], ['delete', '/repos/{owner}/{repo}/topics/{topic}', 'repoDeleteTopic'],
  ['get', '/topics/search', 'topicSearch'],
];

// Request models and Gitea's definition names.
const BODIES: Array<[string, string, string]> = [
  ['patch', '/admin/users/{username}', 'EditUserOption'], ['patch', '/orgs/{org}', 'EditOrgOption'], ['patch', '/teams/{id}', 'EditTeamOption'],
  ['put', '/repos/{owner}/{repo}/topics', 'RepoTopicOptions'],
];

type Operation = { operationId?: string; tags?: string[]; parameters?: Array<{ in: string; schema?: { title?: string; $ref?: string } }> };

t.test('the OpenAPI document names the operations and models as Gitea does', async (t) => {
  const { app } = await startTestServices(t);
  const doc = (await app.inject('/swagger.v1.json')).json() as { basePath?: string; paths: Record<string, Record<string, Operation>> };
  // Paths are listed under the base path, whichever it is (/ with /api/v1 in each path, or /api/v1).
  const operation = (method: string, path: string): Operation | undefined => (doc.paths[path] ?? doc.paths[`/api/v1${path}`])?.[method];
  for (const [method, path, operationId] of OPERATIONS) {
    const op = operation(method, path);
    t.equal(op?.operationId, operationId, `${method.toUpperCase()} ${path}`);
    t.ok(op?.tags?.length, `${operationId} has tags`);
  }
  for (const [method, path, model] of BODIES) {
    const body = operation(method, path)?.parameters?.find((p) => p.in === 'body')?.schema;
    t.ok(body?.title === model || body?.$ref?.endsWith(`/${model}`), `${method.toUpperCase()} ${path} takes ${model}`);
  }
  const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId)).filter(Boolean);
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

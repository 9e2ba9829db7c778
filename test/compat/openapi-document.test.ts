// The served OpenAPI document reads like Gitea's, so a client generated from it has Gitea's method
// and type names: basePath /api/v1, Gitea's operationIds and tags for every operation Gitea has, its
// model names as definitions, no router syntax in paths, and our extensions named in Gitea's style.
import t from 'tap';
import { startTestServices } from '../helper.js';
import { extractGiteaOpenApi, giteaOpenApi, giteaTemplateFromModuleCache, type GiteaOperation } from './gitea-openapi.js';
import { hoistModels } from '../../api/plugins/openapi-document.js';

type Json = Record<string, unknown>;
interface Operation { operationId?: string; tags?: string[]; parameters?: Json[]; responses?: Json }
interface Doc { swagger: string; basePath: string; paths: Record<string, Record<string, Operation>>; definitions: Record<string, Json> }

/** Operations that Gitea does not have: pullhost's extensions. */
const EXTENSIONS: Record<string, string> = {
  'GET /token': 'userGetCurrentToken',
  'DELETE /token': 'userDeleteCurrentToken',
  'GET /user/2fa': 'userGetTwoFactor',
  'POST /user/2fa/totp': 'userEnrollTotp',
  'DELETE /user/2fa/totp': 'userDisableTotp',
  'PUT /user/2fa/totp/confirm': 'userConfirmTotp',
  // Gitea serves it (org.ListUserOrgs under /admin) but its document does not list it.
  'GET /admin/users/{username}/orgs': 'adminListUserOrgs',
  'GET /repos/{owner}/{repo}/hooks/{id}/deliveries': 'repoListHookDeliveries',
  'GET /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}': 'repoGetHookDelivery',
  'POST /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}/redeliver': 'repoRedeliverHookDelivery',
  'GET /orgs/{org}/hooks/{id}/deliveries': 'orgListHookDeliveries',
  'GET /orgs/{org}/hooks/{id}/deliveries/{delivery}': 'orgGetHookDelivery',
  'POST /orgs/{org}/hooks/{id}/deliveries/{delivery}/redeliver': 'orgRedeliverHookDelivery',
  'GET /user/hooks/{id}/deliveries': 'userListHookDeliveries',
  'GET /user/hooks/{id}/deliveries/{delivery}': 'userGetHookDelivery',
  'POST /user/hooks/{id}/deliveries/{delivery}/redeliver': 'userRedeliverHookDelivery',
  'GET /repos/{owner}/{repo}/merge_queue/{branch}': 'repoGetMergeQueue',
};

/**
 * Gitea models reachable from an operation that our document does not describe, with the reason:
 * fields this service always sends empty or null, so it has no shape of its own for them.
 */
const NOT_DESCRIBED: Record<string, string> = {
  Attachment: 'issue and comment `assets` are always empty (no attachments)',
  CreatePullReviewComment: 'inline review comments are not accepted yet',
  ExternalTracker: 'repositories have no external tracker',
  ExternalWiki: 'repositories have no external wiki',
  RepoTransfer: '`repo_transfer` is never sent (no transfers; Gitea omits it when there is none)',
  Organization: 'reached from Repository only through RepoTransfer',
  Team: 'reached from Repository only through RepoTransfer',
  TrackedTime: '`tracked_time` is always null (no time tracking)',
};

function refs(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const v of node) refs(v, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v.slice(v.lastIndexOf('/') + 1));
      else refs(v, out);
    }
  }
  return out;
}

function closure(start: Iterable<string>, edges: (name: string) => Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const stack = [...start];
  while (stack.length) {
    const name = stack.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    stack.push(...edges(name));
  }
  return seen;
}

t.test('the document has Gitea\'s operationIds, tags and model names', async (t) => {
  const { app } = await startTestServices(t);
  const res = await app.inject('/swagger.v1.json');
  t.equal(res.statusCode, 200);
  const doc = res.json() as Doc;
  const gitea = giteaOpenApi();

  t.equal(doc.swagger, '2.0');
  t.equal(doc.basePath, '/api/v1', 'paths are relative to /api/v1, as in Gitea');
  const paths = Object.keys(doc.paths);
  t.same(paths.filter((p) => p.startsWith('/api/') || p.includes('*') || p.includes(':')), [], 'no prefix and no router syntax in paths');
  t.same(paths.filter((p) => !p.startsWith('/')), []);
  t.notOk(doc.paths['/healthz'] ?? doc.paths['/{owner}/{repo}/info/refs'], 'routes outside the API are not in the document');
  t.equal(doc.paths['/repos/{owner}/{repo}/pulls/{index}.{diffType}']?.get?.operationId, 'repoDownloadPullDiffOrPatch', 'the diff route as Gitea has it');
  t.ok(doc.paths['/repos/{owner}/{repo}/pulls/{base}/{head}']?.get, 'the base/head wildcard is named head');

  const byRoute = new Map(gitea.operations.map((o) => [`${o.method} ${o.path}`, o]));
  const giteaIds = new Map(gitea.operations.map((o) => [o.operationId, o]));
  const seenIds = new Set<string>();
  const problems: string[] = [];
  let matched = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(item)) {
      const key = `${m.toUpperCase()} ${path}`;
      const id = op.operationId;
      if (!id) { problems.push(`${key}: no operationId`); continue; }
      if (seenIds.has(id)) problems.push(`${key}: operationId ${id} used twice`);
      seenIds.add(id);
      if (!op.tags?.length) problems.push(`${key}: no tags`);
      const theirs: GiteaOperation | undefined = byRoute.get(key);
      if (!theirs) {
        if (EXTENSIONS[key] !== id) problems.push(`${key} (${id}): not a Gitea operation and not a listed extension`);
        if (giteaIds.has(id)) problems.push(`${key}: extension reuses Gitea's operationId ${id} (${giteaIds.get(id)!.path})`);
        if (!/^[a-z][A-Za-z0-9]*$/.test(id)) problems.push(`${key}: ${id} is not in Gitea's lowerCamel style`);
        continue;
      }
      matched++;
      if (id !== theirs.operationId) problems.push(`${key}: operationId ${id}, Gitea's is ${theirs.operationId}`);
      if (JSON.stringify(op.tags) !== JSON.stringify(theirs.tags)) problems.push(`${key}: tags ${JSON.stringify(op.tags)}, Gitea's ${JSON.stringify(theirs.tags)}`);
      const ours = refs([op.parameters, op.responses]);
      for (const model of theirs.models) if (!ours.has(model)) problems.push(`${key}: Gitea's model ${model} is not named`);
      const reachable = closure(ours, (n) => refs(doc.definitions[n]));
      const theirsReachable = closure(theirs.models, (n) => gitea.definitions[n] ?? []);
      for (const model of theirsReachable) if (!reachable.has(model) && !NOT_DESCRIBED[model]) problems.push(`${key}: Gitea's nested model ${model} is not named`);
    }
  }
  t.same(problems, [], 'every operation matches Gitea\'s list');
  // Raised as operations are added: a route dropped from the document (or renamed off Gitea's list) fails here.
  t.ok(matched >= 208, `${matched} operations are Gitea's`);

  const referenced = closure(refs(doc.paths), (n) => refs(doc.definitions[n]));
  t.same(Object.keys(doc.definitions).filter((n) => !referenced.has(n)), [], 'every definition is used');
  t.same([...referenced].filter((n) => !doc.definitions[n]), [], 'every reference resolves');
  for (const name of ['PullRequest', 'CreatePullRequestOption', 'EditPullRequestOption', 'MergePullRequestOption', 'Repository', 'CreateRepoOption', 'User', 'Label', 'Issue', 'Commit', 'RepoCommit', 'PRBranchInfo']) {
    t.equal(doc.definitions[name]?.title, name, `definition ${name}`);
  }
  const giteaNames = new Set(Object.keys(gitea.definitions));
  const ownModels = ['CurrentAccessToken', 'TotpEnrolment', 'TotpConfirmOption', 'TwoFactorStatus', 'HookDelivery', 'MergeQueue', 'MergeQueueEntry'];
  t.same(Object.keys(doc.definitions).filter((n) => !giteaNames.has(n) && !ownModels.includes(n)), [], 'every other definition is one of Gitea\'s models');
});

t.test('the checked-in extract is Gitea\'s template, when the module cache has it', async (t) => {
  const template = giteaTemplateFromModuleCache();
  if (!template) {
    t.comment('Gitea\'s source is not in the Go module cache; the checked-in extract is used as it is');
    t.ok(giteaOpenApi().operations.length > 400);
    return;
  }
  t.same(extractGiteaOpenApi(template), giteaOpenApi(), 'the extract matches v1_json.tmpl');
});

t.test('hoisting refuses two shapes under one title', async (t) => {
  const model = (extra: Json) => ({ type: 'object', title: 'Thing', properties: { a: { type: 'string' }, ...extra } });
  const one = hoistModels({ paths: { '/a': { get: { responses: { 200: { schema: model({}) } } } }, '/b': { get: { responses: { 200: { schema: { ...model({}), 'x-nullable': true, description: 'nullable use' } } } } } } });
  t.same(Object.keys(one.definitions as Json), ['Thing'], 'a nullable or described use of a model is the model');
  t.same(((one.paths as Json)['/b'] as { get: { responses: { 200: { schema: Json } } } }).get.responses[200].schema, { $ref: '#/definitions/Thing' });
  t.throws(() => hoistModels({ paths: { '/a': { get: { responses: { 200: { schema: model({}) } } } }, '/b': { get: { responses: { 200: { schema: model({ b: { type: 'integer' } }) } } } } } }), /two different schemas are titled Thing/);
});

// Gitea's Go SDK integration suite (code.gitea.io/sdk/gitea, tests/ package) as this project runs
// it: the catalogue of its tests in the order `go test` runs them, which of them are in this
// service's domain, and how one test of the compiled binary is run against a server.
//
// The SDK's CI (its Makefile and workflow) runs `go test` on the whole package against one fresh
// Gitea whose first user is the site administrator test01 / test01 (e-mail test01@gitea.io, made
// with `gitea admin user create --admin --access-token`, so it owns one token named gitea-admin),
// found through GITEA_SDK_TEST_URL, GITEA_SDK_TEST_USERNAME and GITEA_SDK_TEST_PASSWORD. Its tests
// share that instance's state in run order (TestMyUser wants test01 to be user 1; TestUserSearch
// counts the users every earlier test left behind), so the whole catalogue runs, in order, against
// one fresh instance. Each test runs in its own process (`-test.run '^Name$'`): a failed request
// often ends in a nil dereference that would otherwise take every later test down with it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../app/paths.js';

export const SDK_ADMIN = { username: 'test01', password: 'test01', email: 'test01@gitea.io', tokenName: 'gitea-admin' } as const;

/**
 * `in`: in this service's domain and passing on Gitea 1.26.4, so it must pass here. `out`: outside
 * the domain. `beyond`: in the domain's area but beyond what Gitea 1.26.4 does on these machines
 * (Gitea fails it too), so not required.
 */
export type Domain = 'in' | 'out' | 'beyond';

export interface SdkTest {
  name: string;
  domain: Domain;
  /** What it exercises (in the domain) or why it is left out. */
  about: string;
}

const inDomain = (name: string, about: string): SdkTest => ({ name, domain: 'in', about });
const outside = (name: string, about: string): SdkTest => ({ name, domain: 'out', about });
const beyond = (name: string, about: string): SdkTest => ({ name, domain: 'beyond', about });

/** Every test of the SDK's v0.25.1 tests package, in `go test`'s order (files by name, then source order). */
export const SDK_TESTS: readonly SdkTest[] = [
  inDomain('TestAdminOrg', 'orgs: admin creates an org for a user, lists all orgs, deletes it'),
  outside('TestAdminCronTasks', 'cron tasks: the service runs no scheduled maintenance jobs'),
  inDomain('TestIssueComment', 'comments: create (with sudo), list per issue and per repository, get, edit, delete'),
  inDomain('TestIssueLabels', 'labels (repo): CRUD, issue labels add, replace, delete, clear; auto_init issue_labels'),
  inDomain('TestMilestones', 'milestones: CRUD, state and name filters, get by name'),
  outside('TestIssueSubscription', 'issue subscriptions: notifications are outside the domain'),
  inDomain('TestIssue', 'issues: create with labels, milestone, assignees, deadline; edit; list and search; delete'),
  inDomain('TestIssueTimeline', 'timeline of an issue'),
  outside('TestNotifications', 'notifications'),
  inDomain('TestOauth2', 'OAuth2 applications: create, list, get, update, delete (as another user through sudo)'),
  outside('TestCreateOrgActionSecret', 'actions secrets'),
  outside('TestUpdateOrgActionVariable', 'actions variables'),
  outside('TestOrgActionVariable', 'actions variables'),
  inDomain('TestOrgLabels', 'labels (org): CRUD, used on an org repository\'s issue'),
  inDomain('TestOrgMembership', 'membership: public and concealed members, permissions, last owner kept'),
  inDomain('TestTeamSearch', 'teams: create, search'),
  outside('TestListPackages', 'packages'),
  outside('TestGetPackage', 'packages'),
  outside('TestDeletePackage', 'packages'),
  outside('TestListPackageFiles', 'packages'),
  inDomain('TestPullReview', 'reviews: create, inline comments, pending review submit, dismiss, review requests'),
  beyond('TestMainNightlyPullReviewCommentReply', 'reviews: replying to an inline comment is a route of Gitea\'s main branch, not of 1.26 (1.26.4 answers 405)'),
  inDomain('TestMainNightlyPullReviewCommentResolve', 'reviews: resolve and unresolve an inline comment'),
  inDomain('TestPull', 'pull requests: from a fork, diff, patch, commits, files, merge, conflict, edit, list'),
  outside('TestRelease', 'releases'),
  outside('TestCreateRepoActionSecret', 'actions secrets'),
  outside('TestCreateRepoActionVariable', 'actions variables'),
  outside('TestListRepoActionVariable', 'actions variables'),
  inDomain('TestRepoBranches', 'branches: list, get, delete, create, rename'),
  inDomain('TestRepoBranchProtection', 'branch protections: CRUD'),
  inDomain('TestMainNightlyUpdateRepoBranchRef', 'branches: move a branch to a commit, with and without force'),
  inDomain('TestRepoCollaborator', 'collaborators: add, permission, list, reviewers, assignees, remove'),
  inDomain('TestListRepoCommits', 'commits: list with stats and verification'),
  inDomain('TestGetCommitDiffOrPatch', 'commits: .diff and .patch of one commit'),
  inDomain('TestFileCreateUpdateGet', 'contents: create, update, delete files, raw, list directories'),
  outside('TestPushMirrors', 'push mirrors'),
  inDomain('TestRepoRefs', 'refs: list all, by prefix, one ref'),
  outside('TestRepoStaring', 'stars'),
  inDomain('TestTagProtection', 'tag protections: CRUD with user and team allow lists'),
  inDomain('TestTags', 'tags: create annotated, list, get, get the tag object, delete'),
  inDomain('TestRepoTeamManagement', 'teams on a repository: list, check, add, remove'),
  outside('TestRepoFromTemplate', 'template repositories'),
  inDomain('TestCreateRepo', 'repositories: create, delete'),
  beyond('TestCreateRepoSha256', 'SHA-256 repositories: Gitea offers them with git 2.42 or later; these machines have git 2.39.5, where Gitea 1.26.4 answers 500'),
  outside('TestRepoMigrateAndLanguages', 'migrations (and it clones from the internet)'),
  inDomain('TestSearchRepo', 'repositories: search by keyword, in names, descriptions and topics'),
  inDomain('TestDeleteRepo', 'repositories: delete'),
  inDomain('TestGetArchive', 'archives: zip of a branch'),
  inDomain('TestGetArchiveReader', 'archives: zip of a branch, streamed'),
  inDomain('TestGetRepoByID', 'repositories: get by id'),
  outside('TestRepoTopics', 'topics (the topic routes TestSearchRepo needs are in the domain; managing topics is not)'),
  outside('TestRepoTransfer', 'transfers'),
  inDomain('TestRepoGetTrees', 'trees: recursive tree of a branch'),
  outside('TestRepoWatch', 'watches'),
  inDomain('TestGetGlobalSettings', 'settings: ui, repository, api, attachment'),
  inDomain('TestCommitStatus', 'commit statuses: create, list, combined state'),
  inDomain('TestUserSettings', 'settings: the user\'s own settings, read and update'),
  inDomain('TestMyUser', 'users: the signed-in user, avatar URL'),
  inDomain('TestUserApp', 'tokens: list, create, delete'),
  inDomain('TestUserSearch', 'users: search (counts every user the earlier tests left)'),
  outside('TestUserFollow', 'followers: the social graph, like stars and watches'),
  inDomain('TestUserEmail', 'users: e-mail addresses, list, add, delete'),
  inDomain('TestGetUserByID', 'users: get by id'),
  inDomain('TestServerVersion', 'version'),
];

/**
 * In-domain tests that pass against this service today. The test file asserts each of these
 * passes (a regression fails the suite) and reports the rest; the lead adds names as the routes
 * land, until it is every in-domain test.
 */
/** In-domain tests whose routes are still being built; every other in-domain test must pass. */
const NOT_YET: readonly string[] = [];

export const EXPECTED_TO_PASS: readonly string[] = SDK_TESTS.filter((t) => t.domain === 'in' && !NOT_YET.includes(t.name)).map((t) => t.name);

export function sdkTestBinary(): { binary: string; version: string } | null {
  const dir = join(projectRoot, '.tools', 'go-sdk');
  const binary = join(dir, 'gitea-sdk.test');
  if (!existsSync(binary)) return null;
  const stamp = join(dir, 'version');
  return { binary, version: existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : 'unknown' };
}

export interface SdkServer {
  /** Base URL without a trailing slash (the SDK appends /api/v1/...). */
  url: string;
  username: string;
  password: string;
}

export interface SdkResult {
  name: string;
  passed: boolean;
  ms: number;
  /** The test's own output (testify's failure messages, a panic's trace), trimmed. */
  output: string;
}

const OUTPUT_LIMIT = 6000;

/**
 * Runs the binary with `args` and the server in its environment. Asynchronously: the server may
 * be in this very process (the binary's TestMain asks it for /version first).
 */
function runBinary(binary: string, server: SdkServer, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        GITEA_SDK_TEST_URL: server.url,
        GITEA_SDK_TEST_USERNAME: server.username,
        GITEA_SDK_TEST_PASSWORD: server.password,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The names of the binary's tests, in its order. */
export async function listSdkTests(binary: string, server: SdkServer): Promise<string[]> {
  const { output } = await runBinary(binary, server, ['-test.list', '.*']);
  return output.split('\n').filter((l) => /^Test\w+$/.test(l));
}

/** Runs one test of the binary in its own process. */
export async function runSdkTest(binary: string, server: SdkServer, name: string, timeoutSeconds = 120): Promise<SdkResult> {
  const started = Date.now();
  const { code, output } = await runBinary(binary, server, ['-test.run', `^${name}$`, '-test.v', '-test.count=1', `-test.timeout=${timeoutSeconds}s`]);
  // `go test` prints `--- PASS: Name` for a passed test; a panic or a failed TestMain does not.
  const passed = code === 0 && new RegExp(`^--- PASS: ${name} `, 'm').test(output);
  const trimmed = output.length > OUTPUT_LIMIT ? `${output.slice(0, OUTPUT_LIMIT / 2)}\n[...]\n${output.slice(-OUTPUT_LIMIT / 2)}` : output;
  return { name, passed, ms: Date.now() - started, output: trimmed };
}

export interface SuiteHooks {
  onStart?: (name: string) => void;
  onResult?: (r: SdkResult) => void | Promise<void>;
}

/** Runs tests in catalogue order, one process each. */
export async function runSdkSuite(binary: string, server: SdkServer, names: readonly string[], hooks: SuiteHooks = {}): Promise<SdkResult[]> {
  const results: SdkResult[] = [];
  for (const name of names) {
    hooks.onStart?.(name);
    const r = await runSdkTest(binary, server, name);
    results.push(r);
    await hooks.onResult?.(r);
  }
  return results;
}

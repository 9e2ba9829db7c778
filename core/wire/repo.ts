// Repository rows to Gitea's Repository JSON (services/convert/repository.go).
//
// For other modules (pull requests' head/base repositories, forks):
//   - `toApiRepo(view, viewer, appUrl, facts?)` is synchronous: give it a RepoContext (or
//     { repo, owner, mode }) where `mode` is the VIEWER's access (repoAccessMode), and optionally the
//     counts from `repoFacts`. Without facts the counters are 0.
//   - `loadApiRepo(deps, repo, viewer)` does it all: owner, the viewer's mode, counters, parent.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { atLeast, repoAccessMode, type AccessMode } from '../permissions.js';
import { licensesOf } from '../repo-licenses.js';
import { repoDiskPath, type RepoDeps } from '../repositories.js';
import { reposStore, type RepoRow } from '../../db/repos.js';
import { topicsStore } from '../../db/topics.js';
import { usersStore, type UserRow } from '../../db/users.js';
import { unixToIso } from '../../db/time.js';
import { countBranches } from '../../git/index.js';
import { toApiUser } from './user.js';

export interface RepoView {
  repo: RepoRow;
  owner: UserRow;
  /** The viewer's access to this repository. */
  mode: AccessMode;
}

/** Counters that need a query or a look at the disk. */
export interface RepoFacts {
  openIssues: number;
  openPulls: number;
  branchCount: number;
  sizeKiB: number;
  /** The repository's topic names, by name. */
  topics: string[];
  parent?: ApiRepository;
}

export type ApiRepository = Record<string, unknown>;

const ZERO_TIME = '0001-01-01T00:00:00Z';

function time(unix: number): string {
  return unix > 0 ? unixToIso(unix)! : ZERO_TIME;
}

export function toApiRepo(view: RepoView, viewer: UserRow | null, appUrl: string, facts: Partial<RepoFacts> = {}): ApiRepository {
  const { repo, owner, mode } = view;
  const fullName = `${owner.name}/${repo.name}`;
  const host = new URL(appUrl).hostname;
  const apiUrl = `${appUrl}api/v1/repos/${fullName}`;
  const out: ApiRepository = {
    id: repo.id,
    owner: toApiUser(owner, viewer, appUrl),
    name: repo.name,
    full_name: fullName,
    description: repo.description,
    empty: repo.is_empty,
    private: repo.is_private,
    fork: repo.fork_id !== null,
    template: repo.is_template,
    ...(facts.parent ? { parent: facts.parent } : {}),
    mirror: false,
    size: facts.sizeKiB ?? 0,
    language: '',
    languages_url: `${apiUrl}/languages`,
    html_url: `${appUrl}${fullName}`,
    url: apiUrl,
    link: '',
    ssh_url: `git@${host}:${fullName}.git`,
    clone_url: `${appUrl}${fullName}.git`,
    original_url: '',
    website: repo.website,
    stars_count: 0,
    forks_count: repo.num_forks,
    watchers_count: 0,
    branch_count: facts.branchCount ?? 0,
    open_issues_count: facts.openIssues ?? 0,
    open_pr_counter: facts.openPulls ?? 0,
    release_counter: 0,
    default_branch: repo.default_branch,
    archived: repo.is_archived,
    created_at: time(repo.created_unix),
    updated_at: time(repo.updated_unix),
    archived_at: repo.archived_unix > 0 ? time(repo.archived_unix) : '1970-01-01T00:00:00Z',
    permissions: { admin: atLeast(mode, 'admin'), push: atLeast(mode, 'write'), pull: atLeast(mode, 'read') },
    has_code: true,
    has_issues: repo.has_issues,
    // Gitea's omitempty: only a repository with issues has a tracker.
    ...(repo.has_issues ? { internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: true } } : {}),
    has_wiki: repo.has_wiki,
    has_pull_requests: repo.has_pull_requests,
    has_projects: false,
    projects_mode: 'all',
    has_releases: false,
    has_packages: false,
    has_actions: false,
    ignore_whitespace_conflicts: repo.ignore_whitespace_conflicts,
    allow_merge_commits: repo.allow_merge_commits,
    allow_rebase: repo.allow_rebase,
    allow_rebase_explicit: repo.allow_rebase_explicit,
    allow_squash_merge: repo.allow_squash_merge,
    allow_fast_forward_only_merge: repo.allow_fast_forward_only_merge,
    allow_rebase_update: repo.allow_rebase_update,
    allow_manual_merge: repo.allow_manual_merge,
    autodetect_manual_merge: repo.autodetect_manual_merge,
    default_delete_branch_after_merge: repo.default_delete_branch_after_merge,
    default_merge_style: repo.default_merge_style,
    default_allow_maintainer_edit: repo.default_allow_maintainer_edit,
    avatar_url: '',
    internal: false,
    mirror_interval: '',
    object_format_name: 'sha1',
    mirror_updated: ZERO_TIME,
    topics: facts.topics ?? [],
    licenses: licensesOf(repo),
  };
  return out;
}

async function directorySizeBytes(path: string): Promise<number> {
  let total = 0;
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = join(path, e.name);
    if (e.isDirectory()) total += await directorySizeBytes(p);
    else if (e.isFile()) total += (await stat(p).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

async function openIssueCounts(db: Knex, repoId: number): Promise<{ openIssues: number; openPulls: number }> {
  const rows = await db('issues').where({ repo_id: repoId, is_closed: false }).groupBy('is_pull').select('is_pull').count({ n: '*' });
  let openIssues = 0;
  let openPulls = 0;
  for (const r of rows as Array<{ is_pull: unknown; n: unknown }>) {
    if (Boolean(Number(r.is_pull))) openPulls = Number(r.n);
    else openIssues = Number(r.n);
  }
  return { openIssues, openPulls };
}

/** The counters of one repository (issues, pulls, branches, size on disk). */
export async function repoFacts(deps: RepoDeps, repo: RepoRow, owner: UserRow): Promise<RepoFacts> {
  const path = repoDiskPath(deps.config, owner.name, repo.name);
  const [counts, branchCount, bytes, topics] = await Promise.all([
    openIssueCounts(deps.db, repo.id),
    repo.is_empty ? Promise.resolve(0) : countBranches(path).catch(() => 0),
    directorySizeBytes(path),
    topicsStore(deps.db).namesOfRepo(repo.id),
  ]);
  return { ...counts, branchCount, sizeKiB: Math.round(bytes / 1024), topics };
}

export interface LoadApiRepoOptions {
  owner?: UserRow;
  /** The viewer's mode when already known (e.g. from loadRepository). */
  mode?: AccessMode;
  /** Counters already read in this request, by repository id: a page of forks shares one parent. */
  factsCache?: Map<number, Promise<RepoFacts>>;
}

function cachedFacts(deps: RepoDeps, repo: RepoRow, owner: UserRow, cache: LoadApiRepoOptions['factsCache']): Promise<RepoFacts> {
  if (!cache) return repoFacts(deps, repo, owner);
  let facts = cache.get(repo.id);
  if (!facts) cache.set(repo.id, (facts = repoFacts(deps, repo, owner)));
  // A copy: the caller adds its parent to what it gets.
  return facts.then((f) => ({ ...f }));
}

/** Serializes a repository for `viewer`, with counters and (for forks the viewer can see) the parent. */
export async function loadApiRepo(deps: RepoDeps, repo: RepoRow, viewer: UserRow | null, appUrl: string, opts: LoadApiRepoOptions = {}): Promise<ApiRepository> {
  const owner = opts.owner ?? (await usersStore(deps.db).byId(repo.owner_id))!;
  const mode = opts.mode ?? (await repoAccessMode(deps.db, repo, owner, viewer));
  const facts = await cachedFacts(deps, repo, owner, opts.factsCache);
  if (repo.fork_id !== null) {
    const parent = await reposStore(deps.db).byId(repo.fork_id);
    const parentOwner = parent ? await usersStore(deps.db).byId(parent.owner_id) : undefined;
    if (parent && parentOwner) {
      const parentMode = await repoAccessMode(deps.db, parent, parentOwner, viewer);
      if (parentMode !== 'none') {
        facts.parent = toApiRepo({ repo: parent, owner: parentOwner, mode: parentMode }, viewer, appUrl, await cachedFacts(deps, parent, parentOwner, opts.factsCache));
      }
    }
  }
  return toApiRepo({ repo, owner, mode }, viewer, appUrl, facts);
}

/** A page of repositories (owners already loaded) for `viewer`, sharing one facts cache. */
export async function loadApiRepoList(deps: RepoDeps, found: Array<{ repo: RepoRow; owner: UserRow }>, viewer: UserRow | null, appUrl: string): Promise<ApiRepository[]> {
  const factsCache: LoadApiRepoOptions['factsCache'] = new Map();
  return Promise.all(found.map(({ repo, owner }) => loadApiRepo(deps, repo, viewer, appUrl, { owner, factsCache })));
}

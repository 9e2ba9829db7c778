// Repository lifecycle: creating (row and bare directory together), editing and deleting. A failure
// leaves neither a row nor a directory behind.
import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { ConflictError, UnprocessableError } from './errors.js';
import { isUniqueViolation } from '../db/connection.js';
import { labelsStore } from '../db/labels.js';
import { reposStore, type RepoRow } from '../db/repos.js';
import { gitIdentity } from './pulls/git-identity.js';
import { gitignoreText, labelSet, licenseText, readmeText } from './repo-templates.js';
import { recordTemplateLicense } from './repo-licenses.js';
import type { UserRow } from '../db/users.js';
import { nowUnix } from '../db/time.js';
import { assertRepositoryStorage } from './repository-storage.js';
import {
  createInitialCommit, deleteRepositoryDirectory, initBareRepository, isValidBranchName, repositoryPath,
  resolveRef, branchRef, setDefaultBranch,
} from '../git/index.js';

/** What repository code needs from the configuration. */
export interface RepoDeps {
  db: Knex;
  config: { APP_DATA_PATH: string };
}

export const MAX_REPO_NAME_LENGTH = 100;
export const DEFAULT_BRANCH = 'main';
const NAME_CHARS = /^[A-Za-z0-9_.-]+$/;
// Gitea's reserved repository names and patterns (models/repo/repo.go), plus a leading '-', which
// the git layer refuses as a path segment so it can never be read as an option.
const RESERVED_NAMES = new Set(['.', '..', '-']);
const RESERVED_SUFFIXES = ['.git', '.rss', '.atom', '.wiki'];

export class RepoExistsError extends ConflictError {
  constructor() { super('The repository with the same name already exists.'); }
}

/** Why a repository name is refused (Gitea's wording), or null when it is usable. */
export function repoNameProblem(name: unknown): string | null {
  if (typeof name !== 'string' || name.length === 0) return 'name is invalid [name: ]';
  if (name.length > MAX_REPO_NAME_LENGTH) return `name is too long [name: ${name.slice(0, MAX_REPO_NAME_LENGTH)}…]`;
  if (!NAME_CHARS.test(name)) return `name is invalid [name: ${name}]`;
  if (RESERVED_NAMES.has(name)) return `name is reserved [name: ${name}]`;
  const suffix = RESERVED_SUFFIXES.find((s) => name.toLowerCase().endsWith(s));
  if (suffix) return `name pattern is not allowed [pattern: *${suffix}]`;
  if (name.startsWith('-')) return `name is invalid [name: ${name}]`;
  return null;
}

export function repositoriesRoot(config: { APP_DATA_PATH: string }): string {
  return join(config.APP_DATA_PATH, 'repositories');
}

/** The bare directory of a repository; names were validated at creation, repositoryPath re-checks. */
export function repoDiskPath(config: { APP_DATA_PATH: string }, ownerName: string, repoName: string): string {
  return repositoryPath(repositoriesRoot(config), ownerName, repoName);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

export interface CreateRepositoryInput {
  owner: UserRow;
  /** Who asked; the author of the initial commit. */
  doer: UserRow;
  name: string;
  description?: string;
  private?: boolean;
  autoInit?: boolean;
  defaultBranch?: string;
  template?: boolean;
  /** With autoInit: a README template ("Default" when empty), .gitignore templates (comma-separated), a license id. */
  readme?: string;
  gitignores?: string;
  license?: string;
  /** A label set ("Default", "Advanced") to start the repository with, auto_init or not. */
  issueLabels?: string;
}

export async function createRepository(deps: RepoDeps, input: CreateRepositoryInput): Promise<RepoRow> {
  const problem = repoNameProblem(input.name);
  if (problem) throw new UnprocessableError(problem);
  const defaultBranch = input.defaultBranch || DEFAULT_BRANCH;
  if (!isValidBranchName(defaultBranch)) throw new UnprocessableError(`invalid default branch name: ${defaultBranch}`);
  // Templates are read before anything is created, so an unknown name leaves nothing behind.
  const initialFiles = input.autoInit ? initialRepositoryFiles(input) : null;
  const labels = input.issueLabels ? labelSet(input.issueLabels) : [];
  const repos = reposStore(deps.db);
  if (await repos.byOwnerAndName(input.owner.id, input.name)) throw new RepoExistsError();
  await assertRepositoryStorage(deps.db, deps.config);
  const path = repoDiskPath(deps.config, input.owner.name, input.name);
  // A leftover directory is somebody else's data: never adopt or overwrite it.
  if (await exists(path)) throw new ConflictError('The repository files already exist.');

  let created = false;
  try {
    return await deps.db.transaction(async (trx) => {
      const id = await repos.insert({
        owner_id: input.owner.id,
        name: input.name,
        description: input.description ?? '',
        is_private: input.private ?? false,
        is_template: input.template ?? false,
        default_branch: defaultBranch,
        is_empty: true,
      }, trx);
      created = true;
      await initBareRepository(path, defaultBranch);
      if (initialFiles) {
        const author = gitIdentity(input.doer);
        await createInitialCommit(path, defaultBranch, { authorName: author.name, authorEmail: author.email, message: 'Initial commit', files: initialFiles });
        await repos.update(id, { is_empty: false }, trx);
        if (input.license) await recordTemplateLicense(trx, id, path, defaultBranch, input.license);
      }
      for (const label of labels) {
        await labelsStore(trx).insert({ repoId: id }, { name: label.name, color: label.color, description: label.description, exclusive: label.exclusive, is_archived: false }, trx);
      }
      return (await repos.byId(id, trx))!;
    });
  } catch (err) {
    if (created) await deleteRepositoryDirectory(path).catch(() => undefined);
    if (isUniqueViolation(err)) throw new RepoExistsError();
    throw err;
  }
}

/** README, .gitignore and LICENSE of an auto-initialised repository, as Gitea writes them. */
function initialRepositoryFiles(input: CreateRepositoryInput): Record<string, string> {
  const values = {
    repoName: input.name, description: input.description ?? '', ownerName: input.owner.name,
    ownerEmail: gitIdentity(input.owner).email, year: String(new Date().getFullYear()),
  };
  const files: Record<string, string> = { 'README.md': readmeText(input.readme || 'Default', values) };
  if (input.gitignores) files['.gitignore'] = gitignoreText(input.gitignores);
  if (input.license) files.LICENSE = licenseText(input.license, values);
  return files;
}

/** Removes every row (foreign keys cascade) and then the directory. */
export async function deleteRepository(deps: RepoDeps, repo: RepoRow, owner: UserRow): Promise<void> {
  const path = repoDiskPath(deps.config, owner.name, repo.name);
  await deps.db.transaction(async (trx) => {
    if (repo.fork_id !== null) {
      await trx('repositories').where({ id: repo.fork_id }).andWhere('num_forks', '>', 0).decrement('num_forks', 1);
    }
    await reposStore(deps.db).remove(repo.id, trx);
  });
  await deleteRepositoryDirectory(path);
}

/** The subset of EditRepoOption this service stores. */
export interface RepoEdit {
  name?: string;
  description?: string;
  website?: string;
  private?: boolean;
  template?: boolean;
  archived?: boolean;
  default_branch?: string;
  has_issues?: boolean;
  has_wiki?: boolean;
  has_pull_requests?: boolean;
  ignore_whitespace_conflicts?: boolean;
  allow_merge_commits?: boolean;
  allow_rebase?: boolean;
  allow_rebase_explicit?: boolean;
  allow_squash_merge?: boolean;
  allow_fast_forward_only_merge?: boolean;
  allow_manual_merge?: boolean;
  autodetect_manual_merge?: boolean;
  allow_rebase_update?: boolean;
  default_delete_branch_after_merge?: boolean;
  default_merge_style?: string;
  default_allow_maintainer_edit?: boolean;
}

const PLAIN_FIELDS: Array<[keyof RepoEdit, keyof RepoRow]> = [
  ['description', 'description'], ['website', 'website'], ['private', 'is_private'], ['template', 'is_template'],
  ['has_issues', 'has_issues'], ['has_wiki', 'has_wiki'], ['has_pull_requests', 'has_pull_requests'],
  ['ignore_whitespace_conflicts', 'ignore_whitespace_conflicts'], ['allow_merge_commits', 'allow_merge_commits'],
  ['allow_rebase', 'allow_rebase'], ['allow_rebase_explicit', 'allow_rebase_explicit'],
  ['allow_squash_merge', 'allow_squash_merge'], ['allow_fast_forward_only_merge', 'allow_fast_forward_only_merge'],
  ['allow_manual_merge', 'allow_manual_merge'], ['autodetect_manual_merge', 'autodetect_manual_merge'],
  ['allow_rebase_update', 'allow_rebase_update'], ['default_delete_branch_after_merge', 'default_delete_branch_after_merge'],
  ['default_merge_style', 'default_merge_style'], ['default_allow_maintainer_edit', 'default_allow_maintainer_edit'],
];

export async function editRepository(deps: RepoDeps, repo: RepoRow, owner: UserRow, edit: RepoEdit): Promise<RepoRow> {
  const repos = reposStore(deps.db);
  const fields: Partial<RepoRow> = {};
  for (const [option, column] of PLAIN_FIELDS) {
    if (edit[option] !== undefined) (fields as Record<string, unknown>)[column] = edit[option];
  }
  if (edit.archived !== undefined && edit.archived !== repo.is_archived) {
    fields.is_archived = edit.archived;
    fields.archived_unix = edit.archived ? nowUnix() : 0;
  }
  const path = repoDiskPath(deps.config, owner.name, repo.name);
  if (edit.default_branch !== undefined && edit.default_branch !== repo.default_branch) {
    if (!isValidBranchName(edit.default_branch)) throw new UnprocessableError(`invalid default branch name: ${edit.default_branch}`);
    // As Gitea: a branch that does not exist in a non-empty repository is ignored, not an error.
    if (repo.is_empty || (await resolveRef(path, branchRef(edit.default_branch))) !== null) {
      await setDefaultBranch(path, edit.default_branch);
      fields.default_branch = edit.default_branch;
    }
  }
  if (edit.name !== undefined && edit.name !== repo.name) {
    await renameRepository(deps, repo, owner, edit.name);
  }
  if (Object.keys(fields).length > 0) await repos.update(repo.id, fields);
  return (await repos.byId(repo.id))!;
}

async function renameRepository(deps: RepoDeps, repo: RepoRow, owner: UserRow, newName: string): Promise<void> {
  const problem = repoNameProblem(newName);
  if (problem) throw new UnprocessableError(problem);
  const repos = reposStore(deps.db);
  const other = await repos.byOwnerAndName(owner.id, newName);
  if (other && other.id !== repo.id) throw new RepoExistsError();
  const from = repoDiskPath(deps.config, owner.name, repo.name);
  const to = repoDiskPath(deps.config, owner.name, newName);
  const sameDirectory = from === to; // a change of letter case only
  if (!sameDirectory && (await exists(to))) throw new ConflictError('The repository files already exist.');
  await deps.db.transaction(async (trx) => {
    await trx('repositories').where({ id: repo.id }).update({ name: newName, lower_name: newName.toLowerCase(), updated_unix: nowUnix() });
    if (!sameDirectory) await rename(from, to);
  }).catch((err) => {
    if (isUniqueViolation(err)) throw new RepoExistsError();
    throw err;
  });
}

// Wire schemas for repositories, forks, branches, collaborators and branch protection (Gitea's
// modules/structs/repo*.go). Response objects list every field: Fastify's serializer drops the rest.
import Type from 'typebox';
import { User } from './user.js';

/** The owner, collaborator and creator records: Gitea's User. */
export const UserRef = User;
const NullableTime = Type.Union([Type.String(), Type.Null()]);

export const OwnerRepoParams = Type.Object({
  owner: Type.String({ description: 'owner of the repo' }),
  repo: Type.String({ description: 'name of the repo' }),
});

export const ApiError = Type.Object({ message: Type.String(), url: Type.String() }, { additionalProperties: true });

const Permission = Type.Object({ admin: Type.Boolean(), push: Type.Boolean(), pull: Type.Boolean() }, { title: 'Permission' });

const repositoryFields = {
  id: Type.Integer(),
  owner: UserRef,
  name: Type.String(),
  full_name: Type.String(),
  description: Type.String(),
  empty: Type.Boolean(),
  private: Type.Boolean(),
  fork: Type.Boolean(),
  template: Type.Boolean(),
  mirror: Type.Boolean(),
  size: Type.Integer({ description: 'KiB' }),
  language: Type.String(),
  languages_url: Type.String(),
  html_url: Type.String(),
  url: Type.String(),
  link: Type.String(),
  ssh_url: Type.String(),
  clone_url: Type.String(),
  original_url: Type.String(),
  website: Type.String(),
  stars_count: Type.Integer(),
  forks_count: Type.Integer(),
  watchers_count: Type.Integer(),
  open_issues_count: Type.Integer(),
  open_pr_counter: Type.Integer(),
  release_counter: Type.Integer(),
  default_branch: Type.String(),
  archived: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
  archived_at: Type.String(),
  permissions: Type.Optional(Permission),
  has_issues: Type.Boolean(),
  internal_tracker: Type.Optional(Type.Object({
    enable_time_tracker: Type.Boolean(),
    allow_only_contributors_to_track_time: Type.Boolean(),
    enable_issue_dependencies: Type.Boolean(),
  }, { title: 'InternalTracker' })),
  has_wiki: Type.Boolean(),
  has_pull_requests: Type.Boolean(),
  has_projects: Type.Boolean(),
  projects_mode: Type.String(),
  has_releases: Type.Boolean(),
  has_packages: Type.Boolean(),
  has_actions: Type.Boolean(),
  has_code: Type.Boolean(),
  ignore_whitespace_conflicts: Type.Boolean(),
  allow_merge_commits: Type.Boolean(),
  allow_rebase: Type.Boolean(),
  allow_rebase_explicit: Type.Boolean(),
  allow_squash_merge: Type.Boolean(),
  allow_fast_forward_only_merge: Type.Boolean(),
  allow_rebase_update: Type.Boolean(),
  allow_manual_merge: Type.Boolean(),
  autodetect_manual_merge: Type.Boolean(),
  default_delete_branch_after_merge: Type.Boolean(),
  default_merge_style: Type.String(),
  default_target_branch: Type.Optional(Type.String({ description: 'sent only when the repository names one (Gitea: omitempty)' })),
  default_allow_maintainer_edit: Type.Boolean(),
  avatar_url: Type.String(),
  internal: Type.Boolean(),
  mirror_interval: Type.String(),
  object_format_name: Type.String(),
  mirror_updated: Type.String(),
  branch_count: Type.Integer(),
  repo_transfer: Type.Optional(Type.Null({ description: 'never sent: no transfers (Gitea omits it when there is none)' })),
  topics: Type.Array(Type.String()),
  licenses: Type.Array(Type.String()),
};

/** A fork's parent is a Repository itself (without its own parent, as Gitea sends it). */
const ParentRepository = Type.Object(repositoryFields, { additionalProperties: true });
export const Repository = Type.Object({ ...repositoryFields, parent: Type.Optional(ParentRepository) }, { title: 'Repository' });
export const RepositoryList = Type.Array(Repository);

const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'];

export const CreateRepoOption = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9_.-]+$', maxLength: 100, description: 'Name of the repository to create' }),
  description: Type.Optional(Type.String({ maxLength: 2048 })),
  private: Type.Optional(Type.Boolean()),
  issue_labels: Type.Optional(Type.String()),
  auto_init: Type.Optional(Type.Boolean()),
  template: Type.Optional(Type.Boolean()),
  gitignores: Type.Optional(Type.String()),
  license: Type.Optional(Type.String()),
  readme: Type.Optional(Type.String()),
  default_branch: Type.Optional(Type.String({ maxLength: 100 })),
  trust_model: Type.Optional(Type.String({ maxLength: 40, description: 'default, collaborator, committer or collaboratorcommitter; anything else is default, as in Gitea' })),
  object_format_name: Type.Optional(Type.Literal('sha1', { description: 'only sha1 is supported' })),
}, { title: 'CreateRepoOption' });

export const EditRepoOption = Type.Object({
  name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]+$', maxLength: 100 })),
  description: Type.Optional(Type.String({ maxLength: 2048 })),
  website: Type.Optional(Type.String({ maxLength: 1024 })),
  private: Type.Optional(Type.Boolean()),
  template: Type.Optional(Type.Boolean()),
  default_branch: Type.Optional(Type.String({ maxLength: 255 })),
  archived: Type.Optional(Type.Boolean()),
  has_issues: Type.Optional(Type.Boolean()),
  has_wiki: Type.Optional(Type.Boolean()),
  has_pull_requests: Type.Optional(Type.Boolean()),
  ignore_whitespace_conflicts: Type.Optional(Type.Boolean()),
  allow_merge_commits: Type.Optional(Type.Boolean()),
  allow_rebase: Type.Optional(Type.Boolean()),
  allow_rebase_explicit: Type.Optional(Type.Boolean()),
  allow_squash_merge: Type.Optional(Type.Boolean()),
  allow_fast_forward_only_merge: Type.Optional(Type.Boolean()),
  allow_manual_merge: Type.Optional(Type.Boolean()),
  autodetect_manual_merge: Type.Optional(Type.Boolean()),
  allow_rebase_update: Type.Optional(Type.Boolean()),
  default_delete_branch_after_merge: Type.Optional(Type.Boolean()),
  default_merge_style: Type.Optional(Type.Union(MERGE_STYLES.map((s) => Type.Literal(s)))),
  default_allow_maintainer_edit: Type.Optional(Type.Boolean()),
}, { title: 'EditRepoOption' });

export const CreateForkOption = Type.Object({
  organization: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  name: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z0-9_.-]+$', maxLength: 100 }), Type.Null()])),
}, { title: 'CreateForkOption' });

const PayloadUser = Type.Object({ name: Type.String(), email: Type.String(), username: Type.String() }, { title: 'PayloadUser' });
export const PayloadCommitVerification = Type.Object({
  verified: Type.Boolean(), reason: Type.String(), signature: Type.String(),
  signer: Type.Unsafe<unknown>({ ...PayloadUser, nullable: true, 'x-nullable': true }), payload: Type.String(),
}, { title: 'PayloadCommitVerification' });
export const PayloadCommit = Type.Object({
  id: Type.String(),
  message: Type.String(),
  url: Type.String(),
  author: PayloadUser,
  committer: PayloadUser,
  verification: PayloadCommitVerification,
  timestamp: Type.String(),
  added: Type.Null(),
  removed: Type.Null(),
  modified: Type.Null(),
}, { title: 'PayloadCommit' });

export const Branch = Type.Object({
  name: Type.String(),
  commit: PayloadCommit,
  protected: Type.Boolean(),
  required_approvals: Type.Integer(),
  enable_status_check: Type.Boolean(),
  status_check_contexts: Type.Array(Type.String()),
  user_can_push: Type.Boolean(),
  user_can_merge: Type.Boolean(),
  effective_branch_protection_name: Type.String(),
}, { title: 'Branch' });

export const CreateBranchOption = Type.Object({
  new_branch_name: Type.String({ minLength: 1, maxLength: 255 }),
  old_branch_name: Type.Optional(Type.String({ maxLength: 255 })),
  old_ref_name: Type.Optional(Type.String({ maxLength: 255 })),
}, { title: 'CreateBranchRepoOption' });

export const RepoCollaboratorPermission = Type.Object({ permission: Type.String(), role_name: Type.String(), user: UserRef }, { title: 'RepoCollaboratorPermission' });
export const AddCollaboratorOption = Type.Object({
  permission: Type.Optional(Type.Union(['read', 'write', 'admin'].map((p) => Type.Literal(p)))),
}, { title: 'AddCollaboratorOption' });

export { NullableTime };

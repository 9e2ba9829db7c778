// Wire schemas of branch protection (modules/structs/repo_branch.go BranchProtection and options).
import Type from 'typebox';

const Names = Type.Array(Type.String());
const optionFields = {
  priority: Type.Integer(),
  enable_push: Type.Boolean(),
  enable_push_whitelist: Type.Boolean(),
  push_whitelist_usernames: Names,
  push_whitelist_teams: Names,
  push_whitelist_deploy_keys: Type.Boolean(),
  enable_force_push: Type.Boolean(),
  enable_force_push_allowlist: Type.Boolean(),
  force_push_allowlist_usernames: Names,
  force_push_allowlist_teams: Names,
  force_push_allowlist_deploy_keys: Type.Boolean(),
  enable_merge_whitelist: Type.Boolean(),
  merge_whitelist_usernames: Names,
  merge_whitelist_teams: Names,
  enable_status_check: Type.Boolean(),
  status_check_contexts: Names,
  required_approvals: Type.Integer({ minimum: 0 }),
  enable_approvals_whitelist: Type.Boolean(),
  approvals_whitelist_username: Names,
  approvals_whitelist_teams: Names,
  block_on_rejected_reviews: Type.Boolean(),
  block_on_official_review_requests: Type.Boolean(),
  block_on_outdated_branch: Type.Boolean(),
  dismiss_stale_approvals: Type.Boolean(),
  ignore_stale_approvals: Type.Boolean(),
  require_signed_commits: Type.Boolean(),
  protected_file_patterns: Type.String(),
  unprotected_file_patterns: Type.String(),
  block_admin_merge_override: Type.Boolean(),
  enable_bypass_allowlist: Type.Boolean(),
  bypass_allowlist_usernames: Names,
  bypass_allowlist_teams: Names,
  block_on_codeowner_reviews: Type.Boolean(),
  enable_merge_queue: Type.Boolean({ description: 'pull requests into the branch land through its merge queue' }),
  merge_queue_merge_style: Type.String({ description: 'merge, squash, rebase or rebase-merge: how the queue lands entries' }),
  merge_queue_depth: Type.Integer({ minimum: 1, maximum: 32, description: 'entries (batches) built and checked at once' }),
  merge_queue_max_batch: Type.Integer({ minimum: 1, maximum: 32, description: 'largest batch landed at once' }),
  merge_queue_batch_wait_seconds: Type.Integer({ minimum: 0, maximum: 86400, description: 'how long to wait for a batch to fill' }),
  merge_queue_check_timeout_seconds: Type.Integer({ minimum: 1, maximum: 604800, description: 'required checks not done this long after a build fail it' }),
};

type Fields = typeof optionFields;
const optional = Object.fromEntries(Object.entries(optionFields).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof Fields]: ReturnType<typeof Type.Optional<Fields[K]>> };

export const BranchProtection = Type.Object({
  branch_name: Type.String(),
  rule_name: Type.String(),
  ...optionFields,
  created_at: Type.String(),
  updated_at: Type.String(),
}, { title: 'BranchProtection' });

export const CreateBranchProtectionOption = Type.Object({
  branch_name: Type.Optional(Type.String({ maxLength: 255 })),
  rule_name: Type.Optional(Type.String({ maxLength: 255 })),
  ...optional,
}, { title: 'CreateBranchProtectionOption' });

export const EditBranchProtectionOption = Type.Object({ ...optional }, { title: 'EditBranchProtectionOption' });

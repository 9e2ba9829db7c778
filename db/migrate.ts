// Applies the schema migrations; the list is compiled in, so it runs the same from source or dist.
import type { Knex } from 'knex';
import * as accounts from './migrations/0001_accounts.js';
import * as repositories from './migrations/0002_repositories.js';
import * as issues from './migrations/0003_issues.js';
import * as pulls from './migrations/0004_pulls.js';
import * as accountExtras from './migrations/0005_account_extras.js';
import * as mergeJournal from './migrations/0007_merge_journal.js';
import * as oauth2 from './migrations/0008_oauth2.js';
import * as mergeChecks from './migrations/0009_merge_checks.js';
import * as reactionsReviewComments from './migrations/0010_reactions_review_comments.js';
import * as topicsAndMemberships from './migrations/0012_topics_and_memberships.js';
import * as loginThrottle from './migrations/0013_login_throttle.js';
import * as idempotencyAnswers from './migrations/0014_idempotency_answers.js';
import * as tagProtections from './migrations/0020_tag_protections.js';
import * as userSettings from './migrations/0021_user_settings.js';
import * as emailAddresses from './migrations/0022_email_addresses.js';
import * as issueRef from './migrations/0023_issue_ref.js';
import * as repoLicenses from './migrations/0024_repo_licenses.js';
import * as webhooks from './migrations/0030_webhooks.js';
import * as mergeQueue from './migrations/0050_merge_queue.js';
import * as pullHeadIndex from './migrations/0051_pull_head_index.js';
import * as pushJournal from './migrations/0052_push_journal.js';

type Migration = { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> };

export const migrations: ReadonlyArray<readonly [string, Migration]> = [
  ['0001_accounts', accounts],
  ['0002_repositories', repositories],
  ['0003_issues', issues],
  ['0004_pulls', pulls],
  ['0005_account_extras', accountExtras],
  ['0007_merge_journal', mergeJournal],
  ['0008_oauth2', oauth2],
  ['0009_merge_checks', mergeChecks],
  ['0010_reactions_review_comments', reactionsReviewComments],
  ['0012_topics_and_memberships', topicsAndMemberships],
  ['0013_login_throttle', loginThrottle],
  ['0014_idempotency_answers', idempotencyAnswers],
  ['0020_tag_protections', tagProtections],
  ['0021_user_settings', userSettings],
  ['0022_email_addresses', emailAddresses],
  ['0023_issue_ref', issueRef],
  ['0024_repo_licenses', repoLicenses],
  ['0030_webhooks', webhooks],
  ['0050_merge_queue', mergeQueue],
  ['0051_pull_head_index', pullHeadIndex],
  ['0052_push_journal', pushJournal],
];

const source: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: async () => [...migrations],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

export async function migrateToLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
  return applied;
}

export async function rollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback({ migrationSource: source }, true);
}

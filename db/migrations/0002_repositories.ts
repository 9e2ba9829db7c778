// Repositories, their collaborators and team grants, branch protection rules and commit statuses.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('repositories', (t) => {
    t.bigIncrements('id');
    t.bigInteger('owner_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('lower_name', 100).notNullable();
    t.string('name', 100).notNullable();
    t.string('description', 2048).notNullable().defaultTo('');
    t.string('website', 1024).notNullable().defaultTo('');
    t.string('default_branch', 255).notNullable().defaultTo('main');
    t.boolean('is_private').notNullable().defaultTo(false);
    t.boolean('is_archived').notNullable().defaultTo(false);
    t.boolean('is_empty').notNullable().defaultTo(true);
    t.boolean('is_template').notNullable().defaultTo(false);
    t.bigInteger('fork_id').unsigned().nullable().references('id').inTable('repositories').onDelete('SET NULL');
    t.integer('num_forks').notNullable().defaultTo(0);
    t.boolean('has_issues').notNullable().defaultTo(true);
    t.boolean('has_pull_requests').notNullable().defaultTo(true);
    t.boolean('has_wiki').notNullable().defaultTo(true);
    t.boolean('allow_merge_commits').notNullable().defaultTo(true);
    t.boolean('allow_rebase').notNullable().defaultTo(true);
    t.boolean('allow_rebase_explicit').notNullable().defaultTo(true);
    t.boolean('allow_squash_merge').notNullable().defaultTo(true);
    t.boolean('allow_fast_forward_only_merge').notNullable().defaultTo(true);
    t.boolean('allow_manual_merge').notNullable().defaultTo(true);
    t.boolean('autodetect_manual_merge').notNullable().defaultTo(false);
    t.boolean('allow_rebase_update').notNullable().defaultTo(true);
    t.boolean('default_delete_branch_after_merge').notNullable().defaultTo(false);
    t.string('default_merge_style', 30).notNullable().defaultTo('merge');
    t.boolean('default_allow_maintainer_edit').notNullable().defaultTo(false);
    t.boolean('ignore_whitespace_conflicts').notNullable().defaultTo(false);
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.bigInteger('archived_unix').notNullable().defaultTo(0);
    t.unique(['owner_id', 'lower_name']);
    t.index(['fork_id']);
  });

  await knex.schema.createTable('collaborations', (t) => {
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.bigInteger('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('mode', 10).notNullable(); // read, write, admin
    t.bigInteger('created_unix').notNullable();
    t.primary(['repo_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('team_repos', (t) => {
    t.bigInteger('team_id').unsigned().notNullable().references('id').inTable('teams').onDelete('CASCADE');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.primary(['team_id', 'repo_id']);
    t.index(['repo_id']);
  });

  await knex.schema.createTable('protected_branches', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.string('rule_name', 255).notNullable();
    t.bigInteger('priority').notNullable().defaultTo(0);
    t.text('settings').notNullable(); // JSON of the BranchProtection options
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.unique(['repo_id', 'rule_name']);
  });

  await knex.schema.createTable('commit_statuses', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.string('sha', 64).notNullable();
    t.bigInteger('index').notNullable(); // per-sha index, the `id` on the wire
    t.string('state', 10).notNullable();
    t.string('target_url', 2048).notNullable().defaultTo('');
    t.string('description', 1024).notNullable().defaultTo('');
    t.string('context', 255).notNullable().defaultTo('');
    t.bigInteger('creator_id').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL');
    t.bigInteger('created_unix').notNullable();
    t.unique(['repo_id', 'sha', 'index']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['commit_statuses', 'protected_branches', 'team_repos', 'collaborations', 'repositories']) {
    await knex.schema.dropTableIfExists(table);
  }
}

// Pull requests, their reviews and scheduled auto-merges.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pull_requests', (t) => {
    t.bigIncrements('id');
    t.bigInteger('issue_id').unsigned().notNullable().unique().references('id').inTable('issues').onDelete('CASCADE');
    t.bigInteger('index').notNullable();
    t.bigInteger('base_repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.bigInteger('head_repo_id').unsigned().nullable().references('id').inTable('repositories').onDelete('SET NULL');
    t.string('base_branch', 255).notNullable();
    t.string('head_branch', 255).notNullable();
    t.string('head_commit_id', 64).notNullable().defaultTo('');
    t.string('merge_base', 64).notNullable().defaultTo('');
    // conflict, checking, mergeable, manually_merged, error, empty, ancestor
    t.string('status', 20).notNullable().defaultTo('checking');
    t.text('conflicted_files').notNullable(); // JSON array
    t.string('checked_head', 64).notNullable().defaultTo(''); // head sha the status was computed for
    t.string('checked_base', 64).notNullable().defaultTo(''); // base sha the status was computed for
    t.boolean('has_merged').notNullable().defaultTo(false);
    t.bigInteger('merged_unix').nullable();
    t.bigInteger('merger_id').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL');
    t.string('merge_commit_sha', 64).nullable();
    t.string('merge_style', 30).nullable();
    t.boolean('allow_maintainer_edit').notNullable().defaultTo(false);
    t.boolean('head_branch_deleted').notNullable().defaultTo(false);
    t.integer('additions').notNullable().defaultTo(0);
    t.integer('deletions').notNullable().defaultTo(0);
    t.integer('changed_files').notNullable().defaultTo(0);
    t.index(['base_repo_id', 'index']);
    t.index(['head_repo_id', 'head_branch']);
    t.index(['base_repo_id', 'base_branch']);
  });

  await knex.schema.createTable('reviews', (t) => {
    t.bigIncrements('id');
    t.bigInteger('issue_id').unsigned().notNullable().references('id').inTable('issues').onDelete('CASCADE');
    t.bigInteger('reviewer_id').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL');
    t.string('type', 20).notNullable(); // APPROVED, REQUEST_CHANGES, COMMENT, PENDING
    t.text('content').notNullable();
    t.string('commit_id', 64).notNullable().defaultTo('');
    t.boolean('official').notNullable().defaultTo(false);
    t.boolean('stale').notNullable().defaultTo(false);
    t.boolean('dismissed').notNullable().defaultTo(false);
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.index(['issue_id']);
  });

  await knex.schema.createTable('pull_auto_merges', (t) => {
    t.bigIncrements('id');
    t.bigInteger('pull_id').unsigned().notNullable().unique().references('id').inTable('pull_requests').onDelete('CASCADE');
    t.bigInteger('doer_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('merge_style', 30).notNullable();
    t.text('message').notNullable();
    t.boolean('delete_branch_after_merge').notNullable().defaultTo(false);
    t.string('error_message', 1024).notNullable().defaultTo('');
    t.bigInteger('created_unix').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['pull_auto_merges', 'reviews', 'pull_requests']) {
    await knex.schema.dropTableIfExists(table);
  }
}

// The merge queue's mirror: the queue workflow (queue/<repo id>/<branch>) owns the queue; these rows
// are what the API reads (GET .../merge_queue/{branch}, the pull request's merge_queue field) and
// the landing journal (a batch's commit and the base it moves from, written before the base moves).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merge_queue_entries', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.string('base_branch', 255).notNullable();
    // One entry per pull request: joining twice is refused by the unique key as well as the workflow.
    t.bigInteger('pull_id').unsigned().notNullable().unique();
    t.bigInteger('pull_index').notNullable();
    t.bigInteger('doer_id').notNullable();
    t.string('head_sha', 64).notNullable();
    t.integer('position').notNullable().defaultTo(0);
    t.string('state', 20).notNullable().defaultTo('waiting');
    t.string('spec_commit', 64).nullable();
    t.string('spec_branch', 255).nullable();
    t.text('checks').nullable();
    t.string('landing_commit', 64).nullable();
    t.string('landing_base', 64).nullable();
    t.bigInteger('queued_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.index(['repo_id', 'base_branch']);
    t.index(['repo_id', 'spec_commit']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('merge_queue_entries');
}

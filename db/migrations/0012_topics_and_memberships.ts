// Repository topics (Gitea's topic and repo_topic tables), public organization membership (the
// is_public flag of Gitea's org_user; membership itself is team membership here) and the account
// settings a site administrator edits (Gitea's login_name, allow_* and max_repo_creation columns).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('topics', (t) => {
    t.bigIncrements('id');
    t.string('name', 50).notNullable().unique();
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
  });

  await knex.schema.createTable('repo_topics', (t) => {
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.bigInteger('topic_id').unsigned().notNullable().references('id').inTable('topics').onDelete('CASCADE');
    t.primary(['repo_id', 'topic_id']);
    t.index(['topic_id']);
  });

  await knex.schema.createTable('org_public_members', (t) => {
    t.bigInteger('org_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.primary(['org_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.alterTable('users', (t) => {
    t.string('login_name', 255).notNullable().defaultTo('');
    t.boolean('allow_git_hook').notNullable().defaultTo(false);
    t.boolean('allow_import_local').notNullable().defaultTo(false);
    // -1: the instance default (unlimited), as in Gitea.
    t.integer('max_repo_creation').notNullable().defaultTo(-1);
    t.boolean('allow_create_organization').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    for (const column of ['allow_create_organization', 'max_repo_creation', 'allow_import_local', 'allow_git_hook', 'login_name']) t.dropColumn(column);
  });
  for (const table of ['org_public_members', 'repo_topics', 'topics']) await knex.schema.dropTableIfExists(table);
}

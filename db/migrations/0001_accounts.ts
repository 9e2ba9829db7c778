// Users and organizations (one table, as Gitea keeps them), tokens, teams, blocks.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.bigIncrements('id');
    t.string('lower_name', 40).notNullable().unique();
    t.string('name', 40).notNullable();
    t.string('full_name', 255).notNullable().defaultTo('');
    t.string('email', 254).notNullable().defaultTo('');
    t.string('lower_email', 254).notNullable().defaultTo('');
    t.string('passwd_hash', 255).notNullable().defaultTo('');
    t.integer('type').notNullable().defaultTo(0); // 0 user, 1 organization
    t.string('visibility', 10).notNullable().defaultTo('public');
    t.boolean('is_admin').notNullable().defaultTo(false);
    t.boolean('is_active').notNullable().defaultTo(true);
    t.boolean('prohibit_login').notNullable().defaultTo(false);
    t.boolean('must_change_password').notNullable().defaultTo(false);
    t.boolean('restricted').notNullable().defaultTo(false);
    t.boolean('keep_email_private').notNullable().defaultTo(false);
    t.string('totp_secret', 255).nullable(); // encrypted with the server key
    t.bigInteger('totp_last_step').notNullable().defaultTo(0);
    t.string('description', 255).notNullable().defaultTo('');
    t.string('website', 255).notNullable().defaultTo('');
    t.string('location', 255).notNullable().defaultTo('');
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.bigInteger('last_login_unix').notNullable().defaultTo(0);
    t.index(['lower_email']);
  });

  await knex.schema.createTable('access_tokens', (t) => {
    t.bigIncrements('id');
    t.bigInteger('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('token_last_eight', 8).notNullable();
    t.string('scope', 512).notNullable();
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.unique(['user_id', 'name']);
  });

  await knex.schema.createTable('teams', (t) => {
    t.bigIncrements('id');
    t.bigInteger('org_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('lower_name', 255).notNullable();
    t.string('name', 255).notNullable();
    t.string('description', 255).notNullable().defaultTo('');
    t.string('permission', 10).notNullable(); // read, write, admin, owner
    t.boolean('includes_all_repositories').notNullable().defaultTo(false);
    t.boolean('can_create_org_repo').notNullable().defaultTo(false);
    t.bigInteger('created_unix').notNullable();
    t.unique(['org_id', 'lower_name']);
  });

  await knex.schema.createTable('team_members', (t) => {
    t.bigInteger('team_id').unsigned().notNullable().references('id').inTable('teams').onDelete('CASCADE');
    t.bigInteger('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.primary(['team_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('user_blocks', (t) => {
    t.bigInteger('blocker_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('blockee_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('note', 255).notNullable().defaultTo('');
    t.bigInteger('created_unix').notNullable();
    t.primary(['blocker_id', 'blockee_id']);
    t.index(['blockee_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['user_blocks', 'team_members', 'teams', 'access_tokens', 'users']) {
    await knex.schema.dropTableIfExists(table);
  }
}

// The OAuth2 provider (applications, grants, authorization codes) and the web sign-in sessions.
// Secrets (client secrets, codes, session ids) are stored only as keyed hashes (core/auth/tokens.ts).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth2_applications', (t) => {
    t.bigIncrements('id');
    t.bigInteger('user_id').notNullable().index();
    t.string('name', 255).notNullable();
    t.string('client_id', 64).notNullable().unique();
    t.string('client_secret_hash', 64).notNullable();
    // JSON array of exact redirect URIs.
    t.text('redirect_uris').notNullable();
    t.boolean('confidential_client').notNullable().defaultTo(true);
    t.boolean('skip_secondary_authorization').notNullable().defaultTo(false);
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
  });
  await knex.schema.createTable('oauth2_grants', (t) => {
    t.bigIncrements('id');
    t.bigInteger('user_id').notNullable();
    t.bigInteger('application_id').notNullable().index();
    // Bumped on every refresh; a refresh token carrying an older value is a reuse (grant revoked).
    t.bigInteger('counter').notNullable().defaultTo(1);
    t.string('scope', 1024).notNullable().defaultTo('');
    t.string('nonce', 255).notNullable().defaultTo('');
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.unique(['user_id', 'application_id']);
  });
  await knex.schema.createTable('oauth2_authorization_codes', (t) => {
    t.bigIncrements('id');
    t.bigInteger('grant_id').notNullable().index();
    t.string('code_hash', 64).notNullable().unique();
    t.string('code_challenge', 255).notNullable().defaultTo('');
    t.string('code_challenge_method', 10).notNullable().defaultTo('');
    t.string('redirect_uri', 1024).notNullable();
    t.bigInteger('valid_until').notNullable();
    t.boolean('used').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('web_sessions', (t) => {
    t.string('id_hash', 64).primary();
    t.bigInteger('user_id').nullable().index();
    // Password accepted, TOTP code still to come: the account waiting for it, and until when.
    t.bigInteger('pending_user_id').nullable();
    t.bigInteger('pending_until').notNullable().defaultTo(0);
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('expires_unix').notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('web_sessions');
  await knex.schema.dropTableIfExists('oauth2_authorization_codes');
  await knex.schema.dropTableIfExists('oauth2_grants');
  await knex.schema.dropTableIfExists('oauth2_applications');
}

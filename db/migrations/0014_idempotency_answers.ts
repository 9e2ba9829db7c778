// Answers to pull request operations sent with an Idempotency-Key, kept for 24 hours so a retried
// request gets the first answer back from any API process and after the workflow run that gave it
// has ended (db/idempotency.ts). One row per (pull request, operation, user, key); the key itself
// is stored as its SHA-256, the request as the SHA-256 of its query and body.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_answers', (t) => {
    t.increments('id').primary();
    t.integer('repo_id').notNullable();
    t.bigInteger('pull_index').notNullable();
    t.string('operation', 32).notNullable();
    t.integer('user_id').notNullable();
    t.string('key_hash', 64).notNullable();
    t.string('request_hash', 64).notNullable();
    // Null while no answer has been recorded (the operation is under way, or its caller gave up).
    t.integer('status').nullable();
    t.text('body', 'mediumtext').nullable();
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('answered_unix').nullable();
    t.unique(['repo_id', 'pull_index', 'operation', 'user_id', 'key_hash'], { indexName: 'idempotency_answers_scope' });
    t.index(['created_unix'], 'idempotency_answers_created');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_answers');
}

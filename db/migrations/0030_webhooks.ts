// Webhooks (Gitea's `webhook` table), the outbox of events written in the same transaction as the
// change that caused them, and the deliveries made from them (Gitea's `hook_task`), with what each
// attempt sent and got back.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.bigIncrements('id');
    // Exactly one of the two: a repository's hook, or an organization's (or user's) hook.
    t.bigInteger('repo_id').unsigned().nullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.bigInteger('owner_id').unsigned().nullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('name', 255).notNullable().defaultTo('');
    t.string('type', 16).notNullable();
    t.text('url').notNullable();
    t.string('content_type', 8).notNullable();
    // Sealed with core/auth/secret-box.ts; '' when there is none.
    t.text('secret_sealed').notNullable();
    t.text('authorization_sealed').notNullable();
    // JSON array of the event kinds chosen (Gitea's HookEvents that are on).
    t.text('events').notNullable();
    t.text('branch_filter').notNullable();
    t.boolean('is_active').notNullable().defaultTo(false);
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.index(['repo_id', 'is_active']);
    t.index(['owner_id', 'is_active']);
  });

  await knex.schema.createTable('webhook_events', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    // Gitea's HookEventType (`pull_request_sync`, `issue_comment`...) and the payload's action.
    t.string('event', 48).notNullable();
    t.string('action', 32).notNullable().defaultTo('');
    t.bigInteger('doer_id').nullable();
    // What the payload is built from: the subject's ids and what cannot be read back later.
    t.text('detail', 'longtext').notNullable();
    // The payload as delivered, built once when the event is dispatched to its hooks.
    t.text('payload', 'longtext').nullable();
    t.boolean('dispatched').notNullable().defaultTo(false);
    t.bigInteger('created_ms').notNullable();
    t.index(['dispatched', 'id']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.bigInteger('hook_id').unsigned().notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.bigInteger('event_id').unsigned().notNullable().references('id').inTable('webhook_events').onDelete('CASCADE');
    // X-Gitea-Delivery: one per delivery, the same on every attempt.
    t.string('uuid', 36).notNullable().unique();
    t.string('event', 48).notNullable();
    // pending, delivered, failed (refused for good or given up).
    t.string('status', 12).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_ms').notNullable();
    t.bigInteger('created_ms').notNullable();
    t.bigInteger('last_attempt_ms').nullable();
    t.bigInteger('finished_ms').nullable();
    t.bigInteger('redelivery_of').nullable();
    // The last attempt: the request's headers (Authorization masked), the answer (body truncated),
    // or why there was none.
    t.text('request_headers').nullable();
    t.integer('response_status').nullable();
    t.text('response_headers').nullable();
    t.text('response_body').nullable();
    t.integer('duration_ms').nullable();
    t.text('error').nullable();
    t.index(['hook_id', 'status', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_events');
  await knex.schema.dropTableIfExists('webhooks');
}

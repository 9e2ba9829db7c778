// The failed-login throttle's counters, shared by every API process (they lived in each process's
// memory). A row per throttled key (an account name or a client address), under a hash of the key.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('login_throttle', (t) => {
    t.string('key_hash', 64).primary();
    /** Failure times (ms) inside the current window, comma-separated, at most the limit's count. */
    t.string('failures', 1024).notNullable().defaultTo('');
    t.integer('strikes').notNullable().defaultTo(0);
    t.bigInteger('locked_until').notNullable().defaultTo(0);
    t.bigInteger('last_failure').notNullable().defaultTo(0);
    /** When the row means nothing any more (quiet for the forgiveness period): swept after. */
    t.bigInteger('forget_after').notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('login_throttle');
}

// Pushes whose webhook events are not recorded yet. A push's row is written before git moves its
// references and deleted in the transaction that records its events, so a process that dies in
// between leaves the row, and the next catch-up records the events of what git applied (exactly
// once: whoever deletes the row records them).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('push_journal', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.bigInteger('pusher_id').nullable();
    // [{ ref, oldSha, newSha }] as the client asked for them.
    t.text('commands', 'longtext').notNullable();
    t.bigInteger('created_unix').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('push_journal');
}

// A user's further e-mail addresses (Gitea's email_address table, less the primary address, which
// stays users.email). An address belongs to one account at most, primary or not.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('email_addresses', (t) => {
    t.bigIncrements('id');
    t.bigInteger('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('email', 254).notNullable();
    t.string('lower_email', 254).notNullable().unique();
    t.boolean('is_activated').notNullable().defaultTo(true);
    t.bigInteger('created_unix').notNullable();
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('email_addresses');
}

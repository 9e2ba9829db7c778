// The branch or tag an issue is about (Gitea's issue.ref), set on creation and edit.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('issues', (t) => {
    t.string('ref', 255).notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('issues', (t) => {
    t.dropColumn('ref');
  });
}

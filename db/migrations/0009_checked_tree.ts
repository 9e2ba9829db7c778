// The tree of a clean mergeability check, next to the base and head it was computed for: a merge
// of exactly those commits commits that tree instead of merging again.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pull_requests', (t) => {
    t.string('checked_tree', 64).notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pull_requests', (t) => {
    t.dropColumn('checked_tree');
  });
}

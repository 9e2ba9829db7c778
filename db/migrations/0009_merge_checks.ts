// Two columns for the mergeability check: the tree of a clean check, next to the base and head it
// was computed for (a merge of exactly those commits commits that tree instead of merging again);
// and when a check was last asked for because the base moved (a burst of base moves asks each
// pull request's workflow once, not once per move).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pull_requests', (t) => {
    t.string('checked_tree', 64).notNullable().defaultTo('');
    t.bigInteger('recheck_requested_unix').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pull_requests', (t) => {
    t.dropColumn('checked_tree');
    t.dropColumn('recheck_requested_unix');
  });
}

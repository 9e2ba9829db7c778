// The merge journal: a merge writes its commit and operation id before it moves the base branch,
// so a retried activity finds out whether its earlier attempt already moved it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pull_requests', (t) => {
    t.string('merge_operation_id', 255).nullable();
    t.string('pending_merge_commit', 64).nullable();
    t.string('pending_merge_base', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pull_requests', (t) => {
    t.dropColumn('merge_operation_id');
    t.dropColumn('pending_merge_commit');
    t.dropColumn('pending_merge_base');
  });
}

// Pull requests by head commit: a commit status finds the pull requests whose head it reports on
// (and tells a known commit from one git must look up) without reading every pull request of the
// repository.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pull_requests', (t) => {
    t.index(['head_commit_id'], 'pull_requests_head_commit_id_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pull_requests', (t) => {
    t.dropIndex(['head_commit_id'], 'pull_requests_head_commit_id_index');
  });
}

// The licenses found in a repository's LICENSE file on its default branch (Gitea's repo_license
// rows), with the blob they were read from, so an unchanged file is not read again.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('repositories', (t) => {
    t.string('licenses', 1024).notNullable().defaultTo('[]');
    t.string('license_blob_id', 64).notNullable().defaultTo('');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('repositories', (t) => {
    t.dropColumn('license_blob_id');
    t.dropColumn('licenses');
  });
}

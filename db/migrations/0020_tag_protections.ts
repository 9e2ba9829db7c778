// Tag protection rules (Gitea's protected_tag table): a name pattern (a glob, or a regular
// expression between slashes) and the users and teams allowed to create or delete matching tags.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('protected_tags', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.string('name_pattern', 255).notNullable();
    // JSON arrays of ids, as Gitea keeps them: a renamed user or team stays on the list.
    t.text('allowlist_user_ids').notNullable();
    t.text('allowlist_team_ids').notNullable();
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.index(['repo_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('protected_tags');
}

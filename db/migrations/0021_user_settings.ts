// The settings a user edits through /user/settings that had no column yet (Gitea's language,
// theme, diff_view_style and keep_activity_private; full name, website, description, location and
// keep_email_private exist since 0001).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.string('language', 255).notNullable().defaultTo('');
    // Gitea gives every account the instance's default theme when it is made.
    t.string('theme', 255).notNullable().defaultTo('gitea-auto');
    t.string('diff_view_style', 255).notNullable().defaultTo('');
    t.boolean('keep_activity_private').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    for (const column of ['keep_activity_private', 'diff_view_style', 'theme', 'language']) t.dropColumn(column);
  });
}

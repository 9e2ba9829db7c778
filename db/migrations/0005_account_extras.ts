// Account columns that issue 3 needed beyond the first schema: an organization's
// repo_admin_change_team_access flag, a pending (unconfirmed) TOTP enrolment, and a team's units.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.boolean('repo_admin_change_team_access').notNullable().defaultTo(false);
    // Sealed like totp_secret; moves there once the user proves the authenticator app works.
    t.string('totp_pending_secret', 255).nullable();
  });
  await knex.schema.alterTable('teams', (t) => {
    // JSON object of unit key to access mode (Gitea's team_unit rows), e.g. {"repo.code":"write"}.
    t.string('units', 1024).notNullable().defaultTo('{}');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('teams', (t) => {
    t.dropColumn('units');
  });
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('totp_pending_secret');
    t.dropColumn('repo_admin_change_team_access');
  });
}

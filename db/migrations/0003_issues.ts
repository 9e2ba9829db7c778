// Issues (a pull request is an issue too), the per-repository index, labels, milestones,
// assignees, comments, dependencies and read marks.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('milestones', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.text('content').notNullable();
    t.boolean('is_closed').notNullable().defaultTo(false);
    t.integer('num_issues').notNullable().defaultTo(0);
    t.integer('num_closed_issues').notNullable().defaultTo(0);
    t.bigInteger('deadline_unix').nullable();
    t.bigInteger('closed_unix').nullable();
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.index(['repo_id', 'is_closed']);
  });

  await knex.schema.createTable('labels', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().nullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.bigInteger('org_id').unsigned().nullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('color', 7).notNullable();
    t.string('description', 255).notNullable().defaultTo('');
    t.boolean('exclusive').notNullable().defaultTo(false);
    t.boolean('is_archived').notNullable().defaultTo(false);
    t.bigInteger('created_unix').notNullable();
    t.index(['repo_id']);
    t.index(['org_id']);
  });

  // One row per repository: the last index handed out. Incremented under a row lock so that
  // concurrent creations get consecutive numbers with no gaps or duplicates.
  await knex.schema.createTable('issue_indexes', (t) => {
    t.bigInteger('repo_id').unsigned().primary().references('id').inTable('repositories').onDelete('CASCADE');
    t.bigInteger('max_index').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('issues', (t) => {
    t.bigIncrements('id');
    t.bigInteger('repo_id').unsigned().notNullable().references('id').inTable('repositories').onDelete('CASCADE');
    t.bigInteger('index').notNullable();
    t.bigInteger('poster_id').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL');
    t.string('title', 255).notNullable();
    t.text('content').notNullable();
    t.integer('content_version').notNullable().defaultTo(0);
    t.boolean('is_pull').notNullable().defaultTo(false);
    t.boolean('is_closed').notNullable().defaultTo(false);
    t.boolean('is_locked').notNullable().defaultTo(false);
    t.bigInteger('milestone_id').unsigned().nullable().references('id').inTable('milestones').onDelete('SET NULL');
    t.bigInteger('deadline_unix').nullable();
    t.integer('num_comments').notNullable().defaultTo(0);
    t.integer('priority').notNullable().defaultTo(0);
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.bigInteger('closed_unix').nullable();
    t.unique(['repo_id', 'index']);
    // The pull request list filters by repo, kind and state and orders by time or comments.
    t.index(['repo_id', 'is_pull', 'is_closed', 'created_unix'], 'issues_list_created');
    t.index(['repo_id', 'is_pull', 'is_closed', 'updated_unix'], 'issues_list_updated');
    t.index(['repo_id', 'is_pull', 'is_closed', 'num_comments'], 'issues_list_comments');
    t.index(['milestone_id']);
  });

  await knex.schema.createTable('issue_labels', (t) => {
    t.bigInteger('issue_id').unsigned().notNullable().references('id').inTable('issues').onDelete('CASCADE');
    t.bigInteger('label_id').unsigned().notNullable().references('id').inTable('labels').onDelete('CASCADE');
    t.primary(['issue_id', 'label_id']);
    t.index(['label_id']);
  });

  await knex.schema.createTable('issue_assignees', (t) => {
    t.bigInteger('issue_id').unsigned().notNullable().references('id').inTable('issues').onDelete('CASCADE');
    t.bigInteger('assignee_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.primary(['issue_id', 'assignee_id']);
    t.index(['assignee_id']);
  });

  await knex.schema.createTable('comments', (t) => {
    t.bigIncrements('id');
    t.bigInteger('issue_id').unsigned().notNullable().references('id').inTable('issues').onDelete('CASCADE');
    t.bigInteger('poster_id').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL');
    t.string('type', 40).notNullable().defaultTo('comment');
    t.text('content').notNullable();
    t.bigInteger('created_unix').notNullable();
    t.bigInteger('updated_unix').notNullable();
    t.index(['issue_id', 'created_unix']);
  });

  await knex.schema.createTable('issue_dependencies', (t) => {
    t.bigInteger('issue_id').unsigned().notNullable().references('id').inTable('issues').onDelete('CASCADE');
    t.bigInteger('dependency_id').unsigned().notNullable().references('id').inTable('issues').onDelete('CASCADE');
    t.bigInteger('created_unix').notNullable();
    t.primary(['issue_id', 'dependency_id']);
    t.index(['dependency_id']);
  });

  await knex.schema.createTable('issue_users', (t) => {
    t.bigInteger('issue_id').unsigned().notNullable().references('id').inTable('issues').onDelete('CASCADE');
    t.bigInteger('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.boolean('is_read').notNullable().defaultTo(false);
    t.boolean('is_mentioned').notNullable().defaultTo(false);
    t.primary(['issue_id', 'user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['issue_users', 'issue_dependencies', 'comments', 'issue_assignees', 'issue_labels', 'issues', 'issue_indexes', 'labels', 'milestones']) {
    await knex.schema.dropTableIfExists(table);
  }
}

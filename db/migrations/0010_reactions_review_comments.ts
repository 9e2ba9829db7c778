// Reactions on issues and comments; what review comments, label events and review requests keep
// on a comment row (Gitea keeps them in columns of its comment table too); team review requests.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reactions', (t) => {
    t.bigIncrements('id');
    t.string('type', 40).notNullable();
    t.bigInteger('issue_id').unsigned().notNullable().references('id').inTable('issues').onDelete('CASCADE');
    // 0 for a reaction on the issue itself: a NULL would let the unique key admit duplicates.
    t.bigInteger('comment_id').notNullable().defaultTo(0);
    t.bigInteger('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('created_unix').notNullable();
    t.unique(['issue_id', 'comment_id', 'type', 'user_id']);
    t.index(['comment_id']);
  });

  await knex.schema.alterTable('comments', (t) => {
    // A review's own comment row (type `review`), its code comments (`code`) and dismissals.
    t.bigInteger('review_id').nullable();
    // Code comments: the file, the line (negative on the old side, as Gitea stores it), the diff
    // hunk around it, the commit it was written against, who resolved the conversation.
    t.text('tree_path').nullable();
    t.bigInteger('line').notNullable().defaultTo(0);
    t.text('patch').nullable();
    t.string('commit_sha', 64).notNullable().defaultTo('');
    t.bigInteger('resolve_doer_id').nullable();
    t.boolean('invalidated').notNullable().defaultTo(false);
    // Label events (`label`: content '1' added, '' removed) and review requests (`review_request`).
    t.bigInteger('label_id').nullable();
    t.bigInteger('assignee_id').nullable();
    t.bigInteger('assignee_team_id').nullable();
    t.boolean('removed_assignee').notNullable().defaultTo(false);
    // Edits of a comment's body compare and swap on it, as Gitea's UpdateComment does.
    t.integer('content_version').notNullable().defaultTo(0);
    t.index(['review_id']);
  });

  await knex.schema.alterTable('reviews', (t) => {
    // A review request addressed to a team (type REQUEST_REVIEW, no reviewer).
    t.bigInteger('reviewer_team_id').nullable();
    t.index(['issue_id', 'reviewer_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reviews', (t) => {
    t.dropIndex(['issue_id', 'reviewer_id']);
    t.dropColumn('reviewer_team_id');
  });
  await knex.schema.alterTable('comments', (t) => {
    t.dropIndex(['review_id']);
    for (const c of ['review_id', 'tree_path', 'line', 'patch', 'commit_sha', 'resolve_doer_id', 'invalidated', 'label_id', 'assignee_id', 'assignee_team_id', 'removed_assignee', 'content_version']) t.dropColumn(c);
  });
  await knex.schema.dropTableIfExists('reactions');
}

// Wire schemas for reactions (Gitea's modules/structs/issue_reaction.go).
import Type from 'typebox';
import { User } from './user.js';

export const Reaction = Type.Object({
  user: User,
  content: Type.String({ description: 'the reaction: +1, -1, laugh, hooray, confused, heart, rocket or eyes' }),
  created_at: Type.String({ format: 'date-time' }),
}, { title: 'Reaction', description: 'Reaction contain one reaction' });

/** Gitea answers `null` rather than `[]` when there is no reaction. */
export const ReactionList = Type.Unsafe<unknown[] | null>({ type: 'array', items: Reaction, nullable: true, 'x-nullable': true });

export const EditReactionOption = Type.Object({
  content: Type.Optional(Type.String({ maxLength: 255, description: 'the reaction content' })),
}, { title: 'EditReactionOption', description: 'EditReactionOption contain the reaction type' });

// Per-document data handed to the markdown-it rules through markdown-it's `env` argument.
import type { MarkdownFlavour, RepoLinks, ResolvedIssue } from './types.js';

export type RenderEnv = {
  flavour: MarkdownFlavour;
  appUrl: string;
  /** Null when the Context names no repository: relative links are then left as written. */
  links: RepoLinks | null;
  mentionable: ReadonlySet<string>;
  issues: Readonly<Record<string, ResolvedIssue>>;
  /** The text as the client sent it, before markdown-it normalised its line endings. */
  originalText: string;
  /** How many more mentions and issue references may become links in this document. */
  referenceLinkBudget: { remaining: number };
  /** Scratch space of the wiki-link rule for the inline block being parsed (see wiki-links.ts). */
  wikiBrackets?: { src: string; nextClose: Int32Array; nextNewline: Int32Array };
};

/**
 * A document repeating one resolved reference hundreds of thousands of times would otherwise turn
 * each into a link, multiplying the output size; past this many, references stay text.
 */
export const MAX_REFERENCE_LINKS = 10000;

export function wikiSyntaxEnabled(env: RenderEnv): boolean {
  return env.flavour === 'wiki';
}

/** Mentions and `owner/repo#N` references: every flavour but raw markdown. */
export function repoReferencesEnabled(env: RenderEnv): boolean {
  return env.flavour !== 'raw';
}

/** Short `#N` references: comments and wiki pages, as Gitea allows them there. */
export function shortIssueReferencesEnabled(env: RenderEnv): boolean {
  return env.flavour === 'comment' || env.flavour === 'wiki';
}

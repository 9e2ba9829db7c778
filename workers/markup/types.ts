// The contract between the HTTP routes (main thread) and the rendering engine (pool worker).

/** Issue or pull request state as resolved by the caller from the database. */
export type ResolvedIssue = { exists: boolean; isPull: boolean };

export type RenderRequest = {
  /** Which endpoint family asked: `/markup` accepts `file`, `/markdown` does not. */
  kind: 'markup' | 'markdown';
  mode: string;
  text: string;
  /** `''`, `owner/repo`, `/owner/repo`, `{app_url}owner/repo` or `/owner/repo/src/<ref-type>/<ref>/<dir>`. */
  context: string;
  wiki: boolean;
  filePath: string;
  /** The instance's public URL; always ends with `/`. */
  appUrl: string;
  /** Lower-case user names that exist and may be mentioned. */
  mentionable: string[];
  /** Keys `owner/repo#N` with owner and repo lower-cased, resolved by the caller. */
  issues: Record<string, ResolvedIssue>;
};

export type RenderResult =
  | { ok: true; html: string }
  /** `message` is the exact plain-text response body, trailing newline included. */
  | { ok: false; status: 422; message: string };

/**
 * How a markdown document is processed once the mode has been resolved.
 * - `raw`: plain markdown, no repository post-processing (mode `markdown`, `/markdown/raw`).
 * - `comment`: soft line breaks become `<br>`, mentions and `#N` references.
 * - `document`: repository files (`gfm`, `file`): mentions and `owner/repo#N` references only.
 * - `wiki`: wiki pages: `[[...]]` links, links resolved under the wiki, mentions and `#N` references.
 */
export type MarkdownFlavour = 'raw' | 'comment' | 'document' | 'wiki';

/** Where relative links and images point, derived from the request's Context. */
export type RepoLinks = {
  owner: string;
  repo: string;
  /** `{app_url}owner/repo`, no trailing slash. */
  base: string;
  /** `branch/main`, `tag/v1.0`, `commit/<sha>`; empty when the Context names no ref. */
  refPath: string;
  /** Directory of the rendered file inside the ref; empty for the root. */
  treePath: string;
};

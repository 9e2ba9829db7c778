// Links `@user`, `#N` and `owner/repo#N` in text, and shortens links to this instance's issues.
//
// Runs over text tokens only, outside links: code spans and code blocks are other token types, so
// they are never touched. Only what the caller resolved is linked; anything else stays text.
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import { type RenderEnv, repoReferencesEnabled, shortIssueReferencesEnabled } from './markdown-env.js';
import { issueKey, type ReferenceMatch, scanReferences } from './reference-scan.js';

type TokenFactory = StateCore['Token'];

function linkTokens(Token: TokenFactory, href: string, label: string, className: string | null): Token[] {
  const open = new Token('link_open', 'a', 1);
  open.attrs = [['href', href]];
  if (className) open.attrs.push(['class', className]);
  open.meta = { generated: true };
  const text = new Token('text', '', 0);
  text.content = label;
  return [open, text, new Token('link_close', 'a', -1)];
}

/** The href a reference links to, or null when it was not resolved (or not allowed here). */
function referenceHref(env: RenderEnv, match: ReferenceMatch): { href: string; className: string | null } | null {
  if (match.kind === 'mention') {
    return env.mentionable.has(match.name.toLowerCase()) ? { href: env.appUrl + match.name, className: null } : null;
  }
  let owner = match.owner;
  let repo = match.repo;
  if (owner === null || repo === null) {
    if (!shortIssueReferencesEnabled(env) || !env.links) return null;
    owner = env.links.owner;
    repo = env.links.repo;
  }
  const key = issueKey(owner, repo, match.digits);
  if (!key || !Object.hasOwn(env.issues, key) || !env.issues[key]?.exists) return null;
  // As Gitea: the marker picks the path (`!` for pulls); Gitea's pages redirect between the two.
  const area = match.marker === '!' ? 'pulls' : 'issues';
  return { href: `${env.appUrl}${owner}/${repo}/${area}/${match.digits}`, className: 'ref-issue' };
}

/** Splits one text token around the references it holds; returns null when nothing was linked. */
function linkReferences(Token: TokenFactory, env: RenderEnv, token: Token): Token[] | null {
  const text = token.content;
  const pieces: Token[] = [];
  let copied = 0;
  scanReferences(text, false, (match) => {
    if (env.referenceLinkBudget.remaining <= 0) return false;
    const target = referenceHref(env, match);
    if (!target) return;
    env.referenceLinkBudget.remaining--;
    if (match.start > copied) {
      const before = new Token('text', '', 0);
      before.content = text.slice(copied, match.start);
      pieces.push(before);
    }
    pieces.push(...linkTokens(Token, target.href, text.slice(match.start, match.end), target.className));
    copied = match.end;
  });
  if (pieces.length === 0) return null;
  if (copied < text.length) {
    const after = new Token('text', '', 0);
    after.content = text.slice(copied);
    pieces.push(after);
  }
  return pieces;
}

/** What follows the instance URL in a link to an issue or pull request (or one of its comments). */
const ISSUE_PAGE = /^([\w.-]+)\/([\w.-]+)\/(?:issues|pulls)\/([1-9][0-9]{0,14})(?:#([\w-]+))?$/;

/** `{app_url}owner/repo/issues/N` written as a bare URL reads `#N` (or `owner/repo#N`), like Gitea. */
function shortenIssueUrl(env: RenderEnv, open: Token, text: Token | undefined): void {
  if (open.markup !== 'linkify' || !text || text.type !== 'text') return;
  const href = open.attrGet('href') ?? '';
  if (!href.startsWith(env.appUrl) || text.content !== href) return;
  const match = ISSUE_PAGE.exec(href.slice(env.appUrl.length));
  if (!match) return;
  const [, owner, repo, index, anchor] = match;
  const sameRepo = env.links && env.links.owner === owner && env.links.repo === repo;
  text.content = `${sameRepo ? '' : `${owner}/${repo}`}#${index}${anchor?.startsWith('issuecomment-') ? ' (comment)' : ''}`;
  open.attrSet('class', 'ref-issue');
}

/** Raw `<a ...>`, `<code>` and `<pre>` written in the source also shield their text, as in Gitea. */
function shieldDelta(html: string): number {
  if (/^<(a|code|pre)[\s>]/i.test(html)) return 1;
  if (/^<\/(a|code|pre)\s*>/i.test(html)) return -1;
  return 0;
}

function referenceLinksRule(state: StateCore): void {
  const env = state.env as RenderEnv;
  if (!repoReferencesEnabled(env)) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children = block.children;
    let output: Token[] | null = null;
    let linkDepth = 0;
    let shielded = 0;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      let replacement: Token[] | null = null;
      if (child.type === 'link_open') {
        if (linkDepth === 0) shortenIssueUrl(env, child, children[i + 1]);
        linkDepth++;
      } else if (child.type === 'link_close') {
        linkDepth = Math.max(0, linkDepth - 1);
      } else if (child.type === 'html_inline') {
        shielded = Math.max(0, shielded + shieldDelta(child.content));
      } else if (child.type === 'text' && linkDepth === 0 && shielded === 0) {
        replacement = linkReferences(state.Token, env, child);
      }
      if (replacement) {
        output ??= children.slice(0, i);
        for (const token of replacement) output.push(token);
      } else if (output) {
        output.push(child);
      }
    }
    if (output) block.children = output;
  }
}

export function referenceLinksPlugin(md: MarkdownIt): void {
  md.core.ruler.push('reference_links', referenceLinksRule);
}

// Which parts of a rendered document the sanitiser must parse: raw HTML written in the source, and
// nothing that markdown-it wrote itself.
//
// Why markdown-it's own output may skip the sanitiser:
// - it escapes every text node and attribute value it writes (`&`, `<`, `>`, `"`), so text can never
//   open a tag, close an attribute or start a comment;
// - its tag names come from its own rules (p, h1-h6, ul, ol, li, blockquote, pre, code, em, strong,
//   del, a, img, table parts, hr, br) and ours (input checkboxes), all in the sanitiser's allowlist;
// - every attribute it writes goes through `trustedAttributes` (sanitize.ts): the sanitiser's own
//   allowlist, URL scheme check, id prefixes and `rel`, applied to the token's values.
// Rules that write HTML must therefore build it from tokens and `renderAttrs`, never from strings
// holding user text. Raw HTML (`html_block`, `html_inline`) is the only way user markup reaches the
// output, and every top-level block holding some goes through sanitize-html as before.

import { randomBytes } from 'node:crypto';
import type MarkdownIt from 'markdown-it';
import type { Options, RendererRule, Token } from 'markdown-it';
import { sanitizeRenderedHtml, serialiseLikeGitea, trustedAttributes } from './sanitize.js';

/**
 * A rendered document: all of it markdown-it's own output, or the sanitiser's input (`skeleton`)
 * holding a placeholder element per trusted top-level block.
 */
export type RenderedMarkdown =
  | { rawHtml: false; html: string }
  | { rawHtml: true; skeleton: string; marker: string; blocks: TrustedBlock[] };

type TrustedBlock = { tag: string; html: string };

/**
 * Each attribute passes the sanitiser's rules; a link whose attributes all fail loses its tags but
 * keeps its text (the sanitiser's `exclusiveFilter`). Fenced code is written here rather than by
 * markdown-it's rule, which hands `renderAttrs` a token without a tag name.
 */
export function trustedOutputPlugin(md: MarkdownIt): void {
  const { escapeHtml, unescapeAll } = md.utils;
  md.renderer.renderAttrs = (token: Pick<Token, 'tag' | 'attrs'>) => (token.attrs ? trustedAttributes(token.tag, token.attrs) ?? '' : '');
  md.renderer.rules.link_open = (tokens, idx) => {
    const attributes = trustedAttributes('a', tokens[idx]!.attrs ?? []);
    if (attributes !== null) return `<a${attributes}>`;
    matchingLinkClose(tokens, idx).meta = { ...tokens[idx]!.meta, dropped: true };
    return '';
  };
  md.renderer.rules.link_close = (tokens, idx) => (tokens[idx]!.meta?.dropped ? '' : '</a>');
  const fence: RendererRule = (tokens, idx, _options, _env, self) => {
    const token = tokens[idx]!;
    const language = token.info ? unescapeAll(token.info).trim().split(/\s+/)[0]! : '';
    const code = { tag: 'code', attrs: language ? [['class', `language-${language}`] as [string, string]] : null };
    return `<pre><code${self.renderAttrs(code as Token)}>${escapeHtml(token.content)}</code></pre>\n`;
  };
  md.renderer.rules.fence = fence;
}

/** Links never nest in markdown-it's output, so the next `link_close` at the same depth is the one. */
function matchingLinkClose(tokens: Token[], open: number): Token {
  let depth = 0;
  for (let i = open + 1; i < tokens.length; i++) {
    if (tokens[i]!.type === 'link_open') depth++;
    else if (tokens[i]!.type === 'link_close' && depth-- === 0) return tokens[i]!;
  }
  throw new Error('link_open without link_close');
}

/** Top-level blocks that may stand for themselves in the sanitiser's input, by their outer element. */
function placeholderTag(token: Token): string | null {
  switch (token.type) {
    case 'paragraph_open': case 'heading_open': case 'bullet_list_open': case 'ordered_list_open':
    case 'blockquote_open': case 'table_open':
      return token.tag;
    case 'fence': case 'code_block':
      return 'pre';
    default:
      return null;
  }
}

function holdsRawHtml(tokens: Token[], start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const token = tokens[i]!;
    if (token.type === 'html_block' || token.type === 'html_inline') return true;
    if (token.children && holdsRawHtml(token.children, 0, token.children.length)) return true;
  }
  return false;
}

/** One past the last token of the top-level block starting at `start`. */
function blockEnd(tokens: Token[], start: number): number {
  if (tokens[start]!.nesting !== 1) return start + 1;
  let depth = 0;
  for (let i = start; i < tokens.length; i++) {
    depth += tokens[i]!.nesting;
    if (depth === 0) return i + 1;
  }
  return tokens.length;
}

/** markdown-it's Renderer.render over a range; rules still see the slice's tokens around them. */
function renderRange(md: MarkdownIt, tokens: Token[], start: number, end: number, options: Options, env: unknown): string {
  const { rules } = md.renderer;
  let html = '';
  for (let i = start; i < end; i++) {
    const token = tokens[i]!;
    const rule = rules[token.type];
    if (token.type === 'inline') html += md.renderer.renderInline(token.children ?? [], options, env);
    else if (rule) html += rule(tokens, i, options, env, md.renderer);
    else html += md.renderer.renderToken(tokens, i, options);
  }
  return html;
}

type RenderedBlock = { tag: string | null; html: string; rawHtml: boolean };

/**
 * Renders parsed markdown, one slice of top-level blocks at a time (block-chunks.ts). Without raw
 * HTML the result is final. With it, every top-level block free of raw HTML stands in the sanitiser's
 * input as `<tag>marker+n</tag>`: the same outer element, so raw elements left open around it are
 * closed (or not) exactly as around the real block, and a random marker the source cannot contain.
 */
export class TrustedBlockRenderer {
  private readonly rendered: RenderedBlock[] = [];
  private rawHtml = false;

  constructor(private readonly md: MarkdownIt, private readonly env: unknown) {}

  /** Renders complete top-level blocks; their tokens are not needed afterwards. */
  add(tokens: Token[]): void {
    for (let start = 0; start < tokens.length;) {
      const end = blockEnd(tokens, start);
      const rawHtml = holdsRawHtml(tokens, start, end);
      this.rawHtml ||= rawHtml;
      this.rendered.push({ tag: placeholderTag(tokens[start]!), html: renderRange(this.md, tokens, start, end, this.md.options, this.env), rawHtml });
      start = end;
    }
  }

  finish(): RenderedMarkdown {
    if (!this.rawHtml) return { rawHtml: false, html: this.rendered.map((block) => block.html).join('') };
    const marker = `trusted-${randomBytes(12).toString('hex')}-`;
    const blocks: TrustedBlock[] = [];
    let skeleton = '';
    for (const { tag, html, rawHtml } of this.rendered) {
      if (tag && !rawHtml) {
        skeleton += `<${tag}>${marker}${blocks.length}</${tag}>`;
        blocks.push({ tag, html });
      } else {
        skeleton += html;
      }
    }
    return { rawHtml: true, skeleton, marker, blocks };
  }
}

/** The rendered document as one string of unsanitised HTML, trusted blocks back in their places. */
export function joinBlocks(rendered: RenderedMarkdown): string {
  if (!rendered.rawHtml) return rendered.html;
  const { skeleton, marker, blocks } = rendered;
  return skeleton.replace(placeholderPattern(marker), (_m, _tag: string, index: string) => blocks[Number(index)]!.html);
}

function placeholderPattern(marker: string): RegExp {
  return new RegExp(`<([a-z0-9]+)>${marker}(\\d+)</\\1>`, 'g');
}

/**
 * The document's final HTML. The sanitiser parses the raw HTML and the placeholders; each trusted
 * block replaces its placeholder in the sanitised result. When a placeholder does not come back
 * exactly once and intact (swallowed by an unclosed comment, `<script>` or attribute, or nested past
 * the sanitiser's limit), the whole document is sanitised as one string instead, as it always was.
 */
export function sanitizeAroundTrustedBlocks(rendered: RenderedMarkdown): string {
  if (!rendered.rawHtml) return serialiseLikeGitea(rendered.html);
  const { marker, blocks } = rendered;
  const seen = new Uint8Array(blocks.length);
  let intact = true;
  const html = sanitizeRenderedHtml(rendered.skeleton).replace(placeholderPattern(marker), (whole, tag: string, index: string) => {
    const block = blocks[Number(index)];
    if (!block || block.tag !== tag || seen[Number(index)]) {
      intact = false;
      return whole;
    }
    seen[Number(index)] = 1;
    return serialiseLikeGitea(block.html);
  });
  if (intact && seen.every((one) => one === 1) && !html.includes(marker)) return html;
  return sanitizeRenderedHtml(joinBlocks(rendered));
}

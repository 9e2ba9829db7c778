// The markdown-it set-up: GitHub-flavoured markdown with Gitea's extensions, built once per worker.
import MarkdownIt from 'markdown-it';
import { type SlicedParser, slicedParser } from './block-chunks.js';
import type { StateCore } from 'markdown-it';
import type LinkifyIt from 'linkify-it';
import { headingIdsPlugin } from './heading-ids.js';
import { linkTargetsPlugin } from './link-targets.js';
import type { RenderEnv } from './markdown-env.js';
import { referenceLinksPlugin } from './reference-links.js';
import { taskListsPlugin } from './task-lists.js';
import { type RenderedMarkdown, TrustedBlockRenderer, trustedOutputPlugin } from './trusted-blocks.js';
import { wikiLinksPlugin } from './wiki-links.js';

/**
 * Deeper nesting (quotes in quotes, lists in lists, emphasis in links) is not parsed further. Keeps
 * the renderer's recursion and the HTML it produces bounded on hostile input.
 */
export const MAX_NESTING = 64;

/**
 * Autolinks as goldmark's linkify extension finds them: URLs with a scheme, `www.` hosts and e-mail
 * addresses, but not bare domain names such as `example.com` and not `//host` links. linkify-it's
 * own fuzzy matcher finds the `www.` hosts (a custom `www.` schema would rescan the rest of the text
 * at every occurrence); the bare domains it also finds are dropped here.
 */
function configureLinkify(linkify: LinkifyIt): void {
  linkify.add('//', null);
  const findLinks = linkify.match.bind(linkify);
  linkify.match = (text: string) => findLinks(text)?.filter((link) => link.schema !== '' || /^www\./i.test(link.raw)) ?? null;
}

/** GFM tables carry alignment as `align`, which the sanitizer keeps (it drops `style` there). */
function tableAlignmentRule(state: StateCore): void {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const style = token.attrGet('style');
    const align = style?.match(/^text-align:(left|right|center)$/)?.[1];
    if (!style) continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    if (align) token.attrSet('align', align);
  }
}

type Markdown = { md: MarkdownIt; parseInSlices: SlicedParser };

/** Exported for tests, which compare the sliced rendering with markdown-it's own over one token list. */
export function createMarkdown(breaks: boolean, html: boolean): Markdown {
  const md = new MarkdownIt('default', { html, linkify: true, breaks, xhtmlOut: true, typographer: false });
  // markdown-it reads maxNesting from its options; the type definitions leave it out.
  Object.assign(md.options, { maxNesting: MAX_NESTING });
  configureLinkify(md.linkify);
  // GFM strikethrough renders as <del>, as goldmark writes it.
  md.renderer.rules.s_open = () => '<del>';
  md.renderer.rules.s_close = () => '</del>';
  md.use(wikiLinksPlugin);
  md.use(taskListsPlugin);
  md.use(headingIdsPlugin);
  md.use(referenceLinksPlugin);
  md.use(linkTargetsPlugin);
  md.core.ruler.push('table_alignment', tableAlignmentRule);
  md.use(trustedOutputPlugin);
  return { md, parseInSlices: slicedParser(md) };
}

// Comments turn single line breaks into <br>; documents, wikis and raw markdown keep them soft.
// The variants without raw HTML serve documents whose HTML is too deeply nested to sanitise.
const renderers = {
  comment: { withHtml: createMarkdown(true, true), textOnly: createMarkdown(true, false) },
  document: { withHtml: createMarkdown(false, true), textOnly: createMarkdown(false, false) },
};

/**
 * Renders markdown; raw HTML in the result still needs the sanitiser (see trusted-blocks.ts). With
 * `allowRawHtml` false, HTML in the source shows as text.
 */
export function renderMarkdown(text: string, env: RenderEnv, allowRawHtml = true, shouldStop?: () => boolean): RenderedMarkdown {
  const pair = env.flavour === 'comment' ? renderers.comment : renderers.document;
  const { md, parseInSlices } = allowRawHtml ? pair.withHtml : pair.textOnly;
  const renderer = new TrustedBlockRenderer(md, env);
  parseInSlices(text, env, (tokens) => renderer.add(tokens), shouldStop);
  return renderer.finish();
}

// `[[page]]`, `[[label|page]]` and `[[path/image.png]]` wiki links, as a markdown-it inline rule.
import type MarkdownIt from 'markdown-it';
import type { StateInline } from 'markdown-it';
import { isFullUrl, resolveDocumentLink } from './context.js';
import { type RenderEnv, wikiSyntaxEnabled } from './markdown-env.js';

/** Longer bracket contents are left as text: wiki links are names, not documents. */
const MAX_WIKI_LINK_LENGTH = 1024;
const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.tif', '.tiff', '.webp', '.gif', '.bmp', '.ico', '.svg']);

/**
 * For each position of an inline source, where the next `]]` and the next line break start. Built
 * once per inline block that contains `[[` and kept in the document's env, so the rule answers in
 * constant time however many `[[` the block holds.
 */
function bracketIndexFor(env: RenderEnv, src: string): NonNullable<RenderEnv['wikiBrackets']> {
  if (env.wikiBrackets?.src === src) return env.wikiBrackets;
  const nextClose = new Int32Array(src.length + 1).fill(-1);
  const nextNewline = new Int32Array(src.length + 1).fill(-1);
  for (let i = src.length - 1; i >= 0; i--) {
    nextClose[i] = src.charCodeAt(i) === 0x5d && src.charCodeAt(i + 1) === 0x5d ? i : nextClose[i + 1]!;
    nextNewline[i] = src.charCodeAt(i) === 0x0a ? i : nextNewline[i + 1]!;
  }
  env.wikiBrackets = { src, nextClose, nextNewline };
  return env.wikiBrackets;
}

/** Go's url.PathEscape: everything but unreserved characters and `$&+,:;=@` is percent-encoded. */
function pathEscape(segment: string): string {
  return encodeURIComponent(segment)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%(24|26|2B|2C|3A|3B|3D|40)/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function extensionOf(link: string): string {
  const name = link.slice(link.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

function unquote(value: string): string {
  const pairs: Array<[string, string]> = [['"', '"'], ["'", "'"], ['“', '”'], ['‘', '’']];
  for (const [open, close] of pairs) {
    if (value.length > 1 && value.startsWith(open) && value.endsWith(close)) return value.slice(open.length, value.length - close.length);
  }
  return value;
}

type WikiTarget = { name: string; link: string; title: string; alt: string };

/** Splits `label|target|key=value` the way Gitea reads it (GitHub order, MediaWiki when obvious). */
function parseWikiTarget(content: string, tail: string): WikiTarget {
  const props: Record<string, string> = {};
  for (const part of content.split('|')) {
    const equals = part.indexOf('=');
    if (equals >= 0) {
      props[part.slice(0, equals)] = unquote(part.slice(equals + 1));
    } else if (!props.name) {
      if (isFullUrl(part)) {
        if (props.link) props.name = props.link;
        props.link = part.trim();
      } else {
        props.name = part;
      }
    } else {
      props.link = part.trim();
    }
  }
  const link = props.link || props.name || '';
  const name = (props.title || props.name || link) + tail;
  return { name, link, title: props.title ?? '', alt: props.alt ?? '' };
}

/** The link is final: later rules neither resolve it again nor scan its text for references. */
function pushLink(state: StateInline, href: string, source: string): void {
  const open = state.push('link_open', 'a', 1);
  open.attrs = [['href', href]];
  open.markup = 'wiki';
  open.meta = { generated: true, wikiSource: source };
}

function wikiLinkRule(state: StateInline, silent: boolean): boolean {
  const env = state.env as RenderEnv;
  const src = state.src;
  const start = state.pos;
  if (!wikiSyntaxEnabled(env) || src.charCodeAt(start) !== 0x5b || src.charCodeAt(start + 1) !== 0x5b) return false;
  const index = bracketIndexFor(env, src);
  const close = index.nextClose[start + 2]!;
  const newline = index.nextNewline[start + 2]!;
  if (close < 0 || (newline >= 0 && newline < close) || close === start + 2 || close - start > MAX_WIKI_LINK_LENGTH) return false;

  let end = close + 2;
  while (end < state.posMax && /\w/.test(src[end]!)) end++;
  const source = src.slice(start, end);
  const target = parseWikiTarget(src.slice(start + 2, close), src.slice(close + 2, end));
  if (target.link === '') return false;

  const image = IMAGE_EXTENSIONS.has(extensionOf(target.link));
  let link = target.link;
  if (!isFullUrl(link)) {
    link = link.replace(/ /g, image ? '+' : '-');
    link = link.includes('/') ? state.md.normalizeLink(link) : pathEscape(link);
    link = resolveDocumentLink(env.links, true, image ? 'media' : 'link', link);
  }
  if (!state.md.validateLink(link)) return false;

  if (!silent) {
    pushLink(state, link, source);
    if (image) {
      const img = state.push('wiki_image', 'img', 0);
      const lastSlash = target.name.replace(/\/+$/, '').lastIndexOf('/');
      const title = target.title || target.alt || target.name.replace(/\/+$/, '').slice(lastSlash + 1) || '.';
      const alt = target.alt || target.name;
      img.attrs = [['src', link], ['title', title]];
      if (alt) img.attrs.push(['alt', alt]);
    } else {
      const text = state.push('text', '', 0);
      text.content = target.name;
    }
    state.push('link_close', 'a', -1);
  }
  state.pos = end;
  return true;
}

export function wikiLinksPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('link', 'wiki_link', wikiLinkRule);
  md.renderer.rules.wiki_image = (tokens, idx, _options, _env, self) => `<img${self.renderAttrs(tokens[idx]!)} />`;
}

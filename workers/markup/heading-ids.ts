// Heading anchors: `## Title` gets `id="user-content-title"` with Gitea's slug rules.
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';

const ID_PREFIX = 'user-content-';
const CUSTOM_ID = /^[A-Za-z0-9_:.-]+$/;

/**
 * Gitea's slug: trimmed; letters and numbers (any script) lower-cased, `_` and `-` kept, each
 * whitespace character becomes `-` (runs are not collapsed), everything else dropped.
 */
export function headingSlug(text: string): string {
  return text
    .trim()
    .replace(/[^\p{L}\p{N}_\-\s]/gu, '')
    .replace(/\s/gu, '-')
    .toLowerCase();
}

/** The heading's text as goldmark reads it: text, code and image descriptions, without markup. */
function headingText(children: Token[]): string {
  let text = '';
  let skipUntilClose = false;
  for (const child of children) {
    if (skipUntilClose) {
      if (child.type === 'link_close') skipUntilClose = false;
      continue;
    }
    if (child.type === 'link_open' && typeof child.meta?.wikiSource === 'string') {
      text += child.meta.wikiSource as string;
      skipUntilClose = true;
    } else if (child.type === 'text' || child.type === 'code_inline') {
      text += child.content;
    } else if (child.type === 'image') {
      text += headingText(child.children ?? []);
    } else if (child.type === 'softbreak' || child.type === 'hardbreak') {
      text += '\n';
    }
  }
  return text;
}

/** Takes a trailing `{#id}` (goldmark's heading attribute) off the heading and returns the id. */
function takeCustomId(children: Token[]): string | null {
  const last = children[children.length - 1];
  if (!last || last.type !== 'text') return null;
  const content = last.content.trimEnd();
  if (!content.endsWith('}')) return null;
  const open = content.lastIndexOf('{#');
  const id = open < 0 ? '' : content.slice(open + 2, -1);
  if (!CUSTOM_ID.test(id)) return null;
  last.content = content.slice(0, open).trimEnd();
  return id;
}

/** Hands out ids, adding `-1`, `-2`... to repeats; counters keep many equal headings linear. */
class HeadingIds {
  private readonly used = new Set<string>();
  private readonly nextSuffix = new Map<string, number>();

  claim(slug: string): string {
    const id = slug.startsWith(ID_PREFIX) ? slug : ID_PREFIX + slug;
    if (!this.used.has(id)) {
      this.used.add(id);
      return id;
    }
    let suffix = this.nextSuffix.get(id) ?? 1;
    while (this.used.has(`${id}-${suffix}`)) suffix++;
    this.nextSuffix.set(id, suffix + 1);
    const unique = `${id}-${suffix}`;
    this.used.add(unique);
    return unique;
  }
}

/** One set per document: the rule runs once per slice of blocks (block-chunks.ts), all sharing `env`. */
const idsByDocument = new WeakMap<object, HeadingIds>();

function headingIdRule(state: StateCore): void {
  let ids = idsByDocument.get(state.env);
  if (!ids) idsByDocument.set(state.env, (ids = new HeadingIds()));
  const tokens = state.tokens;
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (tokens[i]!.type !== 'heading_open') continue;
    const children = tokens[i + 1]!.children ?? [];
    const slug = takeCustomId(children) ?? headingSlug(headingText(children));
    tokens[i]!.attrSet('id', ids.claim(slug || 'heading'));
  }
}

export function headingIdsPlugin(md: MarkdownIt): void {
  md.core.ruler.push('heading_ids', headingIdRule);
}

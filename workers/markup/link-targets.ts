// Makes relative links and images absolute under the Context's repository, and wraps each image
// that is not already inside a link in a link to itself, as Gitea does (`target="_blank"`).
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import { resolveDocumentLink } from './context.js';
import type { RenderEnv } from './markdown-env.js';

function resolveAttribute(token: Token, name: string, env: RenderEnv, kind: 'link' | 'media'): void {
  const value = token.attrGet(name);
  if (value) token.attrSet(name, resolveDocumentLink(env.links, env.flavour === 'wiki', kind, value));
}

function imageWrapper(Token: StateCore['Token'], image: Token): [Token, Token] {
  const open = new Token('link_open', 'a', 1);
  open.attrs = [['href', image.attrGet('src') ?? '']];
  const title = image.attrGet('title');
  if (title) open.attrs.push(['title', title]);
  open.attrs.push(['target', '_blank']);
  open.meta = { generated: true };
  return [open, new Token('link_close', 'a', -1)];
}

function linkTargetsRule(state: StateCore): void {
  const env = state.env as RenderEnv;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children = block.children;
    let output: Token[] | null = null;
    let linkDepth = 0;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      if (child.type === 'link_open') {
        linkDepth++;
        if (!child.meta?.generated) resolveAttribute(child, 'href', env, 'link');
      } else if (child.type === 'link_close') {
        linkDepth = Math.max(0, linkDepth - 1);
      } else if (child.type === 'image') {
        resolveAttribute(child, 'src', env, 'media');
        if (linkDepth === 0) {
          const [open, close] = imageWrapper(state.Token, child);
          output ??= children.slice(0, i);
          output.push(open, child, close);
          continue;
        }
      }
      output?.push(child);
    }
    if (output) block.children = output;
  }
}

export function linkTargetsPlugin(md: MarkdownIt): void {
  md.core.ruler.push('link_targets', linkTargetsRule);
}

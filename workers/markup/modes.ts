// Which renderer and markdown flavour a request gets, or the 422 it earns, following Gitea's rules.
import type { MarkdownFlavour, RenderRequest } from './types.js';

/** Gitea's `[markdown] FILE_EXTENSIONS` default. */
export const MARKDOWN_EXTENSIONS = new Set(['.md', '.markdown', '.mdown', '.mkd', '.livemd']);
export const CSV_EXTENSIONS = new Set(['.csv', '.tsv']);

const MODES_BY_KIND: Record<RenderRequest['kind'], ReadonlySet<string>> = {
  markup: new Set(['', 'markdown', 'gfm', 'comment', 'wiki', 'file']),
  markdown: new Set(['', 'markdown', 'gfm', 'comment', 'wiki']),
};

export type RenderPlan =
  | { renderer: 'markdown'; flavour: MarkdownFlavour }
  | { renderer: 'csv' }
  | { renderer: 'none'; message: string };

/** Go's filepath.Ext: from the last dot of the last path element, lower-cased; empty without one. */
export function extensionOf(filePath: string): string {
  const name = filePath.slice(filePath.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot).toLowerCase();
}

function documentFlavour(mode: string, wiki: boolean): MarkdownFlavour {
  if (mode === 'markdown') return 'raw';
  if (wiki || mode === 'wiki') return 'wiki';
  if (mode === '') return 'raw';
  return mode === 'comment' ? 'comment' : 'document';
}

/**
 * Unknown modes and unsupported file extensions are refused first, whatever the text; then `Wiki`
 * forces wiki rendering for every mode except `markdown`, which keeps `[[...]]` literal.
 */
export function planRender(request: Pick<RenderRequest, 'kind' | 'mode' | 'wiki' | 'filePath'>): RenderPlan {
  const { kind, mode, wiki, filePath } = request;
  if (!MODES_BY_KIND[kind]?.has(mode)) return { renderer: 'none', message: `Unknown mode: ${mode}\n` };
  if (mode !== 'file') return { renderer: 'markdown', flavour: documentFlavour(mode, wiki) };
  const extension = extensionOf(filePath);
  if (CSV_EXTENSIONS.has(extension)) return { renderer: 'csv' };
  if (MARKDOWN_EXTENSIONS.has(extension)) return { renderer: 'markdown', flavour: wiki ? 'wiki' : 'document' };
  return { renderer: 'none', message: `Unsupported render extension: ${extension}\n` };
}

// Entry point of the rendering engine: a pure, synchronous function the pool's worker threads call.
import { repoLinksFor } from './context.js';
import { renderCsv } from './csv.js';
import { renderMarkdown } from './markdown.js';
import { planRender } from './modes.js';
import { sanitizeRenderedHtml } from './sanitize.js';
import type { RenderRequest, RenderResult } from './types.js';

export type { RenderRequest, RenderResult } from './types.js';

/**
 * Renders `/markup`, `/markdown` and `/markdown/raw` bodies to sanitised HTML (the raw endpoint is
 * kind `markdown`, mode `markdown`). Never throws on user input: an unknown mode or an unsupported
 * file extension gives the 422 plain-text body Gitea sends.
 */
export function renderDocument(request: RenderRequest): RenderResult {
  const plan = planRender(request);
  if (plan.renderer === 'none') return { ok: false, status: 422, message: plan.message };
  if (request.text === '') return { ok: true, html: '' };

  const links = repoLinksFor(request.context, request.appUrl, request.filePath);
  if (plan.renderer === 'csv') {
    return { ok: true, html: sanitizeRenderedHtml(renderCsv(request.text, request.filePath, links)) };
  }
  const html = renderMarkdown(request.text, {
    flavour: plan.flavour,
    appUrl: request.appUrl,
    links,
    mentionable: new Set(request.mentionable.map((name) => name.toLowerCase())),
    issues: request.issues,
    originalText: request.text,
  });
  return { ok: true, html: sanitizeRenderedHtml(html) };
}

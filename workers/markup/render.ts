// Entry point of the rendering engine: a pure, synchronous function the pool's worker threads call.
import { repoLinksFor } from './context.js';
import { renderCsv } from './csv.js';
import { RenderStopped } from './block-chunks.js';
import { renderMarkdown } from './markdown.js';
import { MAX_REFERENCE_LINKS, type RenderEnv } from './markdown-env.js';
import { planRender } from './modes.js';
import { nestsDeeperThan } from './nesting-guard.js';
import { sanitizeRenderedHtml } from './sanitize.js';
import { sanitizeAroundTrustedBlocks } from './trusted-blocks.js';
import type { RenderRequest, RenderResult } from './types.js';

export type { RenderRequest, RenderResult } from './types.js';

/**
 * Raw HTML in the source nested deeper than this (counted in what the sanitiser parses: raw HTML and
 * one placeholder per trusted block) is shown as text rather than fed to the sanitiser in quadratic time.
 */
const MAX_HTML_DEPTH = 512;

/**
 * Renders `/markup`, `/markdown` and `/markdown/raw` bodies to sanitised HTML (the raw endpoint is
 * kind `markdown`, mode `markdown`). Never throws on user input: an unknown mode or an unsupported
 * file extension gives the 422 plain-text body Gitea sends; empty text renders nothing in any mode.
 * Throws RenderStopped, between slices of a markdown document, once `shouldStop` answers true.
 */
export function renderDocument(request: RenderRequest, shouldStop?: () => boolean): RenderResult {
  // Empty text is an empty 200 whatever the mode, as the spec states it and Gitea 1.2x answers.
  if (request.text === '') return { ok: true, html: '' };
  const plan = planRender(request);
  if (plan.renderer === 'none') return { ok: false, status: 422, message: plan.message };

  const appUrl = request.appUrl.endsWith('/') ? request.appUrl : request.appUrl + '/';
  const links = repoLinksFor(request.context, appUrl, request.filePath);
  if (plan.renderer === 'csv') {
    return { ok: true, html: sanitizeRenderedHtml(renderCsv(request.text, request.filePath, links)) };
  }
  const mentionable = new Set(request.mentionable.map((name) => name.toLowerCase()));
  const environment = (): RenderEnv => ({
    flavour: plan.flavour,
    appUrl,
    links,
    mentionable,
    issues: request.issues,
    originalText: request.text,
    referenceLinkBudget: { remaining: MAX_REFERENCE_LINKS },
  });
  let rendered = renderMarkdown(request.text, environment(), true, shouldStop);
  if (rendered.rawHtml && nestsDeeperThan(rendered.skeleton, MAX_HTML_DEPTH)) {
    rendered = renderMarkdown(request.text, environment(), false, shouldStop);
  }
  if (rendered.rawHtml && shouldStop?.()) throw new RenderStopped();
  return { ok: true, html: sanitizeAroundTrustedBlocks(rendered) };
}

// POST /markup, /markdown and /markdown/raw: the route resolves references in bulk, the pool renders.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { extractReferenceCandidates, type ReferenceCandidates } from '../../workers/markup/references.js';

const INLINE_SCAN_LIMIT = 4 * 1024;
import type { RenderRequest, RenderResult } from '../../workers/markup/types.js';
import { resolveReferences } from '../../core/reference-resolution.js';

const MarkupOption = Type.Object({
  Text: Type.Optional(Type.String({ description: 'Text to render' })),
  Mode: Type.Optional(Type.String({ description: 'Mode to render (markdown, comment, wiki, file)' })),
  Context: Type.Optional(Type.String({ maxLength: 2048, description: 'URL path for rendering issue, media and file links, e.g. /owner/repo or owner/repo' })),
  Wiki: Type.Optional(Type.Boolean({ description: 'Is it a wiki page? (deprecated)' })),
  FilePath: Type.Optional(Type.String({ maxLength: 4096, description: 'File path for detecting extension in file mode' })),
});

const MarkdownOption = Type.Omit(MarkupOption, ['FilePath']);

const HtmlResponse = { 200: Type.String({ description: 'HTML fragment' }), 422: Type.String({ description: 'plain text error, ending in a newline' }) };

/** Aborts the render when the client goes away, so no worker keeps working for nobody. */
function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  // One listener per response (not per keep-alive socket): it fires when the response ends or the
  // connection drops first.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

export async function markupRoutes(app: FastifyInstance): Promise<void> {
  const { config, db, pool } = app.services;

  async function render(request: FastifyRequest, reply: FastifyReply, input: Omit<RenderRequest, 'mentionable' | 'issues' | 'appUrl'>) {
    if (input.text === '') return reply.code(200).type('text/html; charset=utf-8').send('');
    const signal = disconnectSignal(reply);
    // Small documents are scanned inline (a pool round trip costs more); large ones in the pool, so
    // the event loop never spends milliseconds on one request's text.
    const candidates = input.text.length <= INLINE_SCAN_LIMIT
      ? extractReferenceCandidates(input.text, input.context, 1000, config.APP_URL)
      : await pool.run<ReferenceCandidates>({ kind: 'scanReferences', text: input.text, context: input.context, limit: 1000, appUrl: config.APP_URL }, signal);
    const resolved = await resolveReferences(db, request.doer ?? null, candidates);
    const result = await pool.run<RenderResult>(
      { kind: 'render', request: { ...input, appUrl: config.APP_URL, mentionable: resolved.mentionable, issues: resolved.issues } },
      signal,
    );
    if (!result.ok) return reply.code(result.status).type('text/plain; charset=utf-8').send(result.message);
    return reply.code(200).type('text/html; charset=utf-8').send(result.html);
  }

  app.post('/api/v1/markup', {
    bodyLimit: config.MARKUP_BODY_LIMIT,
    config: { scope: 'misc' },
    schema: {
      tags: ['miscellaneous'],
      summary: 'Render a markup document as HTML',
      description: 'Modes gfm, comment and file (by the extension of FilePath; markdown extensions and .csv/.tsv). Errors are text/plain with a trailing newline: 422 `Unknown mode: <mode>` and `Unsupported render extension: .<ext>`.',
      body: MarkupOption,
      response: HtmlResponse,
    },
  }, async (request, reply) => {
    const b = request.body as Static<typeof MarkupOption>;
    return render(request, reply, { kind: 'markup', mode: b.Mode ?? '', text: b.Text ?? '', context: b.Context ?? '', wiki: b.Wiki ?? false, filePath: b.FilePath ?? '' });
  });

  app.post('/api/v1/markdown', {
    bodyLimit: config.MARKUP_BODY_LIMIT,
    config: { scope: 'misc' },
    schema: {
      tags: ['miscellaneous'],
      summary: 'Render a markdown document as HTML',
      description: 'Modes gfm, comment and markdown (plain markdown: wiki syntax stays literal). Empty Text gives an empty 200.',
      body: MarkdownOption,
      response: HtmlResponse,
    },
  }, async (request, reply) => {
    const b = request.body as Static<typeof MarkdownOption>;
    return render(request, reply, { kind: 'markdown', mode: b.Mode ?? '', text: b.Text ?? '', context: b.Context ?? '', wiki: b.Wiki ?? false, filePath: '' });
  });

  // The raw body is markdown whatever its content type says, as in Gitea.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'string', bodyLimit: config.MARKUP_BODY_LIMIT }, (_req, body, done) => done(null, body));
    raw.post('/api/v1/markdown/raw', {
      config: { scope: 'misc' },
      schema: {
        tags: ['miscellaneous'],
        summary: 'Render raw markdown as HTML',
        description: 'The request body is the markdown text (any content type); rendered as mode `markdown`.',
        consumes: ['text/plain'],
        body: Type.String(),
        response: HtmlResponse,
      },
    }, async (request, reply) => {
      const text = typeof request.body === 'string' ? request.body : '';
      return render(request, reply, { kind: 'markdown', mode: 'markdown', text, context: '', wiki: false, filePath: '' });
    });
  });
}

// POST /markup, /markdown and /markdown/raw: the route resolves references in bulk, the pool renders.
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { extractReferenceCandidates, type ReferenceCandidates } from '../../workers/markup/references.js';
import type { RenderRequest, RenderResult } from '../../workers/markup/types.js';
import { renderDocument } from '../../workers/markup/render.js';
import type { ParsedJson, RenderedBody } from '../../workers/pool-tasks.js';
import { resolveReferences } from '../../core/reference-resolution.js';
import { goJsonParser, malformedJsonBody } from '../plugins/decoding.js';
import { admitLargeBodies, holdSlotDuring } from '../body-admission.js';
import { ServiceError } from '../../core/errors.js';

const INLINE_SCAN_LIMIT = 4 * 1024;
/**
 * JSON bodies larger than this are parsed in the pool, and the parsed bodies come back as fast as
 * the pool gets through them. Parsed on the event loop, 64 connections sending 500 KB documents at
 * once meant 64 parses of about 2 ms each, all due in the same turn of the loop. Bodies larger than
 * this are also read only a few at a time (body-admission.ts).
 */
const INLINE_JSON_LIMIT = 64 * 1024;
/**
 * Documents up to this size may be rendered on the event loop when every pool thread is busy (a
 * quarter of a millisecond for 2 KB): the main thread otherwise idles while requests wait for a
 * thread, and the round trip costs a small document about as much as its rendering. Larger ones
 * always go to the pool.
 */
const INLINE_RENDER_LIMIT = 4 * 1024;
/**
 * At most one document per turn of the event loop is rendered on it. The event loop also does the
 * HTTP, JSON and reference work of every request: rendering all it could (2 ms a turn, before)
 * made it the bottleneck under a stream of small documents with most of a core to spare, and
 * letting it render at most a share of its time (rendering in bursts) did no better. Measured for
 * 2 KB at 8 connections in bench/HISTORY.md, stop 49.
 */
let renderedInlineThisTurn = false;
/**
 * A small document waits for a pool thread only when little work is ahead of it there (input bytes
 * per thread, about 15 ms of rendering): behind large documents (a 500 KB one renders for 50 ms and
 * more) it waits for a later turn of the event loop instead. 2 KB documents from 64 connections stay
 * under it, so a stream of small documents alone is shared as before.
 */
const SHORT_POOL_BACKLOG_PER_THREAD = 64 * 1024;
/** Small documents waiting for a turn to render in; beyond POOL_MAX_QUEUE they queue in the pool. */
let waitingForTurn = 0;

function renderInline(request: RenderRequest): RenderResult {
  renderedInlineThisTurn = true;
  setImmediate(() => { renderedInlineThisTurn = false; });
  return renderDocument(request);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const MarkupOption = Type.Object({
  Text: Type.Optional(Type.String({ description: 'Text to render' })),
  Mode: Type.Optional(Type.String({ description: 'Mode to render (markdown, comment, wiki, file)' })),
  Context: Type.Optional(Type.String({ maxLength: 2048, description: 'URL path for rendering issue, media and file links, e.g. /owner/repo or owner/repo' })),
  Wiki: Type.Optional(Type.Boolean({ description: 'Is it a wiki page? (deprecated)' })),
  FilePath: Type.Optional(Type.String({ maxLength: 4096, description: 'File path for detecting extension in file mode' })),
}, { title: 'MarkupOption' });

const MarkdownOption = Type.Omit(MarkupOption, ['FilePath'], { title: 'MarkdownOption' });

const HtmlResponse = { 200: Type.String({ description: 'HTML fragment' }), 422: Type.String({ description: 'plain text error, ending in a newline' }) };

/** The JSON-bodied rendering routes. */
const JSON_ROUTES = [
  {
    url: '/api/v1/markup', kind: 'markup', body: MarkupOption, operationId: 'renderMarkup',
    summary: 'Render a markup document as HTML',
    description: 'Modes gfm, comment and file (by the extension of FilePath; markdown extensions and .csv/.tsv). Errors are text/plain with a trailing newline: 422 `Unknown mode: <mode>` and `Unsupported render extension: .<ext>`.',
  },
  {
    url: '/api/v1/markdown', kind: 'markdown', body: MarkdownOption, operationId: 'renderMarkdown',
    summary: 'Render a markdown document as HTML',
    description: 'Modes gfm, comment and markdown (plain markdown: wiki syntax stays literal). Empty Text gives an empty 200.',
  },
] as const;

/** Aborts the render when the client goes away, so no worker keeps working for nobody. */
function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  // A client that left while its body waited unread (body-admission.ts) is seen only once it is read.
  if (reply.raw.destroyed) controller.abort();
  // One listener per response (not per keep-alive socket): it fires when the response ends or the
  // connection drops first.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

export async function markupRoutes(app: FastifyInstance): Promise<void> {
  const { config, db, pool } = app.services;
  // Two large documents per pool thread: one rendering, the next read and scanned meanwhile.
  admitLargeBodies(app, {
    largeBytes: INLINE_JSON_LIMIT, slots: 2 * config.POOL_MAX_THREADS, maxWaiting: config.POOL_MAX_QUEUE,
    minBytesPerSecond: 64 * 1024, graceMs: 5_000, bodyLimit: config.MARKUP_BODY_LIMIT,
  });

  type RenderInput = Omit<RenderRequest, 'mentionable' | 'issues' | 'appUrl'>;

  /** Renders the request's document; a large body's admission slot is kept until this ends. */
  function render(request: FastifyRequest, reply: FastifyReply, input: RenderInput) {
    return holdSlotDuring(request, () => renderHeld(request, reply, input));
  }

  /**
   * Renders a small document on the event loop when that is its quickest way to an answer, or
   * answers null for the pool: the pool when a thread is free; here when every thread is busy (or
   * none has started) and no document was rendered here this turn; otherwise the pool if little work
   * is ahead there, or else here in a later turn.
   */
  async function renderSmallHere(renderRequest: RenderRequest, signal: AbortSignal): Promise<RenderResult | null> {
    for (;;) {
      const noThreadYet = pool.threadCount() === 0;
      if (!noThreadYet && !pool.saturated()) return null;
      if (!renderedInlineThisTurn) return renderInline(renderRequest);
      if (pool.backlogBytes() <= SHORT_POOL_BACKLOG_PER_THREAD * config.POOL_MAX_THREADS || waitingForTurn >= config.POOL_MAX_QUEUE) return null;
      waitingForTurn++;
      try {
        await nextTurn();
      } finally {
        waitingForTurn--;
      }
      if (signal.aborted) throw new ServiceError(499, 'client closed request');
    }
  }

  async function renderHeld(request: FastifyRequest, reply: FastifyReply, input: RenderInput) {
    if (input.text === '') return reply.code(200).type('text/html; charset=utf-8').send('');
    const signal = disconnectSignal(reply);
    // Small documents are scanned inline (a pool round trip costs more); large ones in the pool, so
    // the event loop never spends milliseconds on one request's text.
    const candidates = input.text.length <= INLINE_SCAN_LIMIT
      ? extractReferenceCandidates(input.text, input.context, 1000, config.APP_URL)
      : await pool.run<ReferenceCandidates>({ kind: 'scanReferences', text: input.text, context: input.context, limit: 1000, appUrl: config.APP_URL }, signal);
    const resolved = await resolveReferences(db, request.doer ?? null, candidates);
    const renderRequest: RenderRequest = { ...input, appUrl: config.APP_URL, mentionable: resolved.mentionable, issues: resolved.issues };
    const inline = input.text.length <= INLINE_RENDER_LIMIT ? await renderSmallHere(renderRequest, signal) : null;
    if (inline) {
      if (!inline.ok) return reply.code(inline.status).type('text/plain; charset=utf-8').send(inline.message);
      return reply.code(200).type('text/html; charset=utf-8').send(inline.html);
    }
    const result = await pool.run<RenderedBody>({ kind: 'render', request: renderRequest }, signal);
    if (!result.ok) return reply.code(result.status).type('text/plain; charset=utf-8').send(result.message);
    return reply.code(200).type('text/html; charset=utf-8').send(Buffer.from(result.html.buffer, result.html.byteOffset, result.html.byteLength));
  }

  const parseJsonInline = goJsonParser(app.getDefaultJsonParser('error', 'error') as never);
  async function parseJsonBody(request: FastifyRequest, body: Buffer): Promise<unknown> {
    if (body.length <= INLINE_JSON_LIMIT || body.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d)) {
      return new Promise((resolve, reject) => {
        parseJsonInline(request, body.toString('utf8'), (err, value) => (err ? reject(err) : resolve(value)));
      });
    }
    const parsed = await holdSlotDuring(request, () => pool.run<ParsedJson>({ kind: 'parseJson', body }));
    if (!parsed.ok) throw malformedJsonBody(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
    return parsed.value;
  }

  await app.register(async (json) => {
    json.removeContentTypeParser('application/json');
    json.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: config.MARKUP_BODY_LIMIT }, parseJsonBody);
    registerJsonRoutes(json);
  });

  function registerJsonRoutes(routes: FastifyInstance): void {
    for (const route of JSON_ROUTES) {
      routes.post(route.url, {
        bodyLimit: config.MARKUP_BODY_LIMIT,
        config: { scope: 'misc' },
        schema: { operationId: route.operationId, tags: ['miscellaneous'], summary: route.summary, description: route.description, body: route.body, response: HtmlResponse },
      }, async (request, reply) => {
        const b = request.body as Static<typeof MarkupOption>;
        // FilePath is a /markup field only.
        const filePath = route.kind === 'markup' ? b.FilePath ?? '' : '';
        return render(request, reply, { kind: route.kind, mode: b.Mode ?? '', text: b.Text ?? '', context: b.Context ?? '', wiki: b.Wiki ?? false, filePath });
      });
    }
  }

  // The raw body is markdown whatever its content type says, as in Gitea.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'string', bodyLimit: config.MARKUP_BODY_LIMIT }, (_req, body, done) => done(null, body));
    raw.post('/api/v1/markdown/raw', {
      config: { scope: 'misc' },
      schema: {
        operationId: 'renderMarkdownRaw',
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

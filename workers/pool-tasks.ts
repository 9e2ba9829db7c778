// Runs inside the pool's worker threads: one entry point dispatching on the task kind.
import { isMainThread, threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { RenderStopped } from './markup/block-chunks.js';
import { renderDocument } from './markup/render.js';
import { extractReferenceCandidates, type ReferenceCandidates } from './markup/references.js';
import type { RenderRequest, RenderResult } from './markup/types.js';
// The parser alone: diff-parse has no Node imports, so the threads do not load the git runner.
import { parseUnifiedDiff } from '../git/diff-parse.js';
import { lowerThisThreadPriority } from './thread-priority.js';

// Loaded once per pool thread, when the thread starts (see thread-priority.ts for why).
if (!isMainThread) lowerThisThreadPriority();

export type PoolTask =
  /** `stop`: set to 1 by the main thread when the client leaves (a SharedArrayBuffer cell; pool.ts). */
  | { kind: 'render'; request: RenderRequest; stop?: Int32Array }
  | { kind: 'scanReferences'; text: string; context: string; limit: number; appUrl: string }
  | { kind: 'parseDiff'; text: string; maxLines: number; maxLineCharacters: number }
  | { kind: 'parseJson'; body: Uint8Array }
  /** Submitted so that Piscina starts a thread for the tasks waiting in its queue (pool.ts); answers the thread's id. */
  | { kind: 'wake' };

/** A JSON request body parsed in the pool; `ok` false when it is not JSON or sets a prototype. */
export type ParsedJson = { ok: true; value: unknown } | { ok: false };

/** A render task's answer: the HTML as UTF-8 bytes, ready to send, or the 422 to give. */
export type RenderedBody = { ok: true; html: Uint8Array } | Extract<RenderResult, { ok: false }>;

export type PoolTaskResult<K extends PoolTask['kind']> =
  K extends 'render' ? RenderedBody : K extends 'scanReferences' ? ReferenceCandidates : K extends 'parseJson' ? ParsedJson
    : K extends 'wake' ? number : ReturnType<typeof parseUnifiedDiff>;

const utf8 = new TextEncoder();

/**
 * The HTML is encoded here and its buffer moved to the main thread, not copied: a string answer
 * (1.5 MB for a 500 KB document) would be copied into the main thread's heap and encoded again
 * there when written to the socket, both on the event loop. TextEncoder gives the bytes a buffer of
 * their own (Buffer.from may hand out a slice of a shared pool, which cannot be moved).
 */
function movedToMainThread(result: RenderResult): unknown {
  if (!result.ok) return result;
  const html = utf8.encode(result.html);
  const body: RenderedBody = { ok: true, html };
  // Piscina moves what `move` marks: `body` goes by copy, except for the buffer listed for transfer.
  return move({ [transferableSymbol]: [html.buffer], [valueSymbol]: body } as unknown as Parameters<typeof move>[0]);
}

/** Rejects what Fastify's JSON parser (secure-json-parse) rejects: keys that would set a prototype. */
function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && 'prototype' in value)) {
    throw new SyntaxError('Object contains forbidden prototype property');
  }
  return value;
}

function parseJsonBody(body: Uint8Array): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(new TextDecoder().decode(body), refusePrototypeKeys) };
  } catch {
    return { ok: false };
  }
}

/** The render, or null when its client left first (checked between slices of the document). */
function renderUnlessStopped(task: Extract<PoolTask, { kind: 'render' }>): unknown {
  const stop = task.stop;
  if (stop && Atomics.load(stop, 0) === 1) return null;
  try {
    return movedToMainThread(renderDocument(task.request, stop ? () => Atomics.load(stop, 0) === 1 : undefined));
  } catch (err) {
    if (err instanceof RenderStopped) return null;
    throw err;
  }
}

export default function runTask(task: PoolTask): unknown {
  switch (task.kind) {
    case 'render':
      return renderUnlessStopped(task);
    case 'scanReferences':
      return extractReferenceCandidates(task.text, task.context, task.limit, task.appUrl);
    case 'parseJson':
      return parseJsonBody(task.body);
    case 'wake':
      return threadId;
    case 'parseDiff':
      return parseUnifiedDiff(task.text, { maxLines: task.maxLines, maxLineCharacters: task.maxLineCharacters });
    default:
      throw new Error(`unknown pool task ${(task as { kind: string }).kind}`);
  }
}

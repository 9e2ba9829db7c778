// Large request bodies are read a few at a time. Sixty-four clients posting 500 KB markdown documents
// at once otherwise had all 64 bodies read at once (their chunks and the joined copy: about 80 MiB of
// the service's peak), while two pool threads rendered two of them. Waiting bodies stay unread in the
// clients' sockets. A slot is given up once the response has ended (or the connection dropped) and
// no work on its body runs, and a body sent slower than a floor rate loses its connection, so slow
// senders cannot keep the slots.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ConcurrencyLimit } from '../core/concurrency-limit.js';
import { ServiceError, UnavailableError } from '../core/errors.js';

export type BodyAdmission = {
  /** Bodies declared larger than this (or of no declared length) need a slot. */
  largeBytes: number;
  /** Large bodies read and processed at a time. */
  slots: number;
  /** Large bodies allowed to wait for a slot; beyond it, 503. */
  maxWaiting: number;
  /** A large body must arrive within `graceMs` plus its length at this rate, once admitted. */
  minBytesPerSecond: number;
  graceMs: number;
  /** The route's body limit: the length assumed for a body that declares none. */
  bodyLimit: number;
};

/**
 * A held slot is given back once the response has closed and no work on its body is in progress.
 * Released at the close alone, the 64 clients leaving at the end of a load let the next bodies in
 * while the departed ones' pool parses were still running, and those bodies overlapped in memory.
 */
export class HeldSlot {
  private busy = 0;
  private closed = false;

  constructor(private readonly release: () => void) {}

  close(): void {
    this.closed = true;
    if (this.busy === 0) this.release();
  }

  async during<T>(work: () => Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await work();
    } finally {
      this.busy--;
      if (this.closed && this.busy === 0) this.release();
    }
  }
}

const heldSlots = new WeakMap<IncomingMessage, HeldSlot>();

/** Runs `work` on the request's body; the request's slot, if it holds one, is kept until it ends. */
export function holdSlotDuring<T>(request: FastifyRequest, work: () => Promise<T>): Promise<T> {
  const slot = heldSlots.get(request.raw);
  return slot ? slot.during(work) : work();
}

/** Adds the admission to every route of `app` (an encapsulated plugin's instance). */
export function admitLargeBodies(app: FastifyInstance, settings: BodyAdmission): ConcurrencyLimit {
  const limit = new ConcurrencyLimit(settings.slots);
  app.addHook('preParsing', async (request, reply, payload) => {
    // No length and no chunked encoding: no body at all.
    const declared = Number(request.headers['content-length'] ?? (request.headers['transfer-encoding'] ? Number.NaN : 0));
    if (declared <= settings.largeBytes) return payload;
    if (limit.load.waiting >= settings.maxWaiting) throw new UnavailableError('the rendering pool is busy, try again shortly', 1);

    const left = new AbortController();
    const leave = () => left.abort();
    reply.raw.once('close', leave);
    let release: () => void;
    try {
      release = await limit.acquire(left.signal);
    } catch {
      throw new ServiceError(499, 'client closed request');
    } finally {
      reply.raw.off('close', leave);
    }
    if (reply.raw.destroyed) {
      release();
      throw new ServiceError(499, 'client closed request');
    }
    const slot = new HeldSlot(release);
    heldSlots.set(request.raw, slot);
    reply.raw.once('close', () => slot.close());

    const length = Number.isFinite(declared) ? declared : settings.bodyLimit;
    const deadline = setTimeout(() => request.raw.destroy(), settings.graceMs + (length / settings.minBytesPerSecond) * 1000);
    const received = () => clearTimeout(deadline);
    payload.once('end', received);
    payload.once('close', received);
    return payload;
  });
  return limit;
}

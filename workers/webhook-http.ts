// Sends one delivery: resolves the host, refuses addresses the allow list does not admit before
// any connection is made, connects to exactly the address it checked (a second DNS answer cannot
// swap it), bounds the whole exchange by WEBHOOK_DELIVER_TIMEOUT, reads a bounded answer, and
// follows only 307/308 redirects, each through the same check.
import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AttemptResult } from '../core/webhooks/delivery-policy.js';
import type { DeliveryRequest } from '../core/webhooks/request.js';
import { HostAllowList } from './webhook-address.js';

export type Resolver = (hostName: string) => Promise<Array<{ address: string; family: number }>>;

export interface WebhookHttpSettings {
  allowList: HostAllowList;
  skipTlsVerify: boolean;
  timeoutMs: number;
  /** The system resolver unless given (tests give their own names). */
  resolve?: Resolver;
}

/** How much of an answer is kept for the delivery record. */
export const RESPONSE_BODY_LIMIT = 8192;
/** How much of an answer is read at all (Gitea reads 1 MiB). */
const RESPONSE_READ_LIMIT = 1024 * 1024;
const MAX_REDIRECTS = 3;

export class RefusedAddressError extends Error {}

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 4 }), https: new Map<boolean, https.Agent>() };

function httpsAgent(skipTlsVerify: boolean): https.Agent {
  let agent = agents.https.get(skipTlsVerify);
  if (!agent) agents.https.set(skipTlsVerify, (agent = new https.Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: !skipTlsVerify })));
  return agent;
}

/** The address to connect to: the first the allow list admits; RefusedAddressError when none. */
async function admittedAddress(url: URL, s: WebhookHttpSettings): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const candidates = isIP(host) ? [{ address: host, family: isIP(host) }] : await (s.resolve ?? systemResolver)(host);
  const admitted = candidates.find((c) => s.allowList.allows(host, c.address));
  if (!admitted) {
    const shown = candidates.map((c) => c.address).join(', ') || 'no address';
    throw new RefusedAddressError(
      `webhook can only call allowed HTTP servers (check your WEBHOOK_ALLOWED_HOST_LIST setting), deny '${host}(${shown})'`,
    );
  }
  return admitted;
}

function pinnedLookup(address: string, family: number): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!;
    out[name] = out[name] === undefined ? res.rawHeaders[i + 1]! : `${out[name]},${res.rawHeaders[i + 1]}`;
  }
  return out;
}

interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: string;
  location?: string;
}

function exchange(url: URL, req: DeliveryRequest, target: { address: string; family: number }, s: WebhookHttpSettings, signal: AbortSignal): Promise<Exchange> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(url, {
      method: req.method,
      headers: { ...req.headers, 'User-Agent': 'pullhost-webhook/1', 'Content-Length': String(Buffer.byteLength(req.body)) },
      agent: secure ? httpsAgent(s.skipTlsVerify) : agents.http,
      lookup: pinnedLookup(target.address, target.family),
      signal,
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < RESPONSE_READ_LIMIT) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => {
        const body = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: headersOf(res), body, location: res.headers.location });
      });
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end(req.body);
  });
}

/** One attempt, redirects included; never throws. */
export async function sendDelivery(req: DeliveryRequest, s: WebhookHttpSettings): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(s.timeoutMs);
  let url = new URL(req.url);
  try {
    for (let hop = 0; ; hop++) {
      const target = await admittedAddress(url, s);
      const answer = await exchange(url, req, target, s, signal);
      if ((answer.status === 307 || answer.status === 308) && answer.location && hop < MAX_REDIRECTS) {
        const next = new URL(answer.location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new RefusedAddressError(`redirect to ${next.protocol} is not followed`);
        url = next;
        continue;
      }
      return { kind: 'response', response: { status: answer.status, headers: answer.headers, body: answer.body }, durationMs: elapsed() };
    }
  } catch (err) {
    if (err instanceof RefusedAddressError) return { kind: 'error', message: err.message, retryable: false, durationMs: elapsed() };
    const timedOut = signal.aborted;
    const message = timedOut ? `timed out after ${s.timeoutMs} ms` : `Delivery: ${(err as Error).message}`;
    return { kind: 'error', message, retryable: true, durationMs: elapsed() };
  }
}

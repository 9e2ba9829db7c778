// A real HTTP receiver for webhook tests: records every request (headers, raw body), answers what
// the test says (a status, a delay, a redirect), can go down and come back on the same port.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHmac } from 'node:crypto';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type Answer = { status: number; delayMs?: number; headers?: Record<string, string>; body?: string };

export class Receiver {
  readonly received: Received[] = [];
  /** How the next requests are answered; 200 by default. */
  answer: (req: Received) => Answer = () => ({ status: 200, body: 'ok' });
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  /** TCP connections accepted (a refused address must not even be connected to). */
  connections = 0;
  port = 0;
  host: string;

  constructor(host = '127.0.0.1') {
    this.host = host;
  }

  get url(): string {
    return `http://${this.host}:${this.port}/hook`;
  }

  async start(): Promise<void> {
    const server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (let i = 0; i < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i]!] = req.rawHeaders[i + 1]!;
        const got: Received = { path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.received.push(got);
        const a = this.answer(got);
        const send = () => {
          res.writeHead(a.status, { 'content-type': 'text/plain', 'x-receiver': 'test', ...a.headers });
          res.end(a.body ?? '');
        };
        if (a.delayMs) setTimeout(send, a.delayMs);
        else send();
      });
    });
    server.on('connection', (s: Socket) => {
      this.connections++;
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops open connections: the port refuses until start() again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits until `count` requests matching `filter` arrived (polls; bounded). */
  async waitFor(count: number, filter: (r: Received) => boolean = () => true, timeoutMs = 20_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.received.filter(filter);
      if (got.length >= count || Date.now() > deadline) return got;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

export function signatureOf(body: string, secret: string, algorithm: 'sha256' | 'sha1' = 'sha256'): string {
  return createHmac(algorithm, secret).update(body).digest('hex');
}

/** The JSON payload of a received delivery, whatever its content type. */
export function payloadOf(r: Received): Record<string, unknown> {
  const raw = r.headers['Content-Type'] === 'application/x-www-form-urlencoded' ? new URLSearchParams(r.body).get('payload') ?? '' : r.body;
  return JSON.parse(raw) as Record<string, unknown>;
}

// A recording HTTP proxy between the Go SDK's tests and a server: every request and answer is
// kept, labelled with the test that sent it, so a run against this service can be lined up with a
// run against Gitea to find each test's first request answered differently. The server's own
// origin is rewritten to the proxy's in answers, so URL checks in the tests see the URL they used.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  test: string;
  method: string;
  path: string;
  requestBody: string;
  status: number;
  responseBody: string;
}

export interface Recorder {
  url: string;
  exchanges: Exchange[];
  setTest(name: string): void;
  close(): Promise<void>;
}

const KEPT = 1500;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function isText(type: string | undefined): boolean {
  return !type || /json|text|xml|x-www-form-urlencoded|diff|patch/.test(type);
}

function keep(body: Buffer, type: string | undefined): string {
  if (body.length === 0) return '';
  if (!isText(type)) return `<${body.length} bytes of ${type}>`;
  const s = body.toString('utf8');
  return s.length > KEPT ? `${s.slice(0, KEPT)}...(${s.length} chars)` : s;
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

function forwardedHeaders(headers: IncomingHttpHeaders, from: string, to: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    out[k] = k === 'location' && typeof v === 'string' ? v.split(from).join(to) : v;
  }
  return out;
}

export async function startRecorder(target: string): Promise<Recorder> {
  const targetUrl = new URL(target);
  const targetOrigin = targetUrl.origin;
  const exchanges: Exchange[] = [];
  let test = '';
  let ownOrigin = '';
  const server = createServer(async (req, res) => {
    try {
      const body = await readAll(req);
      const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const out = request({
          host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url,
          headers: { ...forwardedHeaders(req.headers, ownOrigin, targetOrigin), host: targetUrl.host, 'content-length': String(body.length) },
        }, async (r) => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: await readAll(r) }));
        out.once('error', reject);
        out.end(body);
      });
      const type = answer.headers['content-type'];
      const rewritten = isText(type) ? Buffer.from(answer.body.toString('utf8').split(targetOrigin).join(ownOrigin)) : answer.body;
      exchanges.push({
        test, method: req.method ?? '', path: req.url ?? '', requestBody: keep(body, req.headers['content-type']),
        status: answer.status, responseBody: keep(rewritten, type),
      });
      res.writeHead(answer.status, { ...forwardedHeaders(answer.headers, targetOrigin, ownOrigin), 'content-length': String(rewritten.length) });
      res.end(rewritten);
    } catch (err) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`recorder: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ownOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: ownOrigin,
    exchanges,
    setTest: (name) => { test = name; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

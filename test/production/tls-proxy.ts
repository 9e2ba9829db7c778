// A TLS-terminating proxy for tests: the Temporal dev server has no TLS, so this listens with TLS
// (ALPN h2, as gRPC needs) and pipes the decrypted bytes to the dev server. With `clientCa` it
// requires a client certificate signed by that CA (mTLS), as a secured cluster does.
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { Pem } from './certificates.js';

export interface TlsProxy {
  /** host:port to give as TEMPORAL_ADDRESS. */
  address: string;
  /** Connections whose TLS handshake completed. */
  handshakes(): number;
  close(): Promise<void>;
}

export async function startTlsProxy(options: { target: string; server: Pem; clientCa?: string }): Promise<TlsProxy> {
  const [host, port] = [options.target.slice(0, options.target.lastIndexOf(':')), Number(options.target.slice(options.target.lastIndexOf(':') + 1))];
  const open = new Set<Socket>();
  let handshakes = 0;
  const server = createServer({
    key: options.server.key,
    cert: options.server.cert,
    ALPNProtocols: ['h2'],
    ...(options.clientCa ? { ca: [options.clientCa], requestCert: true, rejectUnauthorized: true } : {}),
  }, (secure: TLSSocket) => {
    handshakes += 1;
    const plain = connect({ host, port });
    open.add(secure).add(plain);
    const drop = () => {
      secure.destroy();
      plain.destroy();
      open.delete(secure);
      open.delete(plain);
    };
    secure.on('error', drop).on('close', drop);
    plain.on('error', drop).on('close', drop);
    secure.pipe(plain).pipe(secure);
  });
  // Handshakes refused (no client certificate, unknown CA) are the client's failure to see, not ours.
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const listening = typeof address === 'object' && address ? address.port : 0;
  return {
    address: `127.0.0.1:${listening}`,
    handshakes: () => handshakes,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

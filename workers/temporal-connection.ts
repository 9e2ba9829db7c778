// How a process reaches Temporal: the frontend's address, plus TLS (a CA, a client certificate for
// mTLS, the server name) and an API key for a secured cluster or Temporal Cloud. The API's client,
// the worker and the search-attribute check all connect with these same options.
import { connect as tlsConnect } from 'node:tls';
import type { TLSConfig } from '@temporalio/client';

export interface TemporalConnectionSettings {
  address: string;
  /** TLS settings; absent: plain TCP (the dev server). */
  tls?: TLSConfig;
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
}

/** Connection options both `Connection.connect` (client) and `NativeConnection.connect` (worker) take. */
export function connectionOptions(s: TemporalConnectionSettings): { address: string; tls?: TLSConfig; apiKey?: string } {
  return { address: s.address, ...(s.tls ? { tls: s.tls } : {}), ...(s.apiKey ? { apiKey: s.apiKey } : {}) };
}

/** Failure texts of grpc-js, rustls and OpenSSL, each with what it means for the settings. */
const TLS_CAUSES: Array<[RegExp, string]> = [
  [/certificate required|alert number 116|peer did not return a certificate|CertificateRequired/i,
    'the server requires a client certificate (set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH)'],
  [/unknown ca|alert number 48|bad certificate|alert number 42|decrypt error/i,
    'the server refused the client certificate (is it signed by a CA the server trusts?)'],
  [/self[- ]signed|unable to (get local issuer|verify the first)|UnknownIssuer|unknown issuer|certificate verify failed|BadSignature/i,
    'the server certificate is not signed by a trusted CA (check TEMPORAL_TLS_SERVER_CA_CERT_PATH)'],
  [/altnames|hostname|NotValidForName|does not match|ERR_TLS_CERT_ALTNAME/i,
    'the server certificate is not for this host name (set TEMPORAL_TLS_SERVER_NAME to the name it carries)'],
  [/wrong version number|packet length too long|http2 header|InvalidContentType|received corrupt message|CorruptMessage/i,
    'the server does not speak TLS there (TEMPORAL_TLS=false for a plain server)'],
  [/unauthenticated|16 UNAUTHENTICATED|invalid.*api key|Request unauthorized/i, 'the server refused the credentials (check TEMPORAL_API_KEY)'],
];

function splitAddress(address: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address.trim());
  return m ? { host: m[1]!, port: Number(m[2]) } : { host: address.trim(), port: 7233 };
}

/**
 * A TLS handshake with the same settings, to learn why a connection failed: the gRPC client says
 * only that it could not connect before its deadline. Resolves with the handshake's error, or null
 * when the handshake succeeds (TLS is not the problem). A server that refuses a missing or unknown
 * client certificate says so in an alert just after the handshake, so that moment is waited for too.
 */
export function probeTls(s: TemporalConnectionSettings, waitMs = 5000): Promise<string | null> {
  if (!s.tls) return Promise.resolve(null);
  const { host, port } = splitAddress(s.address);
  const servername = s.tls.serverNameOverride ?? (/^[\d.]+$|:/.test(host) ? undefined : host);
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host, port, ALPNProtocols: ['h2'],
      ...(servername ? { servername } : {}),
      ...(s.tls!.serverRootCACertificate ? { ca: Buffer.from(s.tls!.serverRootCACertificate) } : {}),
      ...(s.tls!.clientCertPair ? { cert: Buffer.from(s.tls!.clientCertPair.crt), key: Buffer.from(s.tls!.clientCertPair.key) } : {}),
    });
    const done = (result: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(null), waitMs);
    // OpenSSL's text leads with its error queue's codes and source file: keep the reason.
    socket.once('error', (err) => done(err.message.replace(/^[0-9A-F]+:error:[0-9A-F]+:SSL routines:[^:]*:([^:]+):.*$/s, '$1')));
    socket.once('secureConnect', () => setTimeout(() => done(null), 300));
  });
}

/**
 * One line for an operator: what could not be reached and, when the error (or a TLS handshake
 * tried with the same settings) says, why in terms of the settings to change. Connection errors from
 * the SDKs run over several lines of nested causes, or say only that a deadline passed.
 */
export async function describeConnectionError(err: unknown, s: TemporalConnectionSettings, attempt = 'reach Temporal at'): Promise<string> {
  const parts: string[] = [];
  for (let e: unknown = err; e && parts.length < 5; e = (e as { cause?: unknown }).cause) parts.push(String((e as Error).message ?? e));
  const handshake = await probeTls(s);
  if (handshake) parts.push(handshake);
  const text = parts.join(' | ');
  const cause = TLS_CAUSES.find(([pattern]) => pattern.test(text))?.[1];
  const how = s.tls ? 'over TLS' : 'without TLS';
  const first = (handshake ?? parts[0] ?? 'unknown error').split('\n')[0]!.slice(0, 300);
  return `cannot ${attempt} ${s.address} ${how}: ${cause ? `${cause} (${first})` : first}`;
}

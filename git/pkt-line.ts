// pkt-lines (git's framing: four hex digits of length, then the payload; "0000" is a flush) and the
// command list at the start of a receive-pack request, read before git runs so the route can refuse
// a push (protected branch, no permission) cleanly.
import { PassThrough, type Readable } from 'node:stream';
import { isValidSha } from './refs.js';

export const FLUSH_PKT = Buffer.from('0000');
const MAX_PKT_LEN = 65520;

/** Frames one payload as a pkt-line. */
export function encodePktLine(payload: string | Buffer): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  if (data.length + 4 > MAX_PKT_LEN) throw new RangeError('pkt-line payload too long');
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data]);
}

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

export interface ReceiveCommand {
  oldSha: string;
  newSha: string;
  ref: string;
}

export interface ReceivePackPreamble {
  commands: ReceiveCommand[];
  /** Capabilities the client asked for (after the NUL of the first command). */
  capabilities: string[];
  /** `git push -o` values, present when the client asked for push-options. */
  pushOptions: string[];
  /** "shallow <sha>" lines a shallow client sent before its commands. */
  shallow: string[];
  /** Where the pack data (if any) begins in the request body. */
  packOffset: number;
}

type PktRead = { kind: 'flush'; next: number } | { kind: 'data'; payload: Buffer; next: number } | null;

function readPkt(buf: Buffer, pos: number): PktRead {
  if (buf.length < pos + 4) return null;
  const lenText = buf.toString('latin1', pos, pos + 4);
  if (!/^[0-9a-f]{4}$/i.test(lenText)) throw new ProtocolError(`bad pkt-line length ${JSON.stringify(lenText)}`);
  const len = parseInt(lenText, 16);
  if (len === 0) return { kind: 'flush', next: pos + 4 };
  if (len < 4) throw new ProtocolError(`unexpected special pkt-line ${lenText}`);
  if (buf.length < pos + len) return null;
  return { kind: 'data', payload: buf.subarray(pos + 4, pos + len), next: pos + len };
}

function payloadText(payload: Buffer): string {
  const text = payload.toString('utf8');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/**
 * Parses the command list (and push options) at the start of a receive-pack request body. Returns
 * null when `buf` ends before the list does (read more and call again); throws ProtocolError for
 * malformed input or a signed push (push certificates are not supported).
 */
export function parseReceivePackCommands(buf: Buffer): ReceivePackPreamble | null {
  const commands: ReceiveCommand[] = [];
  const shallow: string[] = [];
  let capabilities: string[] = [];
  let pos = 0;
  for (;;) {
    const pkt = readPkt(buf, pos);
    if (pkt === null) return null;
    pos = pkt.next;
    if (pkt.kind === 'flush') break;
    let text = payloadText(pkt.payload);
    const nul = text.indexOf('\0');
    if (nul !== -1) {
      if (commands.length === 0) capabilities = text.slice(nul + 1).split(' ').filter((c) => c.length > 0);
      text = text.slice(0, nul);
    }
    if (text.startsWith('shallow ')) { shallow.push(text.slice(8)); continue; }
    if (text.startsWith('push-cert')) throw new ProtocolError('signed pushes are not supported');
    const parts = text.split(' ');
    if (parts.length !== 3 || !isValidSha(parts[0]!) || !isValidSha(parts[1]!) || parts[2]!.length === 0) {
      throw new ProtocolError(`bad receive-pack command ${JSON.stringify(text.slice(0, 200))}`);
    }
    commands.push({ oldSha: parts[0]!, newSha: parts[1]!, ref: parts[2]! });
  }
  const pushOptions: string[] = [];
  if (capabilities.includes('push-options') && commands.length > 0) {
    for (;;) {
      const pkt = readPkt(buf, pos);
      if (pkt === null) return null;
      pos = pkt.next;
      if (pkt.kind === 'flush') break;
      pushOptions.push(payloadText(pkt.payload));
    }
  }
  return { commands, capabilities, pushOptions, shallow, packOffset: pos };
}

export interface ReceivePackRequest extends ReceivePackPreamble {
  /** The whole request body again (the bytes already read, then the rest), to hand to git. */
  body: Readable;
}

/**
 * Reads a receive-pack request body until its command list is complete, without consuming it: the
 * returned `body` replays everything for `git receive-pack`. Fails past `maxPreambleBytes`.
 */
export function readReceivePackRequest(input: Readable, opts: { maxPreambleBytes?: number } = {}): Promise<ReceivePackRequest> {
  const max = opts.maxPreambleBytes ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = () => {
      input.off('readable', onReadable);
      input.off('end', onEnd);
      input.off('error', onError);
    };
    const fail = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = input.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        total += chunk.length;
        const buf = Buffer.concat(chunks);
        let parsed: ReceivePackPreamble | null;
        try {
          parsed = parseReceivePackCommands(buf);
        } catch (err) {
          fail(err as Error);
          return;
        }
        if (parsed) {
          cleanup();
          const body = new PassThrough();
          body.write(buf);
          input.pipe(body);
          input.once('error', (err) => body.destroy(err));
          resolve({ ...parsed, body });
          return;
        }
        if (total > max) {
          fail(new ProtocolError('receive-pack command list too large'));
          return;
        }
      }
    };
    const onEnd = () => fail(new ProtocolError('request ended before the receive-pack command list'));
    const onError = (err: Error) => fail(err);
    input.on('readable', onReadable);
    input.on('end', onEnd);
    input.on('error', onError);
  });
}

import t from 'tap';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { encodePktLine, FLUSH_PKT, parseReceivePackCommands, ProtocolError, readReceivePackRequest } from '../../git/pkt-line.js';
import { decodeRequestBody, sanitizeGitProtocol } from '../../git/smart-http.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);

function request(lines: string[], extra: Buffer[] = []): Buffer {
  return Buffer.concat([...lines.map((l) => encodePktLine(l)), FLUSH_PKT, ...extra]);
}

t.test('encodePktLine', async (t) => {
  t.equal(encodePktLine('# service=git-upload-pack\n').toString(), '001e# service=git-upload-pack\n');
  t.equal(encodePktLine('').toString(), '0004');
  t.throws(() => encodePktLine(Buffer.alloc(70000)), RangeError);
});

t.test('parses commands, capabilities and where the pack starts', async (t) => {
  const pack = Buffer.from('PACK\0\0\0\x02rest-of-pack');
  const body = request([
    `${A} ${B} refs/heads/main\0 report-status side-band-64k quiet object-format=sha1 agent=git/2.39.5\n`,
    `${Z} ${B} refs/heads/new\n`,
    `${A} ${Z} refs/heads/old`,
  ], [pack]);
  const p = parseReceivePackCommands(body)!;
  t.same(p.commands, [
    { oldSha: A, newSha: B, ref: 'refs/heads/main' },
    { oldSha: Z, newSha: B, ref: 'refs/heads/new' },
    { oldSha: A, newSha: Z, ref: 'refs/heads/old' },
  ]);
  t.same(p.capabilities, ['report-status', 'side-band-64k', 'quiet', 'object-format=sha1', 'agent=git/2.39.5']);
  t.same(p.pushOptions, []);
  t.equal(body.subarray(p.packOffset).toString('latin1'), pack.toString('latin1'));
});

t.test('push options and shallow lines', async (t) => {
  const body = Buffer.concat([
    encodePktLine(`shallow ${A}\n`),
    encodePktLine(`${A} ${B} refs/heads/main\0report-status push-options\n`),
    FLUSH_PKT,
    encodePktLine('ci.skip\n'),
    encodePktLine('topic=x\n'),
    FLUSH_PKT,
    Buffer.from('PACK'),
  ]);
  const p = parseReceivePackCommands(body)!;
  t.same(p.shallow, [A]);
  t.same(p.pushOptions, ['ci.skip', 'topic=x']);
  t.equal(body.subarray(p.packOffset).toString(), 'PACK');
});

t.test('incomplete input asks for more; malformed input throws', async (t) => {
  const full = request([`${A} ${B} refs/heads/main\0report-status\n`]);
  for (let cut = 0; cut < full.length; cut++) {
    t.equal(parseReceivePackCommands(full.subarray(0, cut)), null, `prefix of ${cut} bytes`);
  }
  t.ok(parseReceivePackCommands(full));
  t.throws(() => parseReceivePackCommands(Buffer.from('zzzz')), ProtocolError);
  t.throws(() => parseReceivePackCommands(Buffer.from('0001')), ProtocolError);
  t.throws(() => parseReceivePackCommands(request([`${A} ${B}\n`])), ProtocolError);
  t.throws(() => parseReceivePackCommands(request([`${A.toUpperCase()} ${B} refs/heads/x\n`])), ProtocolError);
  t.throws(() => parseReceivePackCommands(request(['push-cert\0report-status\n'])), /signed pushes/);
  t.same(parseReceivePackCommands(FLUSH_PKT)!.commands, [], 'an empty command list');
});

t.test('readReceivePackRequest replays the whole body', async (t) => {
  const pack = Buffer.alloc(300_000, 7);
  const whole = request([`${A} ${B} refs/heads/main\0report-status\n`], [pack]);
  // Delivered in small pieces, as a socket would.
  const source = new PassThrough();
  const pending = readReceivePackRequest(source);
  for (let i = 0; i < whole.length; i += 10_000) source.write(whole.subarray(i, i + 10_000));
  source.end();
  const req = await pending;
  t.same(req.commands, [{ oldSha: A, newSha: B, ref: 'refs/heads/main' }]);
  const chunks: Buffer[] = [];
  for await (const c of req.body) chunks.push(c as Buffer);
  t.ok(Buffer.concat(chunks).equals(whole), 'git gets every byte');

  await t.rejects(readReceivePackRequest(Readable.from([Buffer.from('0032' + A)])), ProtocolError, 'ends too early');
  await t.rejects(readReceivePackRequest(Readable.from([Buffer.from('xxxx')])), ProtocolError);
  const endless = Readable.from((function* () { for (;;) yield encodePktLine(`${A} ${B} refs/heads/x\n`); })());
  await t.rejects(readReceivePackRequest(endless, { maxPreambleBytes: 10_000 }), /too large/);
});

t.test('gzip bodies and the Git-Protocol header', async (t) => {
  const plain = Buffer.from('0032want something\n0000');
  const decoded = decodeRequestBody(Readable.from([gzipSync(plain)]), 'gzip');
  const chunks: Buffer[] = [];
  for await (const c of decoded) chunks.push(c as Buffer);
  t.ok(Buffer.concat(chunks).equals(plain));
  const same = Readable.from([plain]);
  t.equal(decodeRequestBody(same, undefined), same);
  t.throws(() => decodeRequestBody(same, 'br'), TypeError);
  t.equal(sanitizeGitProtocol('version=2'), 'version=2');
  t.equal(sanitizeGitProtocol(['version=2', 'object-format=sha1']), 'version=2:object-format=sha1');
  t.equal(sanitizeGitProtocol('version=2\nX: y'), undefined);
  t.equal(sanitizeGitProtocol(undefined), undefined);
});

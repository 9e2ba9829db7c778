// The .diff disk cache on its own: a whole answer is kept and served back; an answer abandoned
// mid-stream is not kept and stops its source (git); the total stays under its bound.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { DiffDiskCache } from '../../core/diff-cache.js';

const settle = () => new Promise((r) => setTimeout(r, 200));

async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += chunk;
  return out;
}

t.test('kept whole, abandoned never, bounded', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'diff-cache-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cache = new DiffDiskCache(dir, 25, 20);
  t.equal(await cache.open('none'), null);

  t.equal(await text(cache.capture('a', Readable.from([Buffer.from('hello '), Buffer.from('world')]))), 'hello world', 'passed through');
  await settle();
  const hit = await cache.open('a');
  t.equal(hit?.size, 11);
  t.equal(await text(hit!.stream), 'hello world', 'served back whole');

  let destroyed = false;
  const endless = new Readable({ read() { this.push(Buffer.alloc(1024, 97)); }, destroy(err, cb) { destroyed = true; cb(err); } });
  const out = cache.capture('b', endless);
  await new Promise<void>((resolve) => { let n = 0; out.on('data', () => { if (++n === 3) { out.destroy(); resolve(); } }); });
  await settle();
  t.ok(destroyed, 'the source is stopped when the reader goes away');
  t.equal(await cache.open('b'), null, 'an abandoned answer is not kept');
  t.same(readdirSync(dir).filter((f) => f.endsWith('.tmp')), [], 'nor its temporary file');

  t.equal(await text(cache.capture('big', Readable.from([Buffer.alloc(30, 98)]))), 'b'.repeat(30));
  await settle();
  t.equal(await cache.open('big'), null, 'larger than one answer may be: not kept');
  await text(cache.capture('c', Readable.from([Buffer.from('0123456789abcdef')])));
  await settle();
  t.ok(await cache.open('c'));
  t.equal(await cache.open('a'), null, 'the oldest goes when the total would pass its bound');
});

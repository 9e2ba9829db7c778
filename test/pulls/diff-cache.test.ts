// The .diff disk cache on its own: a whole answer is kept and served back; an answer abandoned
// mid-stream is not kept and stops its source (git); the total stays under its bound; the diffs
// read most recently are also held in memory, within a bound of their own; the directory is made
// at the first diff asked for.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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

t.test('the diffs read most recently are held whole in memory, within their own bound', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'diff-cache-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // Memory for 40 bytes: one diff may take a quarter of it, 10 bytes and its key's share.
  const cache = new DiffDiskCache(dir, 1000, 1000, 400);
  await text(cache.capture('small', Readable.from([Buffer.from('tiny')])));
  await text(cache.capture('large', Readable.from([Buffer.alloc(200, 99)])));
  await settle();
  const [first, second] = await Promise.all([cache.open('small'), cache.open('small')]);
  t.same(await Promise.all([text(first!.stream), text(second!.stream)]), ['tiny', 'tiny'], 'concurrent readers each get it whole');
  t.equal((await cache.open('large'))?.size, 200);
  for (const f of readdirSync(dir)) rmSync(join(dir, f));
  const held = await cache.open('small');
  t.equal(held?.size, 4, 'held in memory: served with its file gone');
  t.equal(await text(held!.stream), 'tiny');
  t.equal(await cache.open('large'), null, 'larger than a quarter of the memory bound: only ever on disk');

  const without = new DiffDiskCache(mkdtempSync(join(dir, 'none-')), 1000, 1000);
  await text(without.capture('small', Readable.from([Buffer.from('tiny')])));
  await settle();
  t.ok(await without.open('small'));
  for (const f of readdirSync(join(dir)).filter((f) => f.startsWith('none-'))) rmSync(join(dir, f), { recursive: true, force: true });
  t.equal(await without.open('small'), null, 'no memory bound: nothing held');
});

t.test('the directory is made at the first diff asked for, not when the cache is made', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'diff-cache-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cache = new DiffDiskCache(join(dir, 'diffs'), 1000, 1000);
  await settle();
  // A service whose data directory is removed before it serves a diff (a test's) does not make it again.
  t.notOk(existsSync(join(dir, 'diffs')), 'not made by making the cache');
  t.equal(await cache.open('first'), null);
  t.ok(existsSync(join(dir, 'diffs')), 'made by the first open');
  t.equal(await text(cache.capture('first', Readable.from([Buffer.from('kept')]))), 'kept');
  await settle();
  t.equal((await cache.open('first'))?.size, 4, 'and the capture after it is kept there');
});

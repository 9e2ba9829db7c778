// Avatars: avatar_url is Gitea's <APP_URL>avatars/<md5 of the e-mail, or of the name> and that
// address serves a PNG made from the hash, cacheable; deleted accounts get the default picture.
import t from 'tap';
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { startWorld } from './world.js';
import { avatarHash, identiconPng } from '../../core/avatars.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** The PNG's size, bit depth, colour type and its pixel rows, read with nothing but zlib. */
function readPng(png: Buffer) {
  t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  let offset = 8;
  const chunks: Array<{ type: string; data: Buffer }> = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    chunks.push({ type: png.toString('ascii', offset + 4, offset + 8), data: png.subarray(offset + 8, offset + 8 + length) });
    offset += 12 + length;
  }
  const ihdr = chunks.find((c) => c.type === 'IHDR')!.data;
  const pixels = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  return { types: chunks.map((c) => c.type), width: ihdr.readUInt32BE(0), height: ihdr.readUInt32BE(4), depth: ihdr[8], colourType: ihdr[9], pixels };
}

t.test('the picture', async (t) => {
  const hash = md5('rita@example.com');
  const png = readPng(identiconPng(hash));
  t.same(png.types, ['IHDR', 'PLTE', 'IDAT', 'IEND']);
  t.match(png, { width: 512, height: 512, depth: 1, colourType: 3 }, "a 512×512 two-colour picture, like Gitea's");
  t.equal(png.pixels.length, 512 * (512 / 8 + 1), 'every row decompresses');
  t.ok(identiconPng(hash).equals(identiconPng(hash)), 'the same hash, the same bytes');
  t.notOk(identiconPng(hash).equals(identiconPng(md5('sam@example.com'))), 'another hash, another picture');
  t.equal(avatarHash({ email: ' Rita@Example.com ', name: 'rita' }), hash, "Gitea's HashEmail: trimmed, lower case");
  t.equal(avatarHash({ email: '', name: 'Acme' }), md5('acme'), 'no e-mail: the name');
});

t.test('avatar_url and its address', async (t) => {
  const w = await startWorld(t, { temporal: false });
  const me = (await w.api({ url: '/api/v1/user', as: 'rita' })).json();
  t.equal(me.avatar_url, `${w.config.APP_URL}avatars/${md5('rita@example.com')}`);
  t.equal((await w.api({ method: 'POST', url: '/api/v1/orgs', as: 'alice', body: { username: 'acme' } })).json().avatar_url, `${w.config.APP_URL}avatars/${md5('acme')}`, 'an organization without an e-mail: its name');
  const path = new URL(me.avatar_url).pathname;
  const r = await w.app.inject({ url: path });
  t.equal(r.statusCode, 200);
  t.equal(r.headers['content-type'], 'image/png');
  t.equal(r.headers['cache-control'], 'public, max-age=21600, no-transform', "Gitea's caching");
  t.ok(r.rawPayload.equals(identiconPng(md5('rita@example.com'))));
  const etag = String(r.headers.etag);
  t.equal((await w.app.inject({ url: path, headers: { 'if-none-match': etag } })).statusCode, 304, 'revalidation');
  t.equal((await w.app.inject({ url: `${path}?size=64` })).statusCode, 200, "Gitea's size parameter is accepted");
  t.equal((await w.app.inject({ url: path.toUpperCase().replace('/AVATARS/', '/avatars/') })).statusCode, 200, 'hex in either case');
  for (const bad of ['nothex', '0'.repeat(31), '0'.repeat(33), '..%2F..%2Fetc%2Fpasswd', 'g'.repeat(32)]) {
    const res = await w.app.inject({ url: `/avatars/${bad}` });
    t.equal(res.statusCode, 404, bad);
    t.match(res.json(), { message: String, url: String }, "Gitea's error shape");
  }
  const ghost = await w.app.inject({ url: '/assets/img/avatar_default.png' });
  t.equal(ghost.statusCode, 200, "the default picture deleted accounts point at");
  t.equal(ghost.headers['content-type'], 'image/png');
  const doc = (await w.app.inject({ url: '/swagger.v1.json' })).json();
  t.notOk(Object.keys(doc.paths).some((p) => p.includes('avatar')), 'not part of the API document, as in Gitea');
});

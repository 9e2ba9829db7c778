// Generated avatars, Gitea's default when Gravatar is off: every account's avatar_url is
// `<APP_URL>avatars/<md5 of its e-mail, or of its name when it has none>` and that address serves a
// picture made from the hash alone, so it needs no storage and no lookup. The picture is our own
// design (a mirrored 5×5 pattern in one colour), a 512×512 two-colour PNG like Gitea's.
import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/** Gitea's avatars.HashEmail over its avatar seed (the e-mail, else the name), lower-cased and trimmed. */
export function avatarHash(account: { email: string; name: string }): string {
  const seed = account.email.trim() ? account.email : account.name;
  return createHash('md5').update(seed.trim().toLowerCase()).digest('hex');
}

export function isAvatarHash(s: string): boolean {
  return /^[0-9a-f]{32}$/.test(s);
}

const SIZE = 512;
const GRID = 5;
const CELL = 80;
const MARGIN = (SIZE - GRID * CELL) / 2;
const BACKGROUND = [0xf0, 0xf0, 0xf0];

function hslToRgb(h: number, s: number, l: number): number[] {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** The cells that are filled: 15 bits of the hash decide the left three columns, mirrored to the right. */
function pattern(hash: string): boolean[][] {
  const bits = parseInt(hash.slice(8, 12), 16);
  return Array.from({ length: GRID }, (_, row) => Array.from({ length: GRID }, (_, col) => {
    const c = col < 3 ? col : GRID - 1 - col;
    return ((bits >> (row * 3 + c)) & 1) === 1;
  }));
}

/** A PNG for an avatar hash; the same hash always gives the same bytes. */
export function identiconPng(hash: string): Buffer {
  const cells = pattern(hash);
  const colour = hslToRgb(parseInt(hash.slice(0, 3), 16) % 360, 0.55, 0.5);
  const stride = SIZE / 8 + 1; // one filter byte, then one bit per pixel
  const raw = Buffer.alloc(stride * SIZE);
  for (let y = 0; y < SIZE; y++) {
    const row = Math.floor((y - MARGIN) / CELL);
    if (row < 0 || row >= GRID) continue;
    for (let x = MARGIN; x < SIZE - MARGIN; x++) {
      if (cells[row]![Math.floor((x - MARGIN) / CELL)]) raw[y * stride + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([1, 3, 0, 0, 0], 8); // bit depth 1, palette, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('PLTE', Buffer.from([...BACKGROUND, ...colour])),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

import t from 'tap';
import {
  MIN_SERVER_KEY_BYTES,
  generateServerKey,
  generateTokenValue,
  hashToken,
  looksLikeToken,
  looksLikeTokenHash,
  matchesStoredHash,
  safeEqualHex,
  tokenLastEight,
} from '../../core/auth/tokens.js';

const keyA = Buffer.alloc(32, 1);
const keyB = Buffer.alloc(32, 2);

t.test('generated values', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const v = generateTokenValue();
    t.match(v, /^[0-9a-f]{40}$/);
    t.ok(looksLikeToken(v));
    seen.add(v);
  }
  t.equal(seen.size, 200, 'no repeats');
  t.equal(generateServerKey().length, MIN_SERVER_KEY_BYTES);
});

t.test('looksLikeToken', async (t) => {
  const good = ['0123456789abcdef0123456789abcdef01234567', 'a'.repeat(40)];
  const bad: unknown[] = [
    '', 'a'.repeat(39), 'a'.repeat(41), 'A'.repeat(40), '0123456789ABCDEF0123456789abcdef01234567',
    'g'.repeat(40), ' ' + 'a'.repeat(39), 'a'.repeat(40) + '\n', 'a'.repeat(39) + '\u0000',
    'eyJhbGciOiJIUzI1NiJ9.e30.sig', null, undefined, 42, ['a'.repeat(40)], { length: 40 },
  ];
  for (const v of good) t.equal(looksLikeToken(v), true, v);
  for (const v of bad) t.equal(looksLikeToken(v), false, JSON.stringify(v));
});

t.test('hash properties', async (t) => {
  const v = generateTokenValue();
  const h = hashToken(v, keyA);
  t.match(h, /^[0-9a-f]{64}$/, '64 lowercase hex');
  t.ok(looksLikeTokenHash(h));
  t.equal(hashToken(v, keyA), h, 'deterministic under one key');
  t.not(hashToken(v, keyB), h, 'differs across keys');
  t.not(hashToken(generateTokenValue(), keyA), h, 'differs across values');
  t.not(h.includes(v), true, 'the value does not appear in its hash');
  // RFC 4231 test case 2 pins the algorithm (HMAC-SHA256) and the encoding. HMAC zero-pads keys to
  // the block size, so "Jefe" plus 28 zero bytes (to pass the length check) is the same key.
  t.equal(
    hashToken('what do ya want for nothing?', Buffer.concat([Buffer.from('Jefe'), Buffer.alloc(28)])),
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  );
  t.throws(() => hashToken(v, Buffer.alloc(16)), RangeError, 'short keys refused');
  t.throws(() => hashToken(v, 'secret' as unknown as Buffer), RangeError, 'string keys refused');
});

t.test('last eight', async (t) => {
  t.equal(tokenLastEight('0123456789abcdef0123456789abcdef01234567'), '01234567');
  t.equal(tokenLastEight('abc'), 'abc');
});

t.test('safeEqualHex', async (t) => {
  const h = hashToken(generateTokenValue(), keyA);
  t.equal(safeEqualHex(h, h), true);
  t.equal(safeEqualHex(h, h.slice(0, -1) + (h.endsWith('0') ? '1' : '0')), false, 'last character differs');
  t.equal(safeEqualHex(h, h.slice(0, 63)), false, 'shorter');
  t.equal(safeEqualHex(h, h + '0'), false, 'longer');
  t.equal(safeEqualHex('', ''), true);
  t.equal(safeEqualHex(h, h.toUpperCase()), false, 'case matters: stored hashes are lowercase');
  t.equal(safeEqualHex(null as unknown as string, h), false, 'non-strings are not equal');
  t.equal(safeEqualHex('é', 'e\u0301'), false, 'multi-byte input does not throw');
});

t.test('matchesStoredHash', async (t) => {
  const v = generateTokenValue();
  const stored = hashToken(v, keyA);
  t.equal(matchesStoredHash(v, stored, keyA), true);
  t.equal(matchesStoredHash(v, stored, keyB), false, 'wrong server key');
  t.equal(matchesStoredHash(generateTokenValue(), stored, keyA), false);
  t.equal(matchesStoredHash(v.toUpperCase(), stored, keyA), false);
  t.equal(matchesStoredHash(v, stored.toUpperCase(), keyA), false, 'a case-folding column cannot make a match');
  t.equal(matchesStoredHash(v, '', keyA), false);
});
